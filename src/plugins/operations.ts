import type { IncomingMessage } from 'node:http'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import pino, { type Bindings, type ChildLoggerOptions, type LogFn } from 'pino'
import fp from 'fastify-plugin'
import { Type } from '@sinclair/typebox'
import { SandboxError } from '../errors.js'
import type { Tenant } from '../store/world.js'
import { EventLoopWatch } from './event-loop-watch.js'
import type { LogDestination } from './log-stream.js'
import { refuseConnect } from './socket-errors.js'
import { randomUuid } from '../uuids.js'
import { traceIdOf } from '../observe/trace-context.js'

export { clientError } from './socket-errors.js'

const RETRY_AFTER_SECONDS = 5
const SAMPLE_INTERVAL_MS = 1000
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** X-Request-Id: the client's when it is a sane token, else a new UUID. */
export function requestId (req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUuid()
}

// Query parameters that can carry credentials; logged as [REDACTED].
const SECRET_NAMES = '(?:access_token|refresh_token|id_token_hint|code|client_secret|password|token)'
const SECRET_PARAMS = new RegExp(`([?&]${SECRET_NAMES}=)[^&]*`, 'gi')
// only to test for one: a test allocates nothing, and most URLs have none
const HAS_SECRET_PARAM = new RegExp(`[?&]${SECRET_NAMES}=`, 'i')

/** The URL as it may appear in a log line. */
export function loggableUrl<T extends string | undefined> (url: T): T {
  // any object logged under "req" comes through here, not only requests: no url, nothing to mask
  // (a parameter needs its "=": most URLs are settled by that one character, without the regular expression)
  return (typeof url === 'string' && url.includes('=') && HAS_SECRET_PARAM.test(url) ? url.replace(SECRET_PARAMS, '$1[REDACTED]') : url) as T
}

/**
 * Paths in a logged object that may hold a secret: redacted by pino, whatever logs them. Nothing logs
 * headers or bodies (the serializers keep method, url and status); these are the second line of
 * defence. Explicit paths only: a wildcard path made pino's redaction cost ~13 us on every log line.
 */
export const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie',
  'password', 'client_secret', 'clientSecret', 'secret', 'token', 'access_token', 'refresh_token', 'adminToken',
  'body.password', 'body.client_secret', 'body.token', 'body.refresh_token'
]

/**
 * A request's child logger, made only when something logs through it: most requests never do (their
 * one line goes through the root logger with the request id), and making a pino child per request
 * was a visible share of a request's cost.
 */
