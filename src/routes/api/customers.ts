import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { tenantOf } from '../../plugins/auth.js'
import { customerRules } from '../../rules/customers.js'
import { AgentIdHeaders, PagingQuery, errorResponses, ref } from '../../schemas/common.js'
import { CustomerCreateRequest, CustomerIdParams, CustomerPage, CustomerRecord } from '../../schemas/customers.js'
import { pageReply } from '../../store/paging.js'
import { LIST_NOTE, SECURED } from './shared.js'

export default async function customers (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.customers

  app.post('/customers', {
    schema: {
      tags: ['customers'],
      operationId: 'createCustomer',
      summary: 'Create a customer record',
      description: 'spec 4.8: creates a customer record of the agent from a default customer (and other customers), with a call account whose number ' +
        'becomes defaultAccountNumber (unless the deprecated createCallAccount is false). Identifying numbers are checked by entity type: South African ' +
        'ID number (date and Luhn digit) for individuals, registration number YYYY/NNNNNN/NN for CC, Pty and Ltd.',
      security: SECURED,
      headers: AgentIdHeaders,
      body: ref(CustomerCreateRequest),
      response: { 200: ref(CustomerRecord), ...errorResponses(400, 401, 403, 406, 413, 415) }
    },
    config: { rules: customerRules, objectName: 'customerRequest' }
  }, (request) => repo.create(tenantOf(request), request.body))

  app.get('/customers', {
    schema: {
      tags: ['customers'],
      operationId: 'listCustomers',
      summary: "List the agent's customers",
      description: `spec 4.10: the agent's customer records, oldest first. ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      querystring: PagingQuery,
      response: { 200: ref(CustomerPage), ...errorResponses(400, 401, 403, 406) }
    }
  }, (request) => pageReply('customers', repo.list(tenantOf(request), request.query)))

  app.get('/customers/:customerId', {
    schema: {
      tags: ['customers'],
      operationId: 'getCustomer',
      summary: 'Read one customer record',
      description: "spec 4.9: the customer record, if it is the agent's (else 404).",
      security: SECURED,
      headers: AgentIdHeaders,
      params: CustomerIdParams,
      response: { 200: ref(CustomerRecord), ...errorResponses(400, 401, 403, 404, 406) }
    }
  }, (request) => repo.findById(tenantOf(request), request.params.customerId))

  app.get('/users/current/customers', {
    schema: {
      tags: ['customers'],
      operationId: 'listCurrentUserCustomers',
      summary: 'List the customers linked to the current user',
      description: "spec 4.11: the customers linked to the token's user (a test user signed in through the authorization code or password grant), " +
        `among the customers of the Agent-Id's agent. A client-credentials token has no user: the page is empty (the sandbox's decision). ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      querystring: PagingQuery,
      response: { 200: ref(CustomerPage), ...errorResponses(400, 401, 403, 406) }
    }
  }, (request) => pageReply('customers', repo.listOfUser(tenantOf(request), request.query)))
}
