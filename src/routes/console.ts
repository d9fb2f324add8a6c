import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { clientKey, type Lockout } from '../auth/lockout.js'
import { sameSecret } from '../auth/same-secret.js'
import type { AccessClaims } from '../auth/verify.js'
import { SandboxError } from '../errors.js'
import { SESSION_COOKIE, SESSION_TTL_MS, type ConsoleSessions, type Session } from '../store/console-sessions.js'
import { clientSecretAccepted } from '../store/partner-credentials.js'
import type { World } from '../store/world.js'
import { PACKAGE_JSON, ROOT } from '../files.js'
import { staticFiles, type StaticFile } from '../static-files.js'

/*
 * The partner console (/console): static files of console/ and the UI library it uses, served from the
 * sandbox itself (no CDN), and its sign-in. A session is a random id in an HttpOnly, SameSite=Strict cookie
 * (Secure behind https) naming a partner in memory here; the control API accepts it in place of a token
 * (plugins/auth.ts asks sessionClaims()), and calls that change state must also carry the session's
 * X-Console-Csrf value, which only the console's own page can read.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A console session may stand in for a token (the control API under /__sandbox). */
    consoleSession?: boolean
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD'])

/**
 * The console page's Content-Security-Policy: scripts, styles and calls from the sandbox itself only, no
 * inline script, no eval, no plugin, no framing; an injected script tag or a foreign source is refused by
 * the browser. No 'unsafe-eval': the page uses Alpine's CSP build, which reads the x-* expressions with its
 * own parser instead of compiling them with Function(). Pico's icons are data: SVGs.
 */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join('; ')

const require = createRequire(PACKAGE_JSON)
const CONSOLE_DIR = new URL('console/', ROOT)

/** A page of console/ as the console serves it: never cached, under the console's policy. */
export function consolePage (file: string): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  const page = readFileSync(new URL(file, CONSOLE_DIR))
  return async (_request, reply) =>
    await reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').header('content-security-policy', CONSOLE_CSP).send(page)
}

/** A session cookie of the console: HttpOnly, SameSite=Strict, Secure behind https; an empty value with maxAge 0 ends it. */
export function sessionCookie (request: FastifyRequest, publicUrl: string, name: string, value: string, maxAge: number): string {
  const secure = request.protocol === 'https' || publicUrl.startsWith('https:') ? '; Secure' : ''
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`
}

/** Every file the console page loads: its own, then the library's (read at its first request). */
const FILES: Record<string, StaticFile> = {
  'console.css': { type: 'text/css; charset=utf-8', path: fileURLToPath(new URL('console.css', CONSOLE_DIR)) },
  'console.js': { type: 'application/javascript; charset=utf-8', path: fileURLToPath(new URL('console.js', CONSOLE_DIR)) },
  'operator.js': { type: 'application/javascript; charset=utf-8', path: fileURLToPath(new URL('operator.js', CONSOLE_DIR)) },
  'alpine.js': { type: 'application/javascript; charset=utf-8', path: require.resolve('@alpinejs/csp/dist/cdn.min.js') },
  'pico.css': { type: 'text/css; charset=utf-8', path: require.resolve('@picocss/pico/css/pico.min.css') }
}

/**
 * The claims a console session stands for on a control route (no Authorization header), or undefined when
 * the request has no live session; a state-changing call without the session's CSRF value is refused.
 */
export function sessionClaims (sessions: ConsoleSessions, request: FastifyRequest): AccessClaims | undefined | Promise<AccessClaims | undefined> {
  const claimsOf = (found: { id: string, session: Session } | undefined): AccessClaims | undefined => {
    if (found === undefined) return undefined
    if (!SAFE_METHODS.has(request.method) && !sameSecret(found.session.csrf, request.headers['x-console-csrf'])) {
      throw new SandboxError('SANDBOX_ERR_TOKEN_INVALID', 'A console session call that changes state needs the X-Console-Csrf header of its session')
    }
    // the console's own calls (its polling, its buttons) are not what the partner's code sent
    request.unjournaled = true
    // (a session stands for a token issued now: no token cut-off of the partner ends it)
    return { jti: found.id, iat: Math.floor(Date.now() / 1000), exp: Math.floor(found.session.expires / 1000), clientId: found.session.partnerId, agentIds: [], scope: 'console', payload: {} }
  }
  const found = sessions.of(request)
  return found instanceof Promise ? found.then(claimsOf) : claimsOf(found)
}

const SignIn = Type.Object({
  clientId: Type.String({ minLength: 1, maxLength: 128 }),
  clientSecret: Type.String({ minLength: 1, maxLength: 256 })
}, { additionalProperties: false })

/** `lockout`: the token endpoint's (auth/lockout.ts): a client's wrong secrets count the same here and there. */
export default async function consoleRoutes (fastify: FastifyInstance, opts: { sessions: ConsoleSessions, world: World, publicUrl: string, lockout: Lockout }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { sessions, world } = opts
  const sendFile = staticFiles(FILES, 'no-cache')
  const hidden = { schema: { hide: true }, config: { public: true, journal: false } }
  const cookie = (request: FastifyRequest, value: string, maxAge: number): string => sessionCookie(request, opts.publicUrl, SESSION_COOKIE, value, maxAge)
  const who = (partnerId: string, csrf: string) => ({ partnerId, name: world.partner(partnerId)?.name ?? partnerId, csrfToken: csrf })

  const sendPage = consolePage('index.html')
  app.get('/console', hidden, sendPage)
  app.get('/console/', hidden, sendPage)
  app.get('/console/static/:file', hidden, async (request, reply) => await sendFile((request.params as { file: string }).file, request, reply))

  app.post('/console/session', { ...hidden, schema: { hide: true, body: SignIn } }, async (request, reply) => {
    // (findClient: an id nobody has costs one lookup and is not remembered)
    const found = await world.findClient(request.body.clientId)
    const partner = found === request.body.clientId ? world.partner(found) : undefined
    // a locked client is answered as a wrong secret, its secret not even compared (as at the token endpoint)
    const verdict = partner === undefined ? 'wrong' : await opts.lockout.attempt(clientKey(partner.id), () => clientSecretAccepted(world.secrets, partner, request.body.clientSecret))
    if (partner === undefined || verdict !== 'ok') {
      throw new SandboxError('SANDBOX_ERR_TOKEN_INVALID', 'Unknown client id or wrong client secret')
    }
    // (told only to whoever has the secret)
    if (partner.suspended) throw new SandboxError('SANDBOX_ERR_TOKEN_INVALID', `Client ${partner.id} is suspended by the sandbox's operator`)
    const { id, session } = await sessions.create(partner.id)
    reply.header('set-cookie', cookie(request, id, SESSION_TTL_MS / 1000)).header('cache-control', 'no-store')
    return who(partner.id, session.csrf)
  })

  app.get('/console/session', hidden, async (request, reply) => {
    const found = await sessions.of(request)
    if (found === undefined) throw new SandboxError('SANDBOX_ERR_TOKEN_MISSING', 'Not signed in to the console')
    await world.sync(found.session.partnerId)
    reply.header('cache-control', 'no-store')
    return who(found.session.partnerId, found.session.csrf)
  })

  app.delete('/console/session', hidden, async (request, reply) => {
    const found = await sessions.of(request)
    if (found !== undefined) await sessions.end(found.id)
    return await reply.code(204).header('set-cookie', cookie(request, '', 0)).send()
  })
}
