import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { basicCredentials, confidentialClient } from './clients.js'
import { SandboxError, errorBody } from '../errors.js'
import { pathOf, requestPath } from '../path-patterns.js'
import type { SandboxStateRepo } from '../store/sandbox-state.js'
import type { World } from '../store/world.js'
import { FaultHolds, headerFault, injectedError, ruleFault, type AppliedFault } from '../faults/actions.js'

/*
 * Faults at the token endpoint (issue 29): a Sandbox-Fault header, or a fault rule whose path or route matches
 * POST .../protocol/openid-connect/token, applies to the token requests of the partner's own clients only
 * (another partner's tokens keep working), so that a partner can see its client survive an outage of the
 * identity provider. The requester is the client of a right Basic header or client_secret_post form, or a
 * public client of the partner; for a form the body is read here first and handed on to the provider as it
 * came (providerRequest).
 * `after` faults let the provider answer, then replace, delay or drop its answer.
 */

// the provider's own limit of a token request's body (oidc-provider's selective_body)
const FORM_LIMIT = 56 * 1024

const BODY = Symbol('sandbox.tokenRequestBody')

type ReadRequest = IncomingMessage & { [BODY]?: Buffer }

/**
 * The request the provider reads: for a request whose form was read here, one that reads that form again
 * (oidc-provider reads a body with iterator(); everything else, headers, socket and URL, is the request's own),
 * else the request itself.
 */
export function providerRequest (req: IncomingMessage): IncomingMessage {
  const body = (req as ReadRequest)[BODY]
  if (body === undefined) return req
  const again = Readable.from([body])
  return Object.create(req, {
    readable: { value: true },
    readableEncoding: { value: null },
    iterator: { value: again.iterator.bind(again) },
    [Symbol.asyncIterator]: { value: again[Symbol.asyncIterator].bind(again) }
  }) as IncomingMessage
}

async function readForm (request: FastifyRequest): Promise<URLSearchParams> {
  const raw = request.raw as ReadRequest
  const body = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const fail = (err: Error): void => { raw.off('data', take); raw.off('end', done); raw.off('error', fail); reject(err) }
    const take = (chunk: Buffer): void => {
      size += chunk.length
      if (size > FORM_LIMIT) {
        raw.pause()
        fail(new SandboxError('SANDBOX_ERR_BODY_TOO_LARGE', `A token request's body may have at most ${FORM_LIMIT} bytes`))
      } else chunks.push(chunk)
    }
    const done = (): void => { raw.off('data', take); raw.off('error', fail); resolve(Buffer.concat(chunks, size)) }
    raw.on('data', take)
    raw.once('end', done)
    raw.once('error', fail)
  })
  raw[BODY] = body
  return new URLSearchParams(body.toString('utf8'))
}

const isForm = (request: FastifyRequest): boolean => request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded') === true

/** What a token request's fault step decided: go on to the provider (with a fault to apply to its answer), or the request is dropped. */
export type TokenFaultOutcome = { proceed: true, after?: AppliedFault } | { proceed: false }

export class TokenEndpointFaults {
  readonly holds: FaultHolds

  constructor (private readonly world: World, private readonly rules: SandboxStateRepo, holdMs: number, private readonly tokenPath: string) {
    this.holds = new FaultHolds(holdMs)
  }

  /** The partner a token request is made for: its client authenticated (Basic or form), or one of its public clients; else undefined. */
  async requester (request: FastifyRequest): Promise<string | undefined> {
    let credentials: { id?: string, secret?: string } | undefined = basicCredentials(request.headers.authorization)
    if (credentials === undefined && isForm(request)) {
      const form = await readForm(request)
      credentials = { id: form.get('client_id') ?? undefined, secret: form.get('client_secret') ?? undefined }
    }
    const id = credentials?.id
    if (id === undefined) return undefined
    const partnerId = await this.world.findClient(id)
    if (partnerId === undefined) return undefined
    if (partnerId !== id) return credentials?.secret === undefined ? partnerId : undefined
    return confidentialClient(this.world, id, credentials?.secret)
  }

  /**
   * The fault step of a token request (before the provider reads it): finds its partner (request.tokenPartner,
   * for the journal too), then the fault its headers or its partner's rules give, and applies it. A status is
   * thrown as the injected error; reset and timeout drop the connection.
   */
  async apply (request: FastifyRequest, reply: FastifyReply): Promise<TokenFaultOutcome> {
    let applied: AppliedFault | undefined
    try {
      const partnerId = await this.requester(request)
      if (partnerId === undefined) return { proceed: true }
      request.tokenPartner = partnerId
      applied = headerFault(request)
      if (applied === undefined) {
        const rule = await this.rules.pick(partnerId, () => ({ method: request.method, path: requestPath(request), apiPath: pathOf(request.url), route: this.tokenPath, agentId: undefined, token: true }))
        if (rule !== null) applied = ruleFault(rule)
      }
    } catch (err) {
      // the shared store is unreachable: no fault can be looked up; the provider meets the same outage and
      // answers it in OAuth's shape (503 temporarily_unavailable, Retry-After: auth/provider.ts)
      if (err instanceof SandboxError && err.code === 'SANDBOX_ERR_STORE_UNAVAILABLE') return { proceed: true }
      throw err
    }
    if (applied === undefined) return { proceed: true }
    const { fault } = applied
    reply.header('sandbox-fault-applied', applied.label)
    if (fault.after) return { proceed: true, after: applied }
    if (fault.latencyMs !== undefined) await this.holds.wait(fault.latencyMs)
    if (fault.status !== undefined) throw injectedError(fault.status, applied)
    if (fault.reset || fault.timeout) {
      reply.hijack()
      await this.holds.drop(request, reply, applied)
      return { proceed: false }
    }
    return { proceed: true }
  }

  /** An `after` fault: the provider's answer, once it writes it, is replaced by the fault's status, delayed, or dropped (the tokens never reach the client). */
  afterAnswer (request: FastifyRequest, reply: FastifyReply, applied: AppliedFault): void {
    const raw = reply.raw
    const end = raw.end.bind(raw) as (...args: unknown[]) => typeof raw
    raw.end = ((...args: unknown[]) => {
      this.replace(request, reply, applied, end, args).catch(() => { if (!raw.destroyed) raw.destroy() })
      return raw
    }) as typeof raw.end
  }

  private async replace (request: FastifyRequest, reply: FastifyReply, applied: AppliedFault, end: (...args: unknown[]) => unknown, args: unknown[]): Promise<void> {
    const { fault } = applied
    const raw = reply.raw
    raw.setHeader('sandbox-fault-applied', applied.label)
    if (fault.latencyMs !== undefined) await this.holds.wait(fault.latencyMs)
    if (fault.reset || fault.timeout) return await this.holds.drop(request, reply, applied)
    if (fault.status === undefined) {
      end(...args)
      return
    }
    const err = injectedError(fault.status, applied)
    raw.statusCode = fault.status
    raw.removeHeader('content-length')
    for (const [name, value] of Object.entries(err.headers)) raw.setHeader(name, value)
    raw.setHeader('x-sandbox-error', err.code)
    raw.setHeader('content-type', 'application/json; charset=utf-8')
    end(JSON.stringify(errorBody(fault.status, err.message, requestPath(request))))
  }
}
