import type { FastifyInstance } from 'fastify'
import accounts from './accounts.js'
import banks from './banks.js'
import beneficiaries from './beneficiaries.js'
import customers from './customers.js'
import guarantees from './guarantees.js'
import investmentTypes from './investment-types.js'
import messages from './messages.js'
import products from './products.js'
import publicAccounts from './public-accounts.js'

/** spec 4: every operation, one module per resource (mounted at /api; versions reach it by URL rewriting). */
export default async function api (fastify: FastifyInstance): Promise<void> {
  // spec 1: request bodies are application/json; anything else is a 415, as in Spring
  fastify.removeContentTypeParser('text/plain')
  for (const routes of [accounts, publicAccounts, banks, beneficiaries, customers, guarantees, investmentTypes, messages, products]) {
    await fastify.register(routes)
  }
}
