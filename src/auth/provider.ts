import Provider, { errors, type Account, type AdapterPayload, type Configuration, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider'
import type { World } from '../store/world.js'
import type { Partner } from '../store/partner.js'
import type { TestUser } from '../store/records.js'
import { createAdapterFactory } from './adapter.js'
import type { SigningKeys } from './keys.js'
import { registerPasswordGrant } from './password-grant.js'
import { GRANT_TYPES, LOGIN_PATH, REALM_PATH, ROUTES, SUPPORTED_SCOPES, userSubject } from './realm.js'

export interface ProviderOptions {
  world: World
  keys: SigningKeys
  publicUrl: string
  tokenTtl: number
  /** Redirect URI of the docs page, registered on every client so that "Authorize" works there. */
  docsRedirectUri: string
  onAccessTokenRevoked: (jti: string, exp: number) => void
}

export interface SandboxProvider {
  provider: Provider
  issuer: string
  /** The resource indicator of the API: the audience of every access token. */
  audience: string
  userSubject: (partnerId: string, username: string) => string
  findUser: (sub: string) => { partner: Partner, user: TestUser } | undefined
  close: () => void
}

export function clientMetadata (partner: Partner, docsRedirectUri: string): AdapterPayload {
  return {
    client_id: partner.id,
    client_secret: partner.secret,
    client_name: partner.name,
    redirect_uris: [...new Set([docsRedirectUri, ...partner.redirectUris])],
    post_logout_redirect_uris: partner.redirectUris,
    grant_types: GRANT_TYPES,
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: SUPPORTED_SCOPES.join(' ')
  }
}

export function createProvider (opts: ProviderOptions): SandboxProvider {
  const { world, keys, publicUrl, tokenTtl } = opts
  const issuer = `${publicUrl}${REALM_PATH}`
  const audience = `${publicUrl}/api`
  const resourceServer: ResourceServer = {
    scope: SUPPORTED_SCOPES.filter((s) => s !== 'offline_access').join(' '),
    audience,
    accessTokenTTL: tokenTtl,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: 'RS256' } }
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

  const adapter = createAdapterFactory({
    client: (id) => {
      const partner = world.partner(id)
      return partner === undefined ? undefined : clientMetadata(partner, opts.docsRedirectUri)
    },
    onAccessTokenRevoked: opts.onAccessTokenRevoked
  })

  const configuration: Configuration = {
    adapter: adapter.factory,
    clients: [],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    clientBasedCORS: () => true,
    claims: {
      openid: ['sub'],
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
      service_documentation: `${publicUrl}/api/docs/apidocs`
    },
    expiresWithSession: () => false,
    extraTokenClaims: (_ctx: KoaContextWithOIDC, token) => {
      const partner = world.partner(token.clientId!)
      const accountId = (token as { accountId?: string }).accountId
      const found = accountId === undefined ? undefined : findUser(accountId)
      const base = { typ: 'Bearer', azp: token.clientId }
      if (found !== undefined) {
        return {
          ...base,
          preferred_username: found.user.username,
          name: found.user.name,
          email: found.user.email,
          agent_id: [found.user.agentId],
          realm_access: { roles: ['default-roles-sandbox', 'agent-user'] }
        }
      }
      return {
        ...base,
        preferred_username: `service-account-${token.clientId!}`,
        agent_id: [...(partner?.agents.keys() ?? [])],
        realm_access: { roles: ['default-roles-sandbox', 'agent-system'] }
      }
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: false },
      revocation: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: true },
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
    jwks: { keys: [keys.privateJwk as never] },
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
    rotateRefreshToken: false,
    routes: ROUTES,
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
  // Behind a proxy or port mapping the public URL decides scheme and host of every endpoint.
  provider.proxy = true
  provider.on('access_token.issued', (token: { grantId?: string, jti: string, exp?: number, expiration: number }) => {
    if (token.grantId !== undefined) adapter.accessTokenIssued(token.grantId, token.jti, token.exp ?? Math.floor(Date.now() / 1000) + token.expiration)
  })
  registerPasswordGrant(provider, { world, userSubject, findAccount: account, resourceServer, audience })
  return { provider, issuer, audience, userSubject, findUser, close: adapter.close }
}