class LazyChildLogger {
  #child: FastifyBaseLogger | undefined
  constructor (private readonly parent: FastifyBaseLogger, private readonly bindings: Bindings, private readonly options: ChildLoggerOptions) {}
  get #real (): FastifyBaseLogger { return (this.#child ??= this.parent.child(this.bindings, this.options)) }
  get level (): string { return this.#child?.level ?? this.parent.level }
  set level (level: string) { this.#real.level = level }
  fatal (...args: Parameters<LogFn>): void { this.#real.fatal(...args) }
  error (...args: Parameters<LogFn>): void { this.#real.error(...args) }
  warn (...args: Parameters<LogFn>): void { this.#real.warn(...args) }
  info (...args: Parameters<LogFn>): void { this.#real.info(...args) }
  debug (...args: Parameters<LogFn>): void { this.#real.debug(...args) }
  trace (...args: Parameters<LogFn>): void { this.#real.trace(...args) }
  silent (...args: Parameters<LogFn>): void { this.#real.silent(...args) }
  child (bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger { return this.#real.child(bindings, options) }
}

export function lazyChildLogger (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger
}

/** What the request line says, kept until the line is written. */
class RequestLine {
  constructor (readonly time: number, readonly id: string, readonly method: string, readonly url: string,
    readonly status: number, readonly ms: number, readonly tenant: Tenant | null, readonly traceId: string | null, readonly address: string) {}
}

class OverloadedError extends SandboxError {
  constructor () {
    super('SANDBOX_ERR_OVERLOADED', `The sandbox is overloaded; retry after ${RETRY_AFTER_SECONDS} seconds`, [], { 'retry-after': String(RETRY_AFTER_SECONDS) })
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * ready: false until the data are loaded, and again once a stop has begun. before: what /ready waits
     * for besides (parts loaded at their first use, such as the identity provider). checks: what must
     * answer for the replica to be ready (the shared store of replicas).
     */
    readiness: { ready: boolean, before: Array<() => Promise<unknown>>, checks: Array<() => Promise<boolean>> }
  }
}

/** What GET /ready answers (here and on the management port): loaded, not stopping, and every check passing. */
export async function isReady (readiness: FastifyInstance['readiness'] | undefined): Promise<boolean> {
  if (readiness === undefined || !readiness.ready) return false
  await Promise.all(readiness.before.map((load) => load()))
  return readiness.ready && (await Promise.all(readiness.checks.map((check) => check()))).every(Boolean)
}

const Health = Type.Object({ status: Type.String() })
const JSON_TYPE = 'application/json; charset=utf-8'
const UP = JSON.stringify({ status: 'UP' })
const OUT_OF_SERVICE = JSON.stringify({ status: 'OUT_OF_SERVICE' })

/**
 * Liveness and readiness, the request id on every response, one structured log line per request,
 * and 503 with Retry-After when the event loop falls behind.
 */
async function operations (fastify: FastifyInstance, opts: { maxEventLoopDelay: number }): Promise<void> {
  const readiness: FastifyInstance['readiness'] = { ready: false, before: [], checks: [] }
  const eventLoop = new EventLoopWatch(opts.maxEventLoopDelay, SAMPLE_INTERVAL_MS)
  fastify.decorate('readiness', readiness)
  fastify.server.on('connect', refuseConnect)
  fastify.addHook('onReady', async () => {
    readiness.ready = true
    // loading the data and making keys blocked the loop; that delay is in the first samples after the start
    eventLoop.countFrom(2 * SAMPLE_INTERVAL_MS)
  })
  fastify.addHook('preClose', async () => { readiness.ready = false })

  fastify.addHook('onRequest', (request, reply, done) => {
    // on the reply (answers written past Fastify copy it: headersToRaw)
    reply.header('x-request-id', request.id)
    // read once while the connection is open, Node keeps the peer's address on the socket: request.ip (the log
    // line, the journal) is read after the answer, when the client or a proxy may have closed it already
    // eslint-disable-next-line no-void -- read for its effect: Node caches the address
    void request.raw.socket?.remoteAddress
    // stopping: this is the connection's last answer, also when the identity provider writes it
    if (!readiness.ready) reply.header('connection', 'close')
    // HTTP/1.1 requires Host (RFC 9112 3.2); Node's own refusal of it has no body, so it is answered here
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.header('connection', 'close')
      done(new SandboxError('SANDBOX_ERR_MALFORMED_HTTP', 'The request has no Host header, which HTTP/1.1 requires'))
    } else {
      done(eventLoop.overloaded ? new OverloadedError() : undefined)
    }
  })
  fastify.addHook('onSend', (_request, reply, _payload, done) => {
    // stopping: the client must not send more on this connection, so that the stop is not held up
    if (!readiness.ready) reply.header('connection', 'close')
    done()
  })
  // The request line, the one log line of every request: written straight into the logger's stream in
  // pino's own format (level, time, pid, hostname, then the fields). Its fields hold no secret (the URL is
  // masked above), so it needs none of pino's per-line work; at LOG_LEVEL warn and above there is no hook at all.
  // The request keeps only the facts; the line is formatted when its batch is written (log-stream.ts).
  const log = fastify.log as FastifyBaseLogger & Record<symbol, unknown> & { isLevelEnabled?: (level: string) => boolean }
  const requestLines = log.isLevelEnabled?.('info') ?? true
  const stream = log[pino.symbols.streamSym] as Partial<LogDestination> & Pick<LogDestination, 'write'> | undefined
  const bindings = (log[pino.symbols.chindingsSym] as string | undefined) ?? ''
  if (requestLines && stream !== undefined) {
    const format = (r: RequestLine): string =>
      // the request id (a checked token or a UUID) and the method (a token, as Node's parser requires) need no escaping
      `{"level":30,"time":${r.time}${bindings},"reqId":"${r.id}","method":"${r.method}",` +
      `"url":${JSON.stringify(loggableUrl(r.url))},"statusCode":${r.status},"responseTime":${Math.round(r.ms * 10) / 10}` +
      // the client's address (request.ip: behind a proxy with SANDBOX_TRUST_PROXY, the one it forwarded)
      `,"remoteAddress":${JSON.stringify(r.address)}` +
      (r.tenant === null ? '' : `,"partner":${JSON.stringify(r.tenant.partnerId)},"agent":${JSON.stringify(r.tenant.agentId)}`) +
      // (32 hex digits: nothing to escape)
      (r.traceId === null ? '' : `,"trace_id":"${r.traceId}"`) +
      ',"msg":"request completed"}\n'
    const defer = stream.defer?.bind(stream) ?? ((f: typeof format, r: RequestLine) => stream.write(f(r)))
    fastify.addHook('onResponse', (request, reply, done) => {
      // (tenant is undefined, not null, on routes outside the token-checked scope)
      defer(format, new RequestLine(Date.now(), request.id, request.method, request.originalUrl, reply.statusCode, reply.elapsedTime, request.tenant ?? null, traceIdOf(request), request.ip))
      done()
    })
  }
  fastify.addHook('onClose', async () => {
    eventLoop.stop()
    stream?.flush?.()
  })

  // answered as ready-made JSON (the schemas document them): the first answer of a start compiles nothing
  fastify.get('/health', {
    schema: { hide: true, response: { 200: Health } },
    config: { public: true }
  }, async (_request, reply) => reply.type(JSON_TYPE).send(UP))

  fastify.get('/ready', {
    schema: { hide: true, response: { 200: Health, 503: Health } },
    config: { public: true }
  }, async (_request, reply) => {
    return await isReady(readiness) ? reply.type(JSON_TYPE).send(UP) : reply.code(503).type(JSON_TYPE).send(OUT_OF_SERVICE)
  })
}

export default fp(operations, { name: 'sandbox-operations' })
