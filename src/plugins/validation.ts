import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { addRouteHook } from './route-hooks.js'
import fp from 'fastify-plugin'
import { validationFailed, type FieldError } from '../errors.js'
import type { Reference } from '../seed/fixtures.js'

/** Rules beyond the schema of a route's body (rules/*.ts), declared in the route's config. */
export type BodyRules = (body: unknown, ref: Reference) => FieldError[]

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Spec field rules JSON Schema cannot express; run after the schema and reported the same way. */
    rules?: BodyRules
    /** Name of the validated object in Spring's message ("Validation failed for object='...'"). */
    objectName?: string
  }
}

/** Runs a route's body rules once its schema passed (a schema failure merges them in plugins/errors.ts). */
async function validationPlugin (fastify: FastifyInstance, opts: { reference: Reference }): Promise<void> {
  fastify.addHook('onRoute', (route) => {
    const rules = route.config?.rules
    if (rules === undefined) return
    const objectName = route.config?.objectName ?? 'request'
    addRouteHook(route, 'preHandler', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const errors = rules(request.body, opts.reference)
      done(errors.length > 0 ? validationFailed(objectName, errors) : undefined)
    })
  })
}

export default fp(validationPlugin, { name: 'sandbox-validation' })
