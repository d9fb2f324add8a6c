import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { tenantOf } from '../../plugins/auth.js'
import { Account } from '../../schemas/accounts.js'
import { AgentIdHeaders, errorResponses, ref } from '../../schemas/common.js'
import { CustomerRecord } from '../../schemas/customers.js'
import { AccountIdPathParam, AmountRequest, CloseRequest, CustomerIdPathParam, KycRequest } from '../../schemas/sandbox-controls.js'
import { PARTNER_SECURITY } from './shared.js'

const NOTE = 'Same token and Agent-Id rules as the bank\'s API: the record must be the agent\'s (another agent\'s or partner\'s is a 404). ' +
  'The change shows at once in the API\'s reads, and is undone by a reset.'

/** State controls (issue 11): move the partner's own records into states that are hard to reach. */
export default async function stateControl (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const accounts = fastify.repos.accountState
  const customers = fastify.repos.customers
  const common = { tags: ['sandbox state'], security: PARTNER_SECURITY, headers: AgentIdHeaders }
  const accountAnswer = { 200: ref(Account), ...errorResponses(400, 401, 403, 404, 409, 413, 415) }

  app.post('/accounts/:accountId/close', {
    schema: { ...common, operationId: 'closeAccount', summary: 'Close an account', description: `closedDate becomes the partner's today (its sandbox clock) or the closedDate given; closing a closed account changes nothing. ${NOTE}`, params: AccountIdPathParam, body: ref(CloseRequest), response: accountAnswer },
    config: { optionalBody: true }
  }, (request) => accounts.close(tenantOf(request), request.params.accountId, request.body?.closedDate))

  app.post('/accounts/:accountId/reopen', {
    schema: { ...common, operationId: 'reopenAccount', summary: 'Reopen a closed account', description: `closedDate goes away. ${NOTE}`, params: AccountIdPathParam, response: accountAnswer }
  }, (request) => accounts.reopen(tenantOf(request), request.params.accountId))

  app.put('/accounts/:accountId/balance', {
    schema: { ...common, operationId: 'setAccountBalance', summary: "Set an account's balance", description: `Any amount in ZAR with at most 2 fractional digits (negative allowed); a closed account is a 409. ${NOTE}`, params: AccountIdPathParam, body: ref(AmountRequest), response: accountAnswer }
  }, (request) => accounts.setBalance(tenantOf(request), request.params.accountId, request.body.amount))

  app.post('/accounts/:accountId/credit', {
    schema: { ...common, operationId: 'creditAccount', summary: 'Credit an account', description: `Money arrives: the balance grows by amount (> 0); a closed account is a 409. ${NOTE}`, params: AccountIdPathParam, body: ref(AmountRequest), response: accountAnswer }
  }, (request) => accounts.move(tenantOf(request), request.params.accountId, request.body.amount, 1))

  app.post('/accounts/:accountId/debit', {
    schema: { ...common, operationId: 'debitAccount', summary: 'Debit an account', description: `The balance shrinks by amount (> 0), below zero if need be; a closed account is a 409. ${NOTE}`, params: AccountIdPathParam, body: ref(AmountRequest), response: accountAnswer }
  }, (request) => accounts.move(tenantOf(request), request.params.accountId, request.body.amount, -1))

  app.put('/customers/:customerId/kyc', {
    schema: { ...common, operationId: 'setCustomerKyc', summary: "Set a customer's KYC status", description: `kycStatus of the default customer, or of otherCustomers[otherCustomer]. ${NOTE}`, params: CustomerIdPathParam, body: ref(KycRequest), response: { 200: ref(CustomerRecord), ...errorResponses(400, 401, 403, 404, 413, 415) } }
  }, (request) => customers.setKyc(tenantOf(request), request.params.customerId, request.body.kycStatus, request.body.otherCustomer))
}
