import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { AgentIdHeaders, PagingQuery, errorResponses, ref } from '../../schemas/common.js'
import { InvestmentTypePage } from '../../schemas/investment-types.js'
import { LIST_NOTE, SECURED, staticPages } from './shared.js'

export default async function investmentTypes (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.reference

  app.get('/investment-types', {
    schema: {
      tags: ['investment types'],
      operationId: 'listInvestmentTypes',
      summary: 'List investment types',
      description: `spec 4.14: the investment types a Party's investmentTypeId may name; ITF (id 1) is the default. ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      querystring: PagingQuery,
      response: { 200: ref(InvestmentTypePage), ...errorResponses(400, 401, 403, 406) }
    }
  }, staticPages('investmentTypes', repo.investmentTypes))
}
