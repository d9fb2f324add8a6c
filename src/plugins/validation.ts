import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify'
import { partnerNow } from './auth.js'
import { addRouteHook, type RouteHook } from './route-hooks.js'
import fp from 'fastify-plugin'
import { SandboxError, validationFailed, type FieldError } from '../errors.js'
import { springIntegerText, typeMismatch } from '../schemas/validation.js'
import type { Reference } from '../schemas/reference.js'

/**
 * Rules beyond the schema of a route's body (rules/*.ts), declared in the route's config. `now` is the
 * partner's clock (a company registered "in the future" is judged by the partner's today).
 */
export type BodyRules = (body: unknown, ref: Reference, now: number) => FieldError[]

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Spec field rules JSON Schema cannot express; run after the schema and reported the same way. */
    rules?: BodyRules
    /** Name of the validated object in Spring's message ("Validation failed for object='...'"). */
    objectName?: string
  }
}

/**
 * Integer query parameters read the way Spring reads them, before the schema sees them: ajv's coercion
 * alone would take 1.0 and 1e3 (Spring answers 400) and refuse an empty value or a repeated parameter
 * (Spring applies the default, or takes the first value). Hex (0x10) and a sign are Spring's too.
 */
function integerQueryHook (names: string[]): RouteHook {
  return (request, _reply, done) => {
    const query = request.query as Record<string, unknown>
    for (const name of names) {
      let raw = query[name]
      if (raw === undefined) continue
      if (Array.isArray(raw)) raw = raw[0]
      const text = typeof raw === 'string' ? springIntegerText(raw) : undefined
      if (text === undefined) {
        const error = typeMismatch(name, raw, 'integer')
        return done(new SandboxError('SANDBOX_ERR_VALIDATION', `${name}: ${error.defaultMessage}`, [error]))
      }
      if (text === '') delete query[name]
      else query[name] = text
    }
    done()
  }
}

/** One hook per set of names: a GET and the HEAD route Fastify derives from it share it (added once). */
const integerQueryHooks = new Map<string, RouteHook>()

function integerQueryNames (route: RouteOptions): string[] {
  const properties = (route.schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {}
  return Object.keys(properties).filter((name) => properties[name].type === 'integer')
}

/**
 * Runs a route's body rules once its schema passed (a schema failure merges them in plugins/errors.ts),
 * and reads its integer query parameters as Spring does.
 */
async function validationPlugin (fastify: FastifyInstance, opts: { reference: Reference }): Promise<void> {
  fastify.addHook('onRoute', (route) => {
    const integers = integerQueryNames(route)
    if (integers.length > 0) {
      const key = integers.join(',')
      if (!integerQueryHooks.has(key)) integerQueryHooks.set(key, integerQueryHook(integers))
      addRouteHook(route, 'preValidation', integerQueryHooks.get(key)!)
    }
    const rules = route.config?.rules
    if (rules === undefined) return
    const objectName = route.config?.objectName ?? 'request'
    addRouteHook(route, 'preHandler', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const errors = rules(request.body, opts.reference, partnerNow(request))
      done(errors.length > 0 ? validationFailed(objectName, errors) : undefined)
    })
  })
}

export default fp(validationPlugin, { name: 'sandbox-validation' })
