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
  // Jackson binds a JSON null as null, which Bean Validation treats as absent (@NotNull fails, other rules pass);
  // ajv's type coercion would turn it into "" (or 0, false) instead, so nulls are dropped before validation
  fastify.addHook('preValidation', (request, _reply, done) => {
    request.body = withoutNulls(request.body)
    done()
  })
  for (const routes of [accounts, publicAccounts, banks, beneficiaries, customers, guarantees, investmentTypes, messages, products]) {
    await fastify.register(routes)
  }
}

/** The value with every null-valued object property removed, at any depth (array elements are kept). */
function withoutNulls (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v)
  return out
}
