import type { RouteOptions } from 'fastify'
import { SandboxError } from '../errors.js'
import { addRouteHook, type RouteHook } from './route-hooks.js'

// Jackson's default limit (StreamReadConstraints): deeper documents are refused, never recursed into
export const MAX_NESTING_DEPTH = 1000

/**
 * The value with every null-valued object property removed, at any depth (array elements are kept).
 * Returns the value itself when it holds no null property, so the usual body costs no copy. A value
 * nested deeper than Jackson allows is refused here, before validation or serialisation recurse into it.
 */
export function withoutNulls (value: unknown, depth = 0): unknown {
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
  // for-in, not Object.entries: every body passes here, and the usual one should allocate nothing
  const object = value as Record<string, unknown>
  let out: Record<string, unknown> | undefined
  for (const k in object) {
    if (!Object.hasOwn(object, k)) continue
    const v = object[k]
    const w = v === null ? undefined : withoutNulls(v, depth + 1)
    if (out === undefined && w !== v) {
      out = {}
      for (const k2 in object) {
        if (k2 === k) break
        if (Object.hasOwn(object, k2)) out[k2] = object[k2]
      }
    }
    if (out !== undefined && w !== undefined) out[k] = w
  }
  return out ?? value
}

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

/**
 * For an onRoute hook: a route with a body schema reads its body as Jackson would (nulls absent, at most
 * 1000 levels deep). The bank's API and the control API share it, so both refuse the same bodies.
 */
export function readBodyLikeJackson (route: RouteOptions): void {
  if (route.schema?.body !== undefined) addRouteHook(route, 'preValidation', dropNulls)
}
