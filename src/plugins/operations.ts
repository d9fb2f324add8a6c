import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import { Type } from '@sinclair/typebox'
import { SandboxError } from '../errors.js'

const RETRY_AFTER_SECONDS = 5
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** X-Request-Id: the client's when it is a sane token, else a new UUID. */
export function requestId (req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
}

// Query parameters that can carry credentials; logged as [REDACTED].
const SECRET_PARAMS = /([?&](?:access_token|refresh_token|id_token_hint|code|client_secret|password|token)=)[^&]*/gi

/** The URL as it may appear in a log line. */
export function loggableUrl (url: string): string {
  return url.replace(SECRET_PARAMS, '$1[REDACTED]')
}

/** Paths in any logged object that may hold a secret: redacted by pino, whatever logs them. */
export const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie',
  'password', '*.password', 'client_secret', '*.client_secret', 'clientSecret', '*.clientSecret',
  'secret', '*.secret', 'token', '*.token', 'access_token', '*.access_token', 'refresh_token', '*.refresh_token', 'adminToken', '*.adminToken'
]

class OverloadedError extends SandboxError {
  constructor () {
    super('SANDBOX_ERR_OVERLOADED', `The sandbox is overloaded; retry after ${RETRY_AFTER_SECONDS} seconds`)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** False until the data and the provider are loaded, and again once a stop has begun. */
    readiness: { ready: boolean }
  }
}

const Health = Type.Object({ status: Type.String() })

/**
 * Liveness and readiness, the request id on every response, one structured log line per request,
 * and 503 with Retry-After when the event loop falls behind.
 */
async function operations (fastify: FastifyInstance, opts: { maxEventLoopDelay: number }): Promise<void> {
  const readiness = { ready: false }
  fastify.decorate('readiness', readiness)
  fastify.addHook('onReady', async () => { readiness.ready = true })
  fastify.addHook('preClose', async () => { readiness.ready = false })

  fastify.addHook('onRequest', (request, reply, done) => {
    // on the raw response, so that responses written by the identity provider carry it too
    reply.raw.setHeader('x-request-id', request.id)
    done()
  })
  fastify.addHook('onResponse', (request, reply, done) => {
    const tenant = request.tenant ?? undefined
    request.log.info({
      method: request.method,
      url: loggableUrl(request.originalUrl),
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      partner: tenant?.partnerId,
      agent: tenant?.agentId
    }, 'request completed')
    done()
  })

  await fastify.register(underPressure, {
    maxEventLoopDelay: opts.maxEventLoopDelay,
    retryAfter: RETRY_AFTER_SECONDS,
    customError: OverloadedError as unknown as new () => Error
  })

  fastify.get('/health', {
    schema: { hide: true, response: { 200: Health } },
    config: { public: true }
  }, async () => ({ status: 'UP' }))

  fastify.get('/ready', {
    schema: { hide: true, response: { 200: Health, 503: Health } },
    config: { public: true }
  }, async (_request, reply) => readiness.ready ? { status: 'UP' } : reply.code(503).send({ status: 'OUT_OF_SERVICE' }))
}

export default fp(operations, { name: 'sandbox-operations' })
