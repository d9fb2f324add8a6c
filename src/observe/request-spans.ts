import { readFileSync } from 'node:fs'
import type { Span, TracerProvider } from '@opentelemetry/api'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { REALM_PATH, ROUTES } from '../auth/realm.js'
import { PACKAGE_JSON } from '../files.js'
import { pathOf } from '../path-patterns.js'
import { NO_END, type Spans } from '../instruments/spans.js'
import { DEFAULT_SERVICE_NAME, type Tracing, type TracingSettings } from './tracing.js'

/*
 * The request spans, over OpenTelemetry loaded at the first use (otel.ts, a chunk of its own; this module is the
 * server's and uses OpenTelemetry's values only through what that chunk hands it). @fastify/otel starts one
 * SERVER span per request in its onRequest step (continuing the trace of an incoming traceparent, through the
 * registered propagator) and ends it once the answer is handed over (onSend), or in onResponse for answers
 * written past Fastify (the identity provider's) and for 404s. The sandbox adds what a partner looks for
 * (docs/observability.md, "Traces"): the span named and `http.route` written as the journal writes routes,
 * `sandbox.partner`, `sandbox.fault`, and the trace id the journal and the log line name. Hook and handler
 * spans are off: a span per hook would cost every request more than the sandbox's own work, and the child
 * spans that matter are the rooms' own (Spans).
 */

type Otel = typeof import('./otel.js')

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span (set when it starts); null where tracing is off for the route. */
    serverSpan: Span | null
  }
}

const VERSION = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version
const TOKEN_PATH = `${REALM_PATH}${ROUTES.token}`
// load balancers' probes (not worth a trace each every few seconds), and the journal's live tail (open for as long
// as its client watches: its answer is never over, and a client that leaves ends no step that would end a span)
const UNTRACED = new Set(['/health', '/ready', '/__sandbox/requests/stream'])

/** The route as the journal and the API documents write it (/api/customers/{customerId}); the token endpoint by its path. */
function routeOf (request: FastifyRequest): string | undefined {
  const url = request.routeOptions.url
  if (url === undefined) return undefined
  if (url.endsWith('*') && pathOf(request.url) === TOKEN_PATH) return TOKEN_PATH
  return url.includes(':') ? url.replace(/:(\w+)/g, '{$1}') : url
}

/** What is known once the answer is decided: whose request it was, and the fault injected, if any. */
function annotate (request: FastifyRequest, reply: FastifyReply): void {
  const span = request.serverSpan
  if (span === null || !span.isRecording()) return
  // (token is not there on routes outside the token-checked scope; tokenPartner is the token endpoint's)
  const partner = request.token?.clientId ?? request.tokenPartner
  if (partner !== undefined && partner !== null) span.setAttribute('sandbox.partner', partner)
  const fault = reply.getHeader('sandbox-fault-applied') ?? reply.raw.getHeader('sandbox-fault-applied')
  if (fault !== undefined) span.setAttribute('sandbox.fault', String(fault))
}

type OnSend = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => void
type OnError = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply, error: FastifyError, done: () => void) => void

/** The hook @fastify/otel's onRoute step appended last (known by its name), replaced by what wrap makes of it. */
function wrapLast<T extends (...args: never[]) => unknown> (hooks: T | T[] | undefined, name: string, wrap: (hook: T) => T): T | T[] | undefined {
  const list = hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]
  const last = list.at(-1)
  if (last === undefined || last.name !== name) return hooks
  return [...list.slice(0, -1), wrap(last)]
}

