import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { tenantOf } from '../../plugins/auth.js'
import { AgentIdHeaders, PagingQuery, errorResponses, ref } from '../../schemas/common.js'
import { CustomerIdParams } from '../../schemas/customers.js'
import { CustomerMessage, CustomerMessageRequest, MessagePage } from '../../schemas/messages.js'
import { pageReply } from '../../store/paging.js'
import { LIST_NOTE, SECURED } from './shared.js'

export default async function messages (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.messages

  app.post('/customers/:customerId/messages', {
    schema: {
      tags: ['messages'],
      operationId: 'createMessage',
      summary: 'Send a message to a customer',
      description: "spec 4.12: a message to one of the agent's customers; the answer adds id and dateCreated (local South African time, no zone).",
      security: SECURED,
      headers: AgentIdHeaders,
      params: CustomerIdParams,
      body: ref(CustomerMessageRequest),
      response: { 200: ref(CustomerMessage), ...errorResponses(400, 401, 403, 404, 406, 413, 415) }
    },
    config: { objectName: 'customerMessage' }
  }, (request) => repo.create(tenantOf(request), request.params.customerId, request.body))

  app.get('/customers/:customerId/messages', {
    schema: {
      tags: ['messages'],
      operationId: 'listMessages',
      summary: "List a customer's messages",
      description: `spec 4.12: the messages of one of the agent's customers, oldest first. ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      params: CustomerIdParams,
      querystring: PagingQuery,
      response: { 200: ref(MessagePage), ...errorResponses(400, 401, 403, 404, 406) }
    }
  }, (request) => pageReply('messages', repo.list(tenantOf(request), request.params.customerId, request.query)))
}
