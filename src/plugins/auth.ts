import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'
import { SandboxError } from '../errors.js'
import { addRouteHook } from './route-hooks.js'
import { TokenError, type AccessClaims, type TokenVerifier } from '../auth/verify.js'
import { tokenRefusal } from '../store/tokens.js'
import type { Tenant, World } from '../store/world.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** spec 4.13: the route needs no token and no Agent-Id. */
    public?: boolean
    /** A sandbox control route: token needed, Agent-Id not (the partner acts, not one agent). */
    partnerOnly?: boolean
  }
  interface FastifyRequest {
    token: AccessClaims | null
    tenant: Tenant | null
  }
}

const CHALLENGE = 'Bearer realm="sandbox"'

function invalidToken (reason: string): SandboxError {
  return new SandboxError('SANDBOX_ERR_TOKEN_INVALID', `Invalid access token: ${reason}`, [], {
    'www-authenticate': `${CHALLENGE}, error="invalid_token", error_description="${reason.replace(/"/g, "'")}"`
  })
}

/** The bearer token of the Authorization header (RFC 6750 2.1), or an error saying what is wrong. */
function bearer (header: string | undefined): string {
  if (header === undefined || header === '') {
    throw new SandboxError('SANDBOX_ERR_TOKEN_MISSING', 'Full authentication is required to access this resource: send Authorization: Bearer <access token>', [], { 'www-authenticate': CHALLENGE })
  }
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)
  if (m === null) throw invalidToken('the Authorization header must be "Bearer <access token>"')
  return m[1]
}

/** "Bearer <t>" exactly as clients send it, without the regular expression: only a lookup key for the cache. */
function plainBearer (header: string | undefined): string | undefined {
  return header !== undefined && header.startsWith('Bearer ') && header.indexOf(' ', 7) === -1 ? header.slice(7) : undefined
}

/**
 * The resource-server side of spec 5, for the routes of the context it is registered in:
 * onRequest verifies the bearer token (401), preHandler binds the Agent-Id to it (403) once the
 * schema has checked the header is there (400). Routes flagged public get neither, partnerOnly
 * routes no Agent-Id binding: the hooks are attached per route as it is registered.
 */
async function authPlugin (fastify: FastifyInstance, opts: { verifier: TokenVerifier, world: World, session?: (request: FastifyRequest) => AccessClaims | undefined | Promise<AccessClaims | undefined> }): Promise<void> {
  const { verifier, world, session } = opts
  fastify.decorateRequest('token', null)
  fastify.decorateRequest('tenant', null)

  // the partner decides last: it may be gone, or have revoked the token (on any replica: the partner is current)
  const accept = (request: FastifyRequest, claims: AccessClaims, done: HookHandlerDoneFunction): void => {
    const refused = tokenRefusal(world.partner(claims.clientId), claims)
    if (refused !== undefined) return done(invalidToken(refused))
    request.token = claims
    done()
  }

  /** A verified token's partner, brought up to date first (with replicas: every change made anywhere before). */
  const admit = (request: FastifyRequest, claims: AccessClaims, done: HookHandlerDoneFunction): void => {
    const pending = world.sync(claims.clientId)
    if (pending === null) return accept(request, claims, done)
    pending.then(() => accept(request, claims, done), done)
  }

  const verify = (request: FastifyRequest, header: string | undefined, done: HookHandlerDoneFunction): void => {
    let token: string
    try {
      token = bearer(header)
    } catch (err) {
      return done(err as Error)
    }
    verifier.verify(token).then((claims) => admit(request, claims, done), (err: unknown) => done(err instanceof TokenError ? invalidToken(err.reason) : err as Error))
  }

  const authenticate = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const header = request.headers.authorization
    // the hot path: a token verified before and still valid (no promise in a sandbox of one process)
    const plain = plainBearer(header)
    const known = plain === undefined ? undefined : verifier.cached(plain)
    if (known !== undefined) return admit(request, known, done)
    // the partner console: a session cookie in place of a token, on the control API only
    if (header === undefined && session !== undefined && request.routeOptions.config.consoleSession === true) {
      let found: AccessClaims | undefined | Promise<AccessClaims | undefined>
      try {
        found = session(request)
      } catch (err) {
        return done(err as Error)
      }
      if (found instanceof Promise) {
        found.then((claims) => claims === undefined ? verify(request, header, done) : admit(request, claims, done), done)
        return
      }
      if (found !== undefined) return admit(request, found, done)
    }
    verify(request, header, done)
  }

  /**
   * spec 4.13's public routes need no token and refuse none; a valid one still says whose request it is
   * (issue 29: the partner's journal, rate limit and fault rules count the read). Any other is ignored.
   */
  const identify = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const header = request.headers.authorization
    if (header === undefined) return done()
    const admitted: HookHandlerDoneFunction = () => done()
    const plain = plainBearer(header)
    const known = plain === undefined ? undefined : verifier.cached(plain)
    if (known !== undefined) return admit(request, known, admitted)
    let token: string
    try {
      token = bearer(header)
    } catch {
      return done()
    }
    verifier.verify(token).then((claims) => admit(request, claims, admitted), () => done())
  }

  const bindAgent = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const claims = request.token
    if (claims === null) return done()
    const agentId = request.headers['agent-id'] as string
    const partner = world.partner(claims.clientId)
    // a user acts for its own agents; a client for every agent its partner has now (fresh agents included)
    const bound = claims.username !== undefined ? claims.agentIds.includes(agentId) : partner?.agents.has(agentId) === true
    if (!bound) {
      return done(new SandboxError('SANDBOX_ERR_AGENT_FORBIDDEN',
        `Agent-Id '${agentId}' is not bound to ${claims.username !== undefined ? `user '${claims.username}'` : `client '${claims.clientId}'`}`))
    }
    request.tenant = { partnerId: claims.clientId, agentId, userId: claims.username }
    done()
  }

  fastify.addHook('onRoute', (route) => {
    if (route.config?.public === true) return addRouteHook(route, 'onRequest', identify)
    addRouteHook(route, 'onRequest', authenticate)
    if (route.config?.partnerOnly !== true) addRouteHook(route, 'preHandler', bindAgent)
  })
}

export default fp(authPlugin, { name: 'sandbox-auth' })

/**
 * Now on the clock of the request's partner (issue 11: error timestamps and the "today" of validation rules
 * follow it), else real time. Reads the verified token, so it works before the Agent-Id is bound.
 */
export function partnerNow (request: FastifyRequest): number {
  const clientId = request.token?.clientId
  return (clientId === undefined ? undefined : request.server.world.partner(clientId)?.now()) ?? Date.now()
}

/** The tenant of a request that passed the auth hooks (routes use it right away). */
export function tenantOf (request: FastifyRequest): Tenant {
  if (request.tenant === null) throw new SandboxError('SANDBOX_ERR_INTERNAL', 'Internal Server Error')
  return request.tenant
}