/** The Fastify plugin of a sandbox's tracing: registered first, so that every request's span starts before any other step. */
function requestSpans (otel: Otel, provider: TracerProvider, close: () => Promise<void>): (fastify: FastifyInstance) => Promise<void> {
  const { context, SpanStatusCode, trace, TraceFlags } = otel

  /** Named as HTTP server spans are ("GET /api/banks"); the trace the request is filed under, decided once. */
  const started = (span: Span, request: FastifyRequest): void => {
    const route = routeOf(request)
    // the path as the client sent it (before version rewriting), without its query (which may hold a token)
    span.setAttribute('url.path', pathOf(request.originalUrl))
    if (route === undefined) span.updateName(request.method)
    else {
      span.updateName(`${request.method} ${route}`)
      span.setAttribute('http.route', route)
    }
    request.serverSpan = span
    // the partner's trace, continued from its traceparent (its trace id, the header's second field), or the
    // sandbox's own when its span is exported (an unsampled one leads nowhere)
    const own = span.spanContext()
    const sent = request.headers.traceparent
    const continued = typeof sent === 'string' && sent.slice(3, 35) === own.traceId
    request.traceId = continued || (own.traceFlags & TraceFlags.SAMPLED) !== 0 ? own.traceId : null
  }

  return async (fastify) => {
    const instrumentation = new otel.FastifyOtelInstrumentation({
      instrumentHooks: false,
      instrumentHandler: false,
      ignorePaths: ({ url }) => UNTRACED.has(pathOf(url)),
      requestHook: started
    })
    instrumentation.setTracerProvider(provider)
    fastify.decorateRequest('serverSpan', null)
    fastify.decorateRequest('traceId', null)
    // before @fastify/otel's onResponse step, which ends the span of an answer written past Fastify
    fastify.addHook('onResponse', (request, reply, done) => {
      annotate(request, reply)
      const span = request.serverSpan
      // a connection closed before any answer (an injected reset or timeout, or the client gone): no status code
      if (span !== null && span.isRecording() && !reply.raw.headersSent) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection was closed without an answer' })
        span.end()
      }
      done()
    })
    // @fastify/otel wraps a not-found handler in a span of its own whatever instrumentHandler says: not the sandbox's
    const setNotFoundHandler = fastify.setNotFoundHandler
    await fastify.register(instrumentation.plugin())
    fastify.setNotFoundHandler = setNotFoundHandler
    // after @fastify/otel's own onRoute step, which appends its two route hooks last
    fastify.addHook('onRoute', (route: RouteOptions) => {
      // the span ends in the last onSend step: annotated just before, once every fault has applied
      route.onSend = wrapLast(route.onSend as OnSend | OnSend[] | undefined, 'finalizeResponseSpanHook', (finalize) => function (request, reply, payload, done) {
        annotate(request, reply)
        finalize.call(this, request, reply, payload, done)
      }) as RouteOptions['onSend']
      // OpenTelemetry's HTTP conventions: a server span's status is an error for a 5xx only; a 4xx is the client's
      route.onError = wrapLast(route.onError as OnError | OnError[] | undefined, 'recordErrorInSpanHook', (record) => function (request, reply, error, done) {
        if ((error.statusCode ?? 500) >= 500) record.call(this, request, reply, error, done)
        else done()
      }) as RouteOptions['onError']
    })
    // a request with a body reaches validation from the body's last read, outside the request's context: back
    // into it, so that the handler's child spans (a store round, a data dir write) are the request's
    fastify.addHook('preValidation', (request, _reply, done) => {
      const span = request.serverSpan
      if (span === null) return done()
      context.with(trace.setSpan(context.active(), span), done)
    })
    // the spans still pending are exported before the process may exit (server.ts exits once the app is closed)
    fastify.addHook('onClose', close)
  }
}

/** Child spans of the active span (the request's); none outside a request. */
function childSpans (otel: Otel, provider: TracerProvider): Spans {
  const { context, SpanStatusCode, trace } = otel
  const tracer = provider.getTracer(DEFAULT_SERVICE_NAME, VERSION)
  return {
    span (name, attributes) {
      const parent = context.active()
      if (trace.getSpan(parent) === undefined) return NO_END
      const span = tracer.startSpan(name, { attributes }, parent)
      return (error) => {
        if (error !== undefined) {
          span.recordException(error instanceof Error ? error : String(error))
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
        }
        span.end()
      }
    }
  }
}

function sandboxTracing (otel: Otel, provider: TracerProvider, close: () => Promise<void>): Tracing {
  return {
    plugin: fp(requestSpans(otel, provider, close), { name: 'sandbox-tracing' }),
    spans: childSpans(otel, provider),
    close
  }
}

/** The command's tracing: the SDK started as the settings say, its tracer provider registered for the process. */
export async function startTracing (settings: TracingSettings): Promise<Tracing> {
  const otel = await import('./otel.js')
  const sdk = otel.startSdk(settings, { name: DEFAULT_SERVICE_NAME, version: VERSION })
  return sandboxTracing(otel, sdk.provider, sdk.shutdown)
}

// where the OpenTelemetry API (1.x) keeps what a process registered with it (its internal/global-utils.ts)
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1')

/**
 * For a sandbox started in-process (the library): tracing over the tracer provider, context manager and
 * propagator the host registered with the OpenTelemetry API, or undefined when it registered none (then
 * nothing of OpenTelemetry is loaded). The sandbox never starts an SDK there: the process is the host's.
 */
export async function hostTracing (): Promise<Tracing | undefined> {
  const registered = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[API_GLOBAL]?.trace
  if (registered === undefined) return undefined
  const otel = await import('./otel.js')
  return sandboxTracing(otel, otel.hostProvider(), async () => {})
}
