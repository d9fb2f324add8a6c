import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { BankPage } from '../../schemas/banks.js'
import { AgentIdHeaders, PagingQuery, errorResponses, ref } from '../../schemas/common.js'
import { LIST_NOTE, SECURED, staticPages } from './shared.js'

export default async function banks (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.reference

  app.get('/banks', {
    schema: {
      tags: ['banks'],
      operationId: 'listBanks',
      summary: 'List local banks',
      description: `spec 4.4: the banks available for transacting, with universal branch codes and SWIFT BICs (foreign: true marks South African branches of foreign banks). ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      querystring: PagingQuery,
      response: { 200: ref(BankPage), ...errorResponses(400, 401, 403, 406) }
    }
  }, staticPages('banks', repo.banks))
}
