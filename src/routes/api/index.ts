import type { FastifyInstance } from 'fastify'
import { SandboxError } from '../../errors.js'
import faults from '../../plugins/faults.js'
import { readBodyLikeJackson } from '../../plugins/json-body.js'
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
export default async function api (fastify: FastifyInstance, opts: { faultHoldMs: number }): Promise<void> {
  // spec 1: request bodies are application/json; anything else is a 415, as in Spring
  fastify.removeContentTypeParser('text/plain')
  // spec 1: responses are application/json; a client that accepts none of it gets Spring's 406
  fastify.addHook('onRequest', (request, _reply, done) => {
    const accept = request.headers.accept
    done(accept === undefined || accept === '*/*' || acceptsJson(accept) ? undefined : new SandboxError('SANDBOX_ERR_NOT_ACCEPTABLE', 'No acceptable representation: the API answers application/json'))
  })
  fastify.addHook('onRoute', readBodyLikeJackson)
  // issue 11: Sandbox-Fault, Prefer: code=, magic values and the partner's fault rules, on every operation
  await fastify.register(faults, { rules: fastify.repos.sandboxState, holdMs: opts.faultHoldMs })
  for (const routes of [accounts, publicAccounts, banks, beneficiaries, customers, guarantees, investmentTypes, messages, products]) {
    await fastify.register(routes)
  }
}

/** Whether an Accept header admits application/json (media ranges with q=0 are refusals). */
export function acceptsJson (accept: string): boolean {
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase())
    if (params.some((p) => /^q=0(\.0*)?$/.test(p))) continue
    if (type === '*/*' || type === 'application/*' || type === 'application/json' || type.endsWith('+json')) return true
  }
  return false
}
