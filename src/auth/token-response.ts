import type Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import { refreshExpired } from '../store/tokens.js'
import type { World } from '../store/world.js'
import type { Metrics } from '../instruments/recorder.js'
import { ownerOf } from './clients.js'
import { keycloakScope, sessionId, type KeycloakTokens } from './keycloak-tokens.js'
import { clientKey, type Lockout } from './lockout.js'
import { ROUTES } from './realm.js'

type Body = Record<string, unknown>
interface StoredRefreshToken { grantId?: string, iat?: number, exp?: number, accountId?: string, clientId?: string, scope?: string }
type FindRefreshToken = (value: string, opts?: { ignoreExpiration?: boolean }) => Promise<StoredRefreshToken | undefined>

/**
 * Keycloak's wording and status for the token endpoint's errors (Keycloak 26 TokenEndpoint and grant
 * types). [grant, error, the provider's description or detail] -> [status, error, Keycloak's description]. A wrong
 * client secret stays invalid_client as RFC 6749 5.2 says (Keycloak answers unauthorized_client there).
 */
const ERRORS: Array<[string, string, RegExp, number, string, string]> = [
  ['*', 'invalid_client', /./, 401, 'invalid_client', 'Invalid client or Invalid client credentials'],
  // a suspended partner: Keycloak's answer for a disabled client (its client authentication fails with CLIENT_DISABLED)
  ['*', 'unauthorized_client', /client disabled/, 401, 'unauthorized_client', 'Invalid client or Invalid client credentials'],
  ['password', 'invalid_grant', /./, 401, 'invalid_grant', 'Invalid user credentials'],
  ['refresh_token', 'invalid_grant', /expired/, 400, 'invalid_grant', 'Token is not active'],
  ['refresh_token', 'invalid_grant', /grant not found|session/, 400, 'invalid_grant', 'Session not active'],
  ['refresh_token', 'invalid_grant', /./, 400, 'invalid_grant', 'Invalid refresh token'],
  ['authorization_code', 'invalid_grant', /PKCE/, 400, 'invalid_grant', 'PKCE verification failed: Code mismatch'],
  ['authorization_code', 'invalid_grant', /redirect_uri/, 400, 'invalid_grant', 'Incorrect redirect_uri'],
  ['authorization_code', 'invalid_grant', /code is expired/, 400, 'invalid_grant', 'Code is expired'],
  ['authorization_code', 'invalid_grant', /./, 400, 'invalid_grant', 'Code not valid'],
  ['*', 'unsupported_grant_type', /./, 400, 'unsupported_grant_type', 'Unsupported grant_type'],
  // only the public clients of browser apps lack grants: no direct access, no service account
  ['password', 'invalid_request', /grant type is not allowed/, 400, 'unauthorized_client', 'Client not allowed for direct access grants'],
  ['client_credentials', 'invalid_request', /grant type is not allowed/, 401, 'unauthorized_client', 'Public client not allowed to retrieve service account'],
  ['*', 'invalid_request', /grant_type/, 400, 'invalid_request', 'Missing form parameter: grant_type']
]

function keycloakError (grantType: unknown, status: number, body: Body, detail: string): [number, Body] {
  const error = String(body.error)
  const description = `${String(body.error_description ?? '')} ${detail}`.trim()
  for (const [grant, code, match, kcStatus, kcError, kcDescription] of ERRORS) {
    if ((grant === '*' || grant === grantType) && code === error && match.test(description)) return [kcStatus, { error: kcError, error_description: kcDescription }]
  }
  if (error === 'invalid_scope') return [400, { error, error_description: `Invalid scopes: ${String(body.scope ?? detail)}` }]
  return [status, { error, error_description: String(body.error_description ?? '') }]
}

/**
 * The token endpoint's answers as Keycloak gives them: refresh tokens as JWTs, ID tokens in Keycloak's
 * shape, session_state, refresh_expires_in and not-before-policy in the response, Keycloak's error
 * wording; and wrong client secrets counted for the lockout. A Koa middleware of the provider, so it
 * sees every grant (the provider's own and the password grant).
 */
