import { hash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Lockout } from '../auth/lockout.js'
import { checkOperatorToken } from '../auth/operator-guard.js'
import { sameSecret } from '../auth/same-secret.js'
import { SandboxError } from '../errors.js'
import { SESSION_TTL_MS, type ConsoleSessions } from '../store/console-sessions.js'
import { consolePage, sessionCookie } from './console.js'
import { adminDisabled } from './sandbox/shared.js'

/*
 * The operator's console (/console/operator, issue 45): the partners at a glance for a bank's integration team,
 * signed in with the operator token (SANDBOX_ADMIN_TOKEN). Its session is the partner console's kind of session
 * (a random id in an HttpOnly, SameSite=Strict cookie, a CSRF value for calls that change state) kept apart: its
 * own cookie, its own store, its own keys in Redis. It stands in for the operator token on the operator endpoints
 * only (routes/sandbox/admin.ts asks operatorSession()); a partner's console session never reaches them, and an
 * operator's session is never a partner's. A session remembers a fingerprint of the token it was opened with: a new
 * SANDBOX_ADMIN_TOKEN ends every session opened with the old one.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD'])

const fingerprint = (token: string): string => hash('sha256', `sandbox operator session\u0000${token}`, 'base64url')

const notSignedIn = (): SandboxError => new SandboxError('SANDBOX_ERR_ADMIN_TOKEN', 'Not signed in to the operator console')

/** The live operator session of a request's cookie, opened with the current operator token; else undefined. */
async function sessionOf (sessions: ConsoleSessions, adminToken: string, request: FastifyRequest): Promise<{ id: string, csrf: string } | undefined> {
  const found = await sessions.of(request)
  if (found === undefined || !sameSecret(found.session.partnerId, fingerprint(adminToken))) return undefined
  return { id: found.id, csrf: found.session.csrf }
}

/**
 * Whether a request to an operator endpoint is made with an operator console session (no Authorization header,
 * the session's cookie); one that changes state must also carry the session's X-Console-Csrf value.
 */
export function operatorSession (sessions: ConsoleSessions, adminToken: string | undefined): (request: FastifyRequest) => Promise<boolean> {
  return async (request) => {
    if (adminToken === undefined || request.headers.authorization !== undefined) return false
    const found = await sessionOf(sessions, adminToken, request)
    if (found === undefined) return false
    if (!SAFE_METHODS.has(request.method) && !sameSecret(found.csrf, request.headers['x-console-csrf'])) {
      throw new SandboxError('SANDBOX_ERR_ADMIN_TOKEN', 'An operator console call that changes state needs the X-Console-Csrf header of its session')
    }
    return true
  }
}

const SignIn = Type.Object({ token: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false })

/** `operatorGuard`: wrong operator tokens per source address, shared with the operator endpoints (auth/operator-guard.ts). */
export default async function operatorConsole (fastify: FastifyInstance, opts: { sessions: ConsoleSessions, adminToken?: string, publicUrl: string, operatorGuard: Lockout }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { sessions, adminToken } = opts
  const hidden = { schema: { hide: true }, config: { public: true, journal: false } }
  const cookie = (request: FastifyRequest, value: string, maxAge: number): string => sessionCookie(request, opts.publicUrl, sessions.cookie, value, maxAge)

  const sendPage = consolePage('operator.html')
  app.get('/console/operator', hidden, sendPage)
  app.get('/console/operator/', hidden, sendPage)

  app.post('/console/operator/session', { ...hidden, schema: { hide: true, body: SignIn } }, async (request, reply) => {
    if (adminToken === undefined) throw adminDisabled()
    await checkOperatorToken(opts.operatorGuard, request, adminToken, request.body.token, () => new SandboxError('SANDBOX_ERR_ADMIN_TOKEN', 'Wrong operator token'))
    const { id, session } = await sessions.create(fingerprint(adminToken))
    reply.header('set-cookie', cookie(request, id, SESSION_TTL_MS / 1000)).header('cache-control', 'no-store')
    return { csrfToken: session.csrf }
  })

  app.get('/console/operator/session', hidden, async (request, reply) => {
    if (adminToken === undefined) throw adminDisabled()
    const found = await sessionOf(sessions, adminToken, request)
    if (found === undefined) throw notSignedIn()
    reply.header('cache-control', 'no-store')
    return { csrfToken: found.csrf }
  })

  app.delete('/console/operator/session', hidden, async (request, reply) => {
    const found = await sessions.of(request)
    if (found !== undefined) await sessions.end(found.id)
    return await reply.code(204).header('set-cookie', cookie(request, '', 0)).send()
  })
}
