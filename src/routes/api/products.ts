import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { AgentIdHeaders, PagingQuery, errorResponses, ref } from '../../schemas/common.js'
import { Product, ProductPage, ProductParams } from '../../schemas/products.js'
import { LIST_NOTE, SECURED, staticPages } from './shared.js'

const ASSUMED = 'spec 4.16 says an operation retrieves the products of the logged-in agent but shows no path or payload: ' +
  'the path, the parameters and the fields other than productCode are the sandbox\'s assumption.'

export default async function products (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.reference

  app.get('/products', {
    schema: {
      tags: ['products'],
      operationId: 'listProducts',
      summary: 'List the products offered to the agent',
      description: `${ASSUMED} The productCode of POST /api/accounts must be one of these. ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      querystring: PagingQuery,
      response: { 200: ref(ProductPage), ...errorResponses(400, 401, 403, 406) }
    }
  }, staticPages('products', repo.products))

  app.get('/products/:productCode', {
    schema: {
      tags: ['products'],
      operationId: 'getProduct',
      summary: 'Read one product',
      description: ASSUMED,
      security: SECURED,
      headers: AgentIdHeaders,
      params: ProductParams,
      response: { 200: ref(Product), ...errorResponses(400, 401, 403, 404, 406) }
    }
  }, (request) => repo.product(request.params.productCode))
}
