import { verifyPassword } from '../store/credentials.js'
import type Provider from 'oidc-provider'
import { errors, type Account, type ResourceServer } from 'oidc-provider'
import type { World } from '../store/world.js'
import { userKey, type Lockout } from './lockout.js'
import { SUPPORTED_SCOPES } from './realm.js'

export interface PasswordGrantOptions {
  world: World
  audience: string
  resourceServer: ResourceServer
  userSubject: (partnerId: string, username: string) => string
  findAccount: (sub: string) => Account | undefined
  lockout: Lockout
}

const DEFAULT_SCOPE = 'openid profile email'

/**
 * Keycloak's "direct access grant" (grant_type=password), which oidc-provider does not ship: it lets a
 * headless test act as a test user. Tokens are the same as the authorization code flow's, including a
 * refresh token that the standard refresh_token grant accepts.
 */
export function registerPasswordGrant (provider: Provider, opts: PasswordGrantOptions): void {
  const { world, audience, resourceServer } = opts
  provider.registerGrantType('password', async (ctx) => {
    const { client, params } = ctx.oidc
    const username = params.username as string | undefined
    const password = params.password as string | undefined
    if (username === undefined || password === undefined) throw new errors.InvalidRequest('missing required parameter(s) (username, password)')
    const partner = world.partner(client.clientId)
    const user = partner?.user(username)
    if (partner === undefined || user === undefined) throw new errors.InvalidGrant('Invalid user credentials')
    // a locked user is answered as a wrong password, as Keycloak does
    const key = userKey(partner.id, user.username)
    if (await opts.lockout.isLocked(key)) throw new errors.InvalidGrant('Invalid user credentials')
    if (!await verifyPassword(user.passwordHash, password)) {
      await opts.lockout.failed(key)
      throw new errors.InvalidGrant('Invalid user credentials')
    }
    await opts.lockout.succeeded(key)
    const requested = (params.scope ?? DEFAULT_SCOPE).split(' ').filter(Boolean)
    const unknown = requested.filter((s) => !SUPPORTED_SCOPES.includes(s))
    if (unknown.length > 0) throw new errors.InvalidScope('requested scope is not allowed', unknown.join(' '))
    const oidcScope = [...new Set(['openid', ...requested])].join(' ')
    const resourceScope = oidcScope.split(' ').filter((s) => resourceServer.scope.split(' ').includes(s)).join(' ')

    const accountId = opts.userSubject(partner.id, user.username)
    const account = opts.findAccount(accountId)!
    const authTime = Math.floor(Date.now() / 1000)
    const grant = new provider.Grant({ accountId, clientId: client.clientId })
    grant.addOIDCScope(oidcScope)
    grant.addResourceScope(audience, resourceScope)
    const grantId = await grant.save()

    const at = new provider.AccessToken({ accountId, client, grantId, gty: 'password', scope: resourceScope })
    at.resourceServer = new provider.ResourceServer(audience, resourceServer)
    ctx.oidc.entity('AccessToken', at)
    const accessToken = await at.save()

    const rt = new provider.RefreshToken({ accountId, client, grantId, gty: 'password', scope: oidcScope, resource: audience, rotations: 0, authTime })
    const refreshToken = await rt.save()

    const idToken = new provider.IdToken({ ...(await account.claims('id_token', oidcScope, {}, [])), auth_time: authTime }, { ctx })
    Object.assign(idToken, { scope: oidcScope })
    ctx.body = {
      access_token: accessToken,
      expires_in: at.expiration,
      refresh_expires_in: rt.expiration,
      refresh_token: refreshToken,
      token_type: 'Bearer',
      id_token: await idToken.issue({ use: 'idtoken' }),
      scope: oidcScope
    }
  }, ['username', 'password', 'scope'])
}
