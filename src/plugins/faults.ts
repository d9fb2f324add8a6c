import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onSendHookHandler } from 'fastify'
import { errorBody } from '../errors.js'
import { FaultHolds, headerFault, injectedError, ruleFault, type AppliedFault } from '../faults/actions.js'
import { MAGIC_FIELDS, magicFault, magicLabel } from '../faults/magic.js'
import type { PickedRule } from '../faults/rules.js'
import type { SandboxStateRepo } from '../store/sandbox-state.js'
import { requestPath } from '../path-patterns.js'
import { partnerNow } from './auth.js'
import { pathOf } from '../path-patterns.js'
import { addRouteHook } from './route-hooks.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The fault this request gets, once decided (Sandbox-Fault-Applied says which and from where). */
    fault: AppliedFault | null
    /** A magic value noted in the body before validation; it applies only if the request gets that far. */
    magicFault: AppliedFault | null
  }
}

/**
 * Fault injection for the bank's API (issue 11, design.md "Testing what goes wrong"): one preHandler
 * step per route, after validation and the Agent-Id check, that picks at most one fault (the request's
 * headers, else a magic value of the body, else the partner's fault rules) and applies it before the
 * operation, or after it for `after`. When nothing is configured it costs two header lookups and, for a
 * partner with no rules, one length check.
 */
async function faults (fastify: FastifyInstance, opts: { rules: SandboxStateRepo, holdMs: number }): Promise<void> {
  const { rules, holdMs } = opts
  fastify.decorateRequest('fault', null)
  fastify.decorateRequest('magicFault', null)

  // requests held by latency and timeout faults: a stop must not wait for them
  const holds = new FaultHolds(holdMs)
  fastify.addHook('preClose', (done) => {
    holds.release()
    done()
  })

  /** The partner's fault rule for this request: null when none matches, else the rule that fired (or null) once counted. */
  const partnerRule = (request: FastifyRequest): PickedRule | null | Promise<PickedRule | null> => {
    const clientId = request.token?.clientId
    if (clientId === undefined) return null
    return rules.pick(clientId, () => ({
      method: request.method,
      path: requestPath(request),
      apiPath: pathOf(request.url),
      // (a new frozen object at every read)
      route: request.routeOptions.url,
      agentId: request.headers['agent-id'] as string | undefined
    }))
  }

  const apply = async (request: FastifyRequest, reply: FastifyReply, applied: AppliedFault): Promise<void> => {
    const { fault } = applied
    reply.header('sandbox-fault-applied', applied.label)
    if (fault.latencyMs !== undefined) await holds.wait(fault.latencyMs)
    if (fault.status !== undefined) throw injectedError(fault.status, applied)
    if (fault.reset || fault.timeout) {
      reply.hijack()
      await holds.drop(request, reply, applied)
    }
  }

  /**
   * A magic value in the route's field, noted before validation: a magic product code names no product,
   * so it leaves the body (an operation that runs anyway, with after, opens a call account).
   */
  const noteMagicFor = (field: string) => (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const body = request.body as Record<string, unknown> | undefined
    const fault = typeof body === 'object' && body !== null ? magicFault(body[field]) : undefined
    if (fault !== undefined) {
      request.magicFault = { fault, label: magicLabel(fault, field, String(body![field])), dropped: false }
      if (field === 'productCode') delete body!.productCode
    }
    done()
  }

  /** The request's fault, once validation and the Agent-Id check passed: its headers, else a magic value, else a rule. */
  const decide = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const settle = (applied: AppliedFault): void => {
      request.fault = applied
      if (applied.fault.after) return done()
      apply(request, reply, applied).then(() => done(), done)
    }
    let applied: AppliedFault | undefined
    let rule: PickedRule | null | Promise<PickedRule | null>
    try {
      applied = headerFault(request) ?? request.magicFault ?? undefined
      if (applied !== undefined) return settle(applied)
      rule = partnerRule(request)
    } catch (err) {
      return done(err as Error)
    }
    if (rule === null) return done()
    if (!(rule instanceof Promise)) return settle(ruleFault(rule))
    rule.then((picked) => picked === null ? done() : settle(ruleFault(picked)), done)
  }

  /** What an `after` fault does once the operation answered: the answer replaced, delayed or dropped. */
  const replaceAnswer = async (request: FastifyRequest, reply: FastifyReply, applied: AppliedFault, payload: unknown): Promise<unknown> => {
    const { fault } = applied
    reply.header('sandbox-fault-applied', applied.label)
    if (fault.latencyMs !== undefined) await holds.wait(fault.latencyMs)
    if (fault.reset || fault.timeout) {
      await holds.drop(request, reply, applied)
      return payload
    }
    if (fault.status === undefined) return payload
    const err = injectedError(fault.status, applied)
    reply.code(fault.status).headers(err.headers).header('x-sandbox-error', err.code).type('application/json; charset=utf-8')
    return JSON.stringify(errorBody(fault.status, err.message, requestPath(request), [], partnerNow(request)))
  }

  // a callback hook, not an async one: the answers without an `after` fault (nearly all) pay no promise
  const afterOperation: onSendHookHandler = (request, reply, payload, done) => {
    const applied = request.fault
    if (applied === null || !applied.fault.after) return done(null, payload)
    // what the operation answered, before the fault replaces it: the advisor tells a create that made its record (decorated by the journal)
    request.operationStatus = reply.statusCode
    replaceAnswer(request, reply, applied, payload).then((p) => done(null, p), done)
  }

  // one step per magic field: the HEAD route Fastify derives from a GET arrives with the GET's steps,
  // which must not be added twice
  const noteMagic = new Map(MAGIC_FIELDS.map((m) => [m.field, noteMagicFor(m.field)]))
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const field = MAGIC_FIELDS.find((m) => m.route === route.url && methods.includes(m.method))?.field
    if (field !== undefined) addRouteHook(route, 'preValidation', noteMagic.get(field)!)
    addRouteHook(route, 'preHandler', decide)
    const onSend = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend]
    if (!onSend.includes(afterOperation)) route.onSend = [...onSend, afterOperation]
  })
}

export default fp(faults, { name: 'sandbox-faults' })
