import Provider, { errors, type Account, type AdapterPayload, type Configuration, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider'
import { SandboxError } from '../errors.js'
import type { World } from '../store/world.js'
import type { Partner } from '../store/partner.js'
import type { TestUser } from '../store/records.js'
import { revokeTokens } from '../store/tokens.js'
import { createAdapterFactory, type ProviderStorageFactory } from '../store/provider-storage.js'
import type { SigningKeys } from './keys.js'
import { ACCOUNT_ROLES, KeycloakTokens, keycloakScope, sessionId } from './keycloak-tokens.js'
import { redirectUriAllowed } from './origins.js'
import { browserSupport, logoutSource } from './browser-session.js'
import { clientMetadata, clientOrigins as clientOriginsOf, ownerOf } from './clients.js'
import { secretsThroughHashes } from './client-secrets.js'
import { clientKey, type Lockout } from './lockout.js'
import { registerPasswordGrant } from './password-grant.js'
import type { Metrics } from '../instruments/recorder.js'
import { keycloakTokenResponses } from './token-response.js'
import { LOGIN_PATH, REALM_PATH, ROUTES, SUPPORTED_SCOPES, userSubject } from './realm.js'
import { NO_SPANS, SPAN, traced, type Spans } from '../instruments/spans.js'

export interface ProviderOptions {
  world: World
  keys: SigningKeys
  publicUrl: string
  tokenTtl: number
  /** Redirect URIs of the docs pages (one per version), registered on every client so that "Authorize" works there. */
  docsRedirectUris: string[]
  /** Where the provider keeps its state: this process (the default) or Redis, for every replica. */
  storage?: ProviderStorageFactory
  lockout: Lockout
  /** An access token made and signed is a span of its request's trace (instruments/spans.ts). */
  spans?: Spans
  /** Tokens issued and token errors, by grant. */
  metrics: Metrics
}

export interface SandboxProvider {
  provider: Provider
  issuer: string
  /** The resource indicator of the API: the audience of every access token. */
  audience: string
  userSubject: (partnerId: string, username: string) => string
  findUser: (sub: string) => { partner: Partner, user: TestUser } | undefined
  /** The web origins a client allows (Keycloak's "+": the origins of its redirect URIs); undefined for no such client. */
  clientOrigins: (clientId: string) => string[] | undefined
  close: () => void
}

// the login-status iframe is the sandbox's own page (auth/keycloak-pages.ts), not a provider route
const { check_session_iframe: _iframe, ...providerRoutes } = ROUTES

const CLAIM_ORDER = ['exp', 'iat', 'auth_time', 'jti', 'iss', 'aud', 'sub', 'typ', 'azp', 'sid', 'acr', 'allowed-origins', 'realm_access', 'resource_access', 'scope']

/** Keycloak's order of claims (readers of a decoded token compare them by eye). */
function keycloakClaimOrder (payload: Record<string, unknown>): Record<string, unknown> {
  const ordered: Record<string, unknown> = {}
  for (const name of CLAIM_ORDER) if (payload[name] !== undefined) ordered[name] = payload[name]
  for (const [name, value] of Object.entries(payload)) if (!(name in ordered) && value !== undefined) ordered[name] = value
  return ordered
}

interface IssuedAccessToken { grantId?: string, clientId: string, jti: string, exp?: number, expiration: number }

/**
 * The shared store (Redis) failing under the provider (its adapter, a client lookup): 503 with Retry-After and
 * X-Sandbox-Error, and OAuth's temporarily_unavailable in a JSON answer, instead of the provider's 500
 * server_error. (The provider already takes the status of the error, SANDBOX_ERR_STORE_UNAVAILABLE's 503.)
 */
function storeErrorAnswers (provider: Provider): void {
  const failed = new WeakMap<object, SandboxError>()
  provider.on('server_error', (ctx: object, err: unknown) => {
    if (err instanceof SandboxError) failed.set(ctx, err)
  })
  provider.use(async (ctx: KoaContextWithOIDC, next) => {
    await next()
    const err = failed.get(ctx)
    if (err === undefined) return
    ctx.status = err.statusCode
    for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value)
    ctx.set('X-Sandbox-Error', err.code)
    const body = ctx.body as { error?: unknown } | undefined
    if (typeof body === 'object' && body !== null && body.error === 'server_error') ctx.body = { error: 'temporarily_unavailable', error_description: err.message }
  })
}

