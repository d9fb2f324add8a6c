import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { tenantOf } from '../../plugins/auth.js'
import { accountRules } from '../../rules/accounts.js'
import { Account, AccountCreateRequest, AccountIdParams, AccountListQuery, AccountPage } from '../../schemas/accounts.js'
import { AgentIdHeaders, errorResponses, ref } from '../../schemas/common.js'
import { pageReply } from '../../store/paging.js'
import { LIST_NOTE, SECURED } from './shared.js'

export default async function accounts (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.accounts

  app.get('/accounts', {
    schema: {
      tags: ['accounts'],
      operationId: 'listAccounts',
      summary: "List the agent's accounts",
      description: `spec 4.2: accounts of the agent; with customerId, the accounts that customer holds (an id that is not the agent's customer gives an empty page). ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      querystring: AccountListQuery,
      response: { 200: ref(AccountPage), ...errorResponses(400, 401, 403, 406) }
    }
  }, (request) => pageReply('accounts', repo.list(tenantOf(request), request.query, request.query.customerId)))

  app.get('/accounts/:accountId', {
    schema: {
      tags: ['accounts'],
      operationId: 'getAccount',
      summary: 'Read one account',
      description: 'spec 4.1: the account with this id, if it belongs to the agent (else 404).',
      security: SECURED,
      headers: AgentIdHeaders,
      params: AccountIdParams,
      response: { 200: ref(Account), ...errorResponses(400, 401, 403, 404, 406) }
    }
  }, (request) => repo.findById(tenantOf(request), request.params.accountId))

  app.post('/accounts', {
    schema: {
      tags: ['accounts'],
      operationId: 'createAccount',
      summary: 'Open an account for a customer',
      description: "spec 4.3: opens an account for one of the agent's customers, with productCode's product (GET /api/products) " +
        'or a call account when productCode is absent. openedDate is today (South African time), the balance 0.00 ZAR, the customer the holder. Answers 200 with the account (spec 7).',
      security: SECURED,
      headers: AgentIdHeaders,
      body: ref(AccountCreateRequest),
      response: { 200: ref(Account), ...errorResponses(400, 401, 403, 406, 413, 415) }
    },
    config: { rules: accountRules, objectName: 'accountCreateRequest' }
  }, (request) => repo.create(tenantOf(request), request.body))
}
