import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { AgentIdHeaders, errorResponses, ref } from '../../schemas/common.js'
import { PublicAccountPage, PublicAccountQuery } from '../../schemas/public-accounts.js'
import { pageReply } from '../../store/paging.js'
import { LIST_NOTE, SECURED } from './shared.js'

export default async function publicAccounts (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.reference

  app.get('/accounts/public', {
    schema: {
      tags: ['public accounts'],
      operationId: 'listPublicAccounts',
      summary: 'List accounts of public entities',
      description: `spec 4.15: accounts of South African public entities that payments can be made to; with name, only the account of that name (case-insensitive). ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      querystring: PublicAccountQuery,
      response: { 200: ref(PublicAccountPage), ...errorResponses(400, 401, 403, 406) }
    }
  }, (request) => pageReply('publicAccounts', repo.publicAccounts(request.query, request.query.name)))
}
