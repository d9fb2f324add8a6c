import type { FastifyInstance } from 'fastify'
import { SandboxError } from '../../errors.js'
import faults from '../../plugins/faults.js'
import { addRouteHook, type RouteHook } from '../../plugins/route-hooks.js'
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
  // Jackson binds a JSON null as null, which Bean Validation treats as absent (@NotNull fails, other rules pass);
  // ajv's type coercion would turn it into "" (or 0, false) instead, so nulls are dropped before validation
  const dropNulls: RouteHook = (request, _reply, done) => {
    try {
      request.body = withoutNulls(request.body)
      done()
    } catch (err) {
      done(err as Error)
    }
  }
  fastify.addHook('onRoute', (route) => { if (route.schema?.body !== undefined) addRouteHook(route, 'preValidation', dropNulls) })
  // issue 11: Sandbox-Fault, Prefer: code=, magic values and the partner's fault rules, on every operation
  await fastify.register(faults, { world: fastify.world, holdMs: opts.faultHoldMs })
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

// Jackson's default limit (StreamReadConstraints): deeper documents are refused, never recursed into
const MAX_NESTING_DEPTH = 1000

/**
 * The value with every null-valued object property removed, at any depth (array elements are kept).
 * Returns the value itself when it holds no null property, so the usual body costs no copy.
 */
function withoutNulls (value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (depth >= MAX_NESTING_DEPTH) {
    throw new SandboxError('SANDBOX_ERR_MALFORMED_JSON', `JSON parse error: document nesting depth exceeds the maximum allowed (${MAX_NESTING_DEPTH})`)
  }
  if (Array.isArray(value)) {
    let changed = false
    const out = value.map((v) => {
      const w = withoutNulls(v, depth + 1)
      changed ||= w !== v
      return w
    })
    return changed ? out : value
  }
  let out: Record<string, unknown> | undefined
  for (const [k, v] of Object.entries(value)) {
    const w = v === null ? undefined : withoutNulls(v, depth + 1)
    if (out === undefined && w !== v) {
      out = {}
      for (const [k2, v2] of Object.entries(value)) {
        if (k2 === k) break
        out[k2] = v2
      }
    }
    if (out !== undefined && w !== undefined) out[k] = w
  }
  return out ?? value
}
