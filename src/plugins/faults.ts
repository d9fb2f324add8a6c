import type { Socket } from 'node:net'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onSendHookHandler } from 'fastify'
import { SandboxError, errorBody, validationFailed, withStatus } from '../errors.js'
import { FaultSyntaxError, faultFromPrefer, formatFault, injectedErrorHeaders, parseFault, type Fault } from '../faults/fault.js'
import { MAGIC_FIELDS, magicFault, magicLabel } from '../faults/magic.js'
import type { PickedRule, SandboxStateRepo } from '../store/sandbox-state.js'
import { requestPath } from './errors.js'
import { partnerNow } from './auth.js'
import { journalDropped } from './journal.js'
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

export interface AppliedFault {
  fault: Fault
  /** The Sandbox-Fault-Applied value: the fault and its source. */
  label: string
  /** The connection was dropped without an answer (reset, timeout). */
  dropped: boolean
}

/** The injected error answer: Spring's body for the status, with the headers a real one carries. */
function injectedError (status: number, applied: AppliedFault): SandboxError {
  const headers = { 'sandbox-fault-applied': applied.label, ...injectedErrorHeaders(status) }
  return withStatus(new SandboxError('SANDBOX_ERR_FAULT_INJECTED', `Injected by the sandbox: ${applied.label}`, [], headers), status)
}

/** The fault a request asks for in its headers (Sandbox-Fault first, then Prism's Prefer: code=). */
function headerFault (request: FastifyRequest): AppliedFault | undefined {
  const header = request.headers['sandbox-fault']
  const name = header !== undefined ? 'Sandbox-Fault' : 'Prefer'
  const text = header ?? request.headers.prefer
  if (text === undefined) return undefined
  try {
    if (Array.isArray(text)) throw new FaultSyntaxError('was sent more than once; send one header with a comma-separated list')
    const fault = header !== undefined ? parseFault(text) : faultFromPrefer(text)
    if (fault === undefined) return undefined
    return { fault, label: `${formatFault(fault)}; source=${header !== undefined ? 'header' : 'prefer'}`, dropped: false }
  } catch (err) {
    if (!(err instanceof FaultSyntaxError)) throw err
    throw validationFailed('request', [{ field: name, rejectedValue: typeof text === 'string' ? text.slice(0, 200) : text, code: 'SandboxFault', defaultMessage: `${name} header ${err.message}` }])
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
  const waits = new Set<() => void>()
  const wait = async (ms: number): Promise<void> => await new Promise((resolve) => {
    const end = (): void => { clearTimeout(timer); waits.delete(end); resolve() }
    const timer = setTimeout(end, ms)
    waits.add(end)
  })
  fastify.addHook('preClose', (done) => {
    for (const end of [...waits]) end()
    done()
  })

  /** Ends a request without an answer: an RST at once (reset) or after holding it (timeout). */
  const drop = async (request: FastifyRequest, reply: FastifyReply, applied: AppliedFault): Promise<void> => {
    applied.dropped = true
    reply.raw.setHeader('sandbox-fault-applied', applied.label)
    const socket = request.raw.socket as Socket
    if (applied.fault.timeout) {
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
      await Promise.race([wait(holdMs), closed])
    }
    if (!socket.destroyed) socket.resetAndDestroy()
    // the partner's journal shows the request as dropped (status 0)
    journalDropped(request, reply)
    // the response never finishes: let the onResponse steps (the log line) see the request all the same
    reply.raw.emit('error', Object.assign(new Error('connection dropped by an injected fault'), { code: 'SANDBOX_FAULT_DROPPED' }))
  }

  /** The partner's fault rule for this request: null when none matches, else the rule that fired (or null) once counted. */
  const partnerRule = (request: FastifyRequest): PickedRule | null | Promise<PickedRule | null> => {
    const clientId = request.token?.clientId
    if (clientId === undefined) return null
    return rules.pick(clientId, {
      method: request.method,
      path: requestPath(request),
      apiPath: pathOf(request.url),
      route: request.routeOptions.url,
      agentId: request.headers['agent-id'] as string | undefined
    })
  }

  const ruleFault = (rule: PickedRule): AppliedFault =>
    ({ fault: parseFault(rule.fault), label: `${rule.fault}; source=rule; rule=${rule.id}`, dropped: false })

  const apply = async (request: FastifyRequest, reply: FastifyReply, applied: AppliedFault): Promise<void> => {
    const { fault } = applied
    reply.header('sandbox-fault-applied', applied.label)
    if (fault.latencyMs !== undefined) await wait(fault.latencyMs)
    if (fault.status !== undefined) throw injectedError(fault.status, applied)
    if (fault.reset || fault.timeout) {
      reply.hijack()
      await drop(request, reply, applied)
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
    if (fault.latencyMs !== undefined) await wait(fault.latencyMs)
    if (fault.reset || fault.timeout) {
      await drop(request, reply, applied)
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