export function keycloakTokenResponses (provider: Provider, tokens: KeycloakTokens, lockout: Lockout, world: World, metrics: Metrics): void {
  const RefreshToken = provider.RefreshToken as unknown as { find: FindRefreshToken }
  const findRefreshToken = RefreshToken.find.bind(RefreshToken)
  /** Whether the partner of the client expired its refresh tokens issued until then (POST /__sandbox/tokens/expire with refresh). */
  const expiredByPartner = async (azp: string, iat: number): Promise<boolean> => {
    const partnerId = ownerOf(world, azp)?.partner.id
    if (partnerId === undefined) return false
    await world.sync(partnerId)
    return refreshExpired(world.partner(partnerId), iat)
  }
  // a client only ever holds the JWT form; the provider's handle inside it is what the provider knows
  RefreshToken.find = async (value, opts) => {
    const claims = await tokens.refreshClaims(value)
    if (claims === undefined) return undefined
    const found = await findRefreshToken(claims.handle, opts)
    // expired by the partner's control: the provider then answers as for any expired one ("Token is not active")
    if (found !== undefined && found.exp !== undefined && await expiredByPartner(claims.azp, claims.iat)) found.exp = Math.min(found.exp, Math.floor(Date.now() / 1000))
    return found
  }

  // the provider's InvalidGrant always says "grant request is invalid"; its reason is in the error's detail
  const details = new WeakMap<object, string>()
  provider.on('grant.error', (ctx: object, err: { error_detail?: string }) => details.set(ctx, err.error_detail ?? ''))

  provider.use(async (ctx: KoaContextWithOIDC, next) => {
    if (ctx.path !== ROUTES.token || ctx.method !== 'POST') return await next()
    const received = Math.floor(Date.now() / 1000)
    await next()
    const body = ctx.body as Body | undefined
    if (body === undefined || typeof body !== 'object' || body === null) return
    const clientId = ctx.oidc?.client?.clientId
    const grantType = ctx.oidc?.params?.grant_type as string | undefined
    if (ctx.status >= 400 && typeof body.error === 'string') {
      if (clientId !== undefined && body.error === 'invalid_client') await lockout.failed(clientKey(clientId))
      const [status, kcBody] = keycloakError(grantType, ctx.status, body, details.get(ctx) ?? '')
      ctx.status = status
      ctx.body = kcBody
      metrics.tokenFailed(grantType, String(kcBody.error))
      return
    }
    if (clientId !== undefined) await lockout.succeeded(clientKey(clientId))
    if (ctx.status !== 200 || typeof body.access_token !== 'string') return
    metrics.tokenIssued(grantType)
    ctx.body = await keycloakTokenBody(body, received, findRefreshToken, tokens)
  })
}

/** `received`: the second the request arrived, the time the answer's refresh_expires_in counts from. */
async function keycloakTokenBody (body: Body, received: number, findRefreshToken: FindRefreshToken, tokens: KeycloakTokens): Promise<Body> {
  // the provider's refresh token (on a refresh: the one it was given, not rotated) in a new JWT, as Keycloak answers every grant
  const handle = typeof body.refresh_token === 'string' ? (await tokens.refreshHandle(body.refresh_token)) ?? body.refresh_token : undefined
  const rt = handle === undefined ? undefined : await findRefreshToken(handle)
  const sid = rt?.grantId === undefined ? undefined : sessionId(rt.grantId)
  const refreshToken = rt === undefined
    ? undefined
    : await tokens.refreshToken({ handle: handle!, exp: rt.exp!, sub: rt.accountId!, azp: rt.clientId!, sid: sid!, scope: keycloakScope(rt.scope) })
  const idToken = typeof body.id_token === 'string' ? await tokens.idToken(body.id_token, { sid, accessToken: body.access_token as string }) : undefined
  // Keycloak's field order
  return JSON.parse(JSON.stringify({
    access_token: body.access_token,
    expires_in: body.expires_in,
    // a refresh token issued by this request counts from its own iat: the whole lifetime, as Keycloak answers,
    // even when the issue crossed a second boundary (it answered 1799 of 1800 on a loaded machine)
    refresh_expires_in: rt === undefined ? 0 : Math.max(0, rt.exp! - (rt.iat !== undefined && rt.iat >= received ? rt.iat : received)),
    refresh_token: refreshToken,
    token_type: 'Bearer',
    id_token: idToken,
    'not-before-policy': 0,
    session_state: sid,
    scope: keycloakScope(body.scope as string | undefined)
  })) as Body
}
