import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import { SandboxError } from '../errors.js'
import type { CounterSubject, WindowCounter } from '../store/counters.js'
import { NO_METRICS, type Metrics } from '../instruments/recorder.js'

/** A 429 of the limiter, in the error shape; Retry-After and the RateLimit headers are set by the limiter. */
export class RateLimitedError extends SandboxError {
  constructor (who: string, max: number, seconds: number) {
    super('SANDBOX_ERR_RATE_LIMITED', `Too many requests: ${who} may make ${max} requests per second; retry after ${seconds} second${seconds === 1 ? '' : 's'}`)
  }
}

/** A refused request is never logged with a stack: capturing one was the largest share of a refusal's cost. */
function withoutStack<T> (make: () => T): T {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return make()
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** Whom a request counts against: the partner of its verified token, else (no token: spec 4.13) its address. */
export function rateLimitKey (request: FastifyRequest): CounterSubject {
  return request.token === null ? `ip:${request.ip}` : `partner:${request.token.clientId}`
}

/**
 * @fastify/rate-limit's store over shared counters (store/counters.ts: Redis, for every replica at once). Its
 * keys are rateLimitKey's subjects; a counter that cannot be read fails the request with the store's 503.
 */
function sharedStore (counter: WindowCounter): FastifyRateLimitStoreCtor {
  return class SharedStore implements FastifyRateLimitStore {
    incr (key: string, callback: (error: Error | null, result?: { current: number, ttl: number }) => void, timeWindow?: number): void {
      Promise.resolve(counter.hit(key as CounterSubject, 'requests', timeWindow ?? 1000))
        .then(({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }), (err: Error) => callback(err))
    }

    child (): FastifyRateLimitStore {
      return this
    }
  }
}

/**
 * Per-partner fair share for a hosted sandbox (SANDBOX_RATE_LIMIT requests per second): @fastify/rate-limit
 * in a fixed one-second window per partner, checked in onRequest right after the token (so a refused
 * request costs a token-cache lookup and a counter, never validation, a handler or a store). Counted in this
 * process (the limiter's own store), or by shared counters (`counter`: the replicas' Redis) so that N per
 * second holds for the partner across every replica. Register it in the scope of the token-checked routes,
 * after the auth hooks. Off (not registered) when the limit is 0.
 */
async function partnerRateLimit (fastify: FastifyInstance, opts: { perSecond: number, counter?: WindowCounter, metrics?: Metrics }): Promise<void> {
  const metrics = opts.metrics ?? NO_METRICS
  await fastify.register(rateLimit, {
    ...(opts.counter === undefined ? {} : { store: sharedStore(opts.counter) }),
    global: true,
    max: opts.perSecond,
    timeWindow: 1000,
    hook: 'onRequest',
    // draft-ietf-httpapi-ratelimit-headers: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (what gateways send)
    enableDraftSpec: true,
    keyGenerator: rateLimitKey,
    // one entry per partner (and per address without a token): far more than a sandbox has
    cache: 10000,
    errorResponseBuilder: (request, context) => {
      held.set(request, Math.min(MAX_HOLD_MS, context.ttl))
      metrics.rateLimited('api')
      return withoutStack(() => new RateLimitedError(
        request.token === null ? 'this address' : `partner '${request.token.clientId}'`, context.max, Math.max(1, Math.ceil(context.ttl / 1000))))
    }
  })
  // A refusal costs about what a small read costs (the HTTP work is the same), so refusing at once would let
  // a client that retries at once keep a core busy with refusals. Each refusal is answered when the partner's
  // window ends instead: a flood of N connections then costs at most N refusals per second.
  fastify.addHook('onSend', (request, _reply, payload, done) => {
    const ms = held.get(request)
    if (ms === undefined) return done(null, payload)
    setTimeout(done, ms, null, payload)
  })
}

const MAX_HOLD_MS = 1000
const held = new WeakMap<FastifyRequest, number>()

export default fp(partnerRateLimit, { name: 'sandbox-rate-limit' })