export function createProvider (opts: ProviderOptions): SandboxProvider {
  const { world, keys, publicUrl, tokenTtl } = opts
  const spans = opts.spans ?? NO_SPANS
  const issuer = `${publicUrl}${REALM_PATH}`
  const audience = `${publicUrl}/api`
  const resourceServer: ResourceServer = {
    scope: SUPPORTED_SCOPES.filter((s) => s !== 'offline_access').join(' '),
    audience,
    accessTokenTTL: tokenTtl,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: 'RS256', kid: keys.privateJwk.kid } }
  }

  function findUser (sub: string): { partner: Partner, user: TestUser } | undefined {
    for (const partner of world.partners.values()) {
      for (const user of partner.users) if (userSubject(partner.id, user.username) === sub) return { partner, user }
    }
    return undefined
  }

  function account (sub: string): Account | undefined {
    const found = findUser(sub)
    if (found === undefined) return undefined
    const { user } = found
    const [given, ...rest] = user.name.split(' ')
    return {
      accountId: sub,
      claims: () => ({
        sub,
        name: user.name,
        given_name: given,
        family_name: rest.join(' '),
        preferred_username: user.username,
        email: user.email,
        email_verified: true
      })
    }
  }

  // the client's partner made current here first (with replicas: a partner registered on another one)
  const client = async (id: string): Promise<AdapterPayload | undefined> =>
    await world.findClient(id) === undefined ? undefined : clientMetadata(ownerOf(world, id), opts.docsRedirectUris, await opts.lockout.isLocked(clientKey(id)))
  const clientOrigins = (id: string): string[] | undefined => clientOriginsOf(world, opts.docsRedirectUris, id)
  const adapter = (opts.storage ?? createAdapterFactory)({
    client,
    revokeAccessTokens: async (partnerId, tokens) => await revokeTokens(world, partnerId, tokens)
  })

  const configuration: Configuration = {
    adapter: adapter.factory,
    clients: [],
    // none: the public clients of browser apps
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    clientBasedCORS: () => true,
    // Keycloak's profile and email scopes are default scopes: their claims come with openid alone
    claims: {
      openid: ['sub', 'name', 'given_name', 'family_name', 'preferred_username', 'email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'preferred_username'],
      email: ['email', 'email_verified']
    },
    conformIdTokenClaims: false,
    cookies: { keys: keys.cookieKeys },
    discovery: {
      userinfo_endpoint: `${issuer}${ROUTES.userinfo}`,
      introspection_endpoint: `${issuer}${ROUTES.introspection}`,
      revocation_endpoint: `${issuer}${ROUTES.revocation}`,
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      check_session_iframe: `${issuer}${ROUTES.check_session_iframe}`,
      service_documentation: `${publicUrl}/api/docs/apidocs`
    },
    expiresWithSession: () => false,
    // Keycloak's access token claims (Keycloak 26 defaults); our agent_id besides
    extraTokenClaims: (ctx: KoaContextWithOIDC, token) => {
      const partner = ownerOf(world, token.clientId!)?.partner
      const accountId = (token as { accountId?: string }).accountId
      const grantId = (token as { grantId?: string }).grantId
      const found = accountId === undefined ? undefined : findUser(accountId)
      const origins = clientOrigins(token.clientId!) ?? []
      if (found !== undefined) {
        const { user } = found
        const [given, ...rest] = user.name.split(' ')
        const entities = ctx.oidc.entities as { AuthorizationCode?: { authTime?: number }, RefreshToken?: { authTime?: number } }
        return {
          auth_time: entities.AuthorizationCode?.authTime ?? entities.RefreshToken?.authTime ?? Math.floor(Date.now() / 1000),
          typ: 'Bearer',
          azp: token.clientId,
          sid: grantId === undefined ? undefined : sessionId(grantId),
          acr: '1',
          'allowed-origins': origins,
          realm_access: { roles: ['default-roles-sandbox', 'offline_access', 'uma_authorization', 'agent-user'] },
          resource_access: { account: { roles: ACCOUNT_ROLES } },
          email_verified: true,
          name: user.name,
          preferred_username: user.username,
          given_name: given,
          family_name: rest.join(' '),
          email: user.email,
          agent_id: [user.agentId]
        }
      }
      return {
        typ: 'Bearer',
        azp: token.clientId,
        acr: '1',
        'allowed-origins': origins,
        realm_access: { roles: ['default-roles-sandbox', 'offline_access', 'uma_authorization', 'agent-system'] },
        resource_access: { account: { roles: ACCOUNT_ROLES } },
        clientHost: ctx.ip,
        email_verified: false,
        preferred_username: `service-account-${token.clientId!}`,
        clientAddress: ctx.ip,
        agent_id: [...(partner?.agents.keys() ?? [])]
      }
    },
    formats: {
      customizers: {
        // Keycloak's access tokens say typ "JWT" in the JOSE header (RFC 9068's at+jwt is refused by some JWT libraries)
        jwt: (_ctx, _token, jwt) => {
          jwt.header = { typ: 'JWT' }
          // client_id names the partner the token acts for (a public client's owner); azp the client itself
          const partnerId = ownerOf(world, String(jwt.payload.client_id))?.partner.id ?? jwt.payload.client_id
          jwt.payload = keycloakClaimOrder({ ...jwt.payload, client_id: partnerId, scope: keycloakScope(jwt.payload.scope as string | undefined) })
        }
      }
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: false },
      revocation: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== audience) throw new errors.InvalidTarget(`the only resource is ${audience}`)
          return resourceServer
        }
      }
    },
    findAccount: (_ctx, sub) => account(sub),
    interactions: { url: (_ctx, interaction) => `${LOGIN_PATH}/${interaction.uid}` },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // the current key first: the provider signs with the first key of an algorithm, and publishes them all
    jwks: { keys: keys.accepted.map((k) => k.privateJwk as never) },
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(ctx.oidc.client!.clientId)
      return grantId === undefined ? undefined : await ctx.oidc.provider.Grant.find(grantId)
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html'
      const esc = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
      ctx.body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body><main><h1>Sign-in error</h1><p><strong>${esc(out.error)}</strong></p><p>${esc(out.error_description ?? '')}</p></main></body></html>`
    },
    responseTypes: ['code'],
    // not rotated: rotation consumes the old token, and Keycloak keeps it usable by default; each answer still
    // gets a new refresh JWT that wraps this one (token-response.ts), as Keycloak gives a new one every time
    rotateRefreshToken: false,
    routes: providerRoutes,
    scopes: SUPPORTED_SCOPES,
    ttl: {
      AccessToken: tokenTtl,
      ClientCredentials: tokenTtl,
      IdToken: tokenTtl,
      AuthorizationCode: 60,
      RefreshToken: 1800,
      Interaction: 600,
      Session: 36000,
      Grant: 36000
    }
  }

  const provider = new Provider(issuer, configuration)
  // Keycloak's redirect URI rules (a trailing * is a prefix; loopback hosts on any port), for every client
  const clientProto = provider.Client.prototype as unknown as { redirectUris: string[], postLogoutRedirectUris: string[], redirectUriAllowed: (uri: string) => boolean, postLogoutRedirectUriAllowed: (uri: string) => boolean }
  clientProto.redirectUriAllowed = function (uri) { return redirectUriAllowed(this.redirectUris, uri) }
  clientProto.postLogoutRedirectUriAllowed = function (uri) { return redirectUriAllowed(this.postLogoutRedirectUris ?? [], uri) }
  secretsThroughHashes(provider, world)
  // Behind a proxy or port mapping the public URL decides scheme and host of every endpoint.
  provider.proxy = true
  // A JWT access token of a grant is kept with the grant before the client gets it (with replicas: in Redis,
  // awaited), so that the grant's end on any replica revokes it; its partner is the one its client_id names.
  const accessToken = provider.AccessToken.prototype as unknown as { save: (this: IssuedAccessToken) => Promise<string> }
  const save = accessToken.save
  accessToken.save = async function () {
    const partnerId = ownerOf(world, this.clientId)?.partner.id ?? this.clientId
    const value = await traced(spans.span(SPAN.tokenSignature, { 'sandbox.partner': partnerId }), save.call(this))
    if (this.grantId !== undefined) {
      await adapter.accessTokenIssued(this.grantId, { partnerId, jti: this.jti, exp: this.exp ?? Math.floor(Date.now() / 1000) + this.expiration })
    }
    return value
  }
  // a partner system's token (client_credentials): made and signed in save(), as a user's
  const clientCredentials = provider.ClientCredentials.prototype as unknown as { save: (this: IssuedAccessToken) => Promise<string> }
  const saveClientCredentials = clientCredentials.save
  clientCredentials.save = async function () {
    return await traced(spans.span(SPAN.tokenSignature, { 'sandbox.partner': ownerOf(world, this.clientId)?.partner.id ?? this.clientId }), saveClientCredentials.call(this))
  }
  storeErrorAnswers(provider)
  registerPasswordGrant(provider, { world, userSubject, findAccount: account, resourceServer, audience, lockout: opts.lockout })
  keycloakTokenResponses(provider, new KeycloakTokens(keys, issuer), opts.lockout, world, opts.metrics)
  browserSupport(provider, issuer, clientOrigins)
  return { provider, issuer, audience, userSubject, findUser, clientOrigins, close: adapter.close }
}
