import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type Provider from 'oidc-provider'
import { revokeTokens, tokenRefusal } from '../store/tokens.js'
import type { World } from '../store/world.js'
import { basicClient, confidentialClient } from './clients.js'
import { originAllowed } from './origins.js'
import { OIDC_PATH } from './realm.js'
import { TokenError, type AccessClaims, type TokenVerifier } from './verify.js'

type Form = Record<string, string | undefined>

// Keycloak's wording for a failed client authentication, at every endpoint
const CLIENT_AUTH_FAILED = 'Invalid client or Invalid client credentials'

/** RFC 6749 2.3.1: client_secret_basic or client_secret_post; the client id, or undefined. */
function authenticateClient (request: FastifyRequest, world: World): string | undefined {
  const header = request.headers.authorization
  // a Basic header decides (malformed or wrong: a failed client authentication, not a 500)
  if (header?.startsWith('Basic ') === true) return basicClient(header, world)
  const { client_id: id, client_secret: secret } = (request.body ?? {}) as Form
  return confidentialClient(world, id, secret)
}

function oauthError (reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  if (status === 401) reply.header('www-authenticate', `Basic realm="sandbox", error="${error}"`)
  return reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description })
}

/**
 * Userinfo, introspection and revocation for the provider's JWT access tokens (which oidc-provider
 * leaves out of these endpoints) and its refresh tokens, at Keycloak's paths. A revoked access token
 * is refused by the API at once, on every replica: its partner keeps it (store/tokens.ts).
 */
export default async function tokenEndpoints (fastify: FastifyInstance, opts: { provider: () => Promise<Provider>, world: World, verifier: TokenVerifier }): Promise<void> {
  const { world, verifier } = opts
  // the provider is loaded at its first use (auth/index.ts): these endpoints wait for it
  let provider: Provider
  fastify.addHook('onRequest', async () => { provider ??= await opts.provider() })
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 65536 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })

  /** The claims of an access token the API would accept now (its partner current, with its revocations), else undefined. */
  async function accessClaims (token: string | undefined): Promise<AccessClaims | undefined> {
    if (token === undefined || token === '') return undefined
    let claims: AccessClaims
    try {
      claims = await verifier.verify(token)
    } catch (err) {
      if (err instanceof TokenError) return undefined
      throw err
    }
    await world.sync(claims.clientId)
    return tokenRefusal(world.partner(claims.clientId), claims) === undefined ? claims : undefined
  }

  const userinfo = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store')
    const m = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '')
    const claims = await accessClaims(m?.[1] ?? ((request.body ?? {}) as Form).access_token)
    if (claims === undefined) {
      reply.header('www-authenticate', 'Bearer realm="sandbox", error="invalid_token", error_description="Token verification failed"')
      return reply.code(401).send({ error: 'invalid_token', error_description: 'Token verification failed' })
    }
    const p = claims.payload
    // Keycloak's userinfo CORS: the origins the token allows
    const origin = request.headers.origin
    const allowed = Array.isArray(p['allowed-origins']) ? p['allowed-origins'].map(String) : []
    if (origin !== undefined && originAllowed(allowed, origin)) reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true')
    const base = { sub: p.sub, preferred_username: p.preferred_username, agent_id: claims.agentIds }
    if (claims.username === undefined) return { ...base, email_verified: false }
    const [given, ...rest] = String(p.name ?? '').split(' ')
    return { ...base, name: p.name, given_name: given, family_name: rest.join(' '), email: p.email, email_verified: true }
  }
  fastify.get(`${OIDC_PATH}/userinfo`, userinfo)
  fastify.post(`${OIDC_PATH}/userinfo`, userinfo)
  fastify.options(`${OIDC_PATH}/userinfo`, async (request, reply) => {
    const origin = request.headers.origin
    if (origin !== undefined) {
      reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true')
        .header('access-control-allow-methods', 'GET, POST, OPTIONS').header('access-control-allow-headers', 'Authorization, Content-Type').header('access-control-max-age', '3600')
    }
    return reply.code(204).send()
  })

  /** Ends the grant of a refresh token, and with it every access token issued from it. */
  async function endGrant (rt: { grantId?: string, destroy: () => Promise<void> }): Promise<void> {
    await rt.destroy()
    const grant = rt.grantId === undefined ? undefined : await provider.Grant.find(rt.grantId)
    await grant?.destroy()
    if (rt.grantId !== undefined) await provider.AccessToken.adapter.revokeByGrantId(rt.grantId)
  }

  // Keycloak's back-channel logout: a confidential client ends a user's session with its refresh token.
  // (Browser logout is GET with id_token_hint, answered by the provider.)
  fastify.post(`${OIDC_PATH}/logout`, async (request, reply) => {
    const clientId = authenticateClient(request, world)
    if (clientId === undefined) return oauthError(reply, 401, 'invalid_client', CLIENT_AUTH_FAILED)
    const { refresh_token: token } = (request.body ?? {}) as Form
    if (token === undefined) return oauthError(reply, 400, 'invalid_request', 'No refresh token')
    const rt = await provider.RefreshToken.find(token, { ignoreExpiration: true })
    if (rt === undefined || rt.clientId !== clientId) return oauthError(reply, 400, 'invalid_grant', 'Invalid refresh token')
    await endGrant(rt)
    return reply.code(204).header('cache-control', 'no-store').send()
  })

  fastify.post(`${OIDC_PATH}/token/introspect`, async (request, reply) => {
    const clientId = authenticateClient(request, world)
    if (clientId === undefined) return oauthError(reply, 401, 'invalid_client', CLIENT_AUTH_FAILED)
    // token_type_hint is not used: a wrong hint must not stop the search (RFC 7009 2.1, RFC 7662 2.1)
    const { token } = (request.body ?? {}) as Form
    if (token === undefined) return oauthError(reply, 400, 'invalid_request', 'missing required parameter token')
    reply.header('cache-control', 'no-store')
    // a client learns about its own tokens only: another partner's token is simply inactive
    const claims = await accessClaims(token)
    if (claims !== undefined) {
      if (claims.clientId !== clientId) return { active: false }
      return { ...claims.payload, active: true, token_type: 'Bearer', username: claims.username ?? claims.payload.preferred_username }
    }
    const rt = await provider.RefreshToken.find(token)
    if (rt === undefined || rt.clientId !== clientId || rt.isExpired) return { active: false }
    return { active: true, token_type: 'Refresh', typ: 'Refresh', client_id: rt.clientId, sub: rt.accountId, scope: rt.scope, iat: rt.iat, exp: rt.exp, iss: provider.issuer }
  })

  fastify.post(`${OIDC_PATH}/revoke`, async (request, reply) => {
    const clientId = authenticateClient(request, world)
    if (clientId === undefined) return oauthError(reply, 401, 'invalid_client', CLIENT_AUTH_FAILED)
    // token_type_hint is not used: a wrong hint must not stop the search (RFC 7009 2.1, RFC 7662 2.1)
    const { token } = (request.body ?? {}) as Form
    if (token === undefined) return oauthError(reply, 400, 'invalid_request', 'missing required parameter token')
    const claims = await accessClaims(token)
    if (claims !== undefined && claims.clientId === clientId) {
      await revokeTokens(world, clientId, [{ jti: claims.jti, exp: claims.exp }])
    } else {
      const rt = await provider.RefreshToken.find(token)
      if (rt !== undefined && rt.clientId === clientId) await endGrant(rt)
    }
    // RFC 7009 2.2: 200 whether or not the token was valid
    return reply.code(200).header('cache-control', 'no-store').send()
  })
}
