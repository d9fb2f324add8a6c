import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import middie from '@fastify/middie'
import { headersToRaw } from '../raw-headers.js'
import type { World } from '../store/world.js'
import { loadSigningKeys } from './keys.js'
import { Lockout } from './lockout.js'
import keycloakPages from './keycloak-pages.js'
import loginRoutes from './login.js'
import { createProvider, type SandboxProvider } from './provider.js'
import { LOGIN_PATH, REALM_PATH } from './realm.js'
import tokenEndpoints from './token-endpoints.js'
import { TokenVerifier } from './verify.js'

declare module 'fastify' {
  interface FastifyInstance {
    tokens: TokenVerifier
    oidc: SandboxProvider
  }
}

export interface AuthOptions {
  world: World
  publicUrl: string
  tokenTtl: number
  lockoutFailures: number
  lockoutSeconds: number
  signingKey?: string
  dataDir?: string
  docsRedirectUri: string
}

/**
 * The embedded identity provider (oidc-provider) at Keycloak's paths, its login pages and token
 * endpoints, and the verifier the API uses for its access tokens.
 */
async function authPlugin (fastify: FastifyInstance, opts: AuthOptions): Promise<void> {
  const keys = await loadSigningKeys(opts.signingKey, opts.dataDir)
  const issuer = `${opts.publicUrl}${REALM_PATH}`
  const verifier = new TokenVerifier(keys.publicJwk, issuer, `${opts.publicUrl}/api`)
  const lockout = new Lockout(opts.lockoutFailures, opts.lockoutSeconds)
  const oidc = createProvider({
    world: opts.world,
    keys,
    publicUrl: opts.publicUrl,
    tokenTtl: opts.tokenTtl,
    docsRedirectUri: opts.docsRedirectUri,
    onAccessTokenRevoked: (jti, exp) => verifier.revoke(jti, exp),
    lockout
  })
  oidc.provider.on('server_error', (_ctx, err) => fastify.log.error({ err }, 'identity provider error'))
  fastify.decorate('tokens', verifier)
  fastify.decorate('oidc', oidc)
  fastify.addHook('onClose', async () => oidc.close())
  fastify.log.debug({ kid: keys.privateJwk.kid, source: keys.source }, 'token signing key')

  const publicUrl = new URL(opts.publicUrl)
  const basePath = publicUrl.pathname.replace(/\/$/, '')
  const callback = oidc.provider.callback()
  // The provider in a context of its own: middie's hook then runs for its paths only, never on the API.
  await fastify.register(async (scope) => {
    // before middie's step: the provider writes its answers on the raw response
    scope.addHook('onRequest', (_request, reply, done) => {
      headersToRaw(reply)
      done()
    })
    await scope.register(middie)
    scope.use(REALM_PATH, (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
      // endpoints in discovery follow the public URL, whatever Host the request came with
      req.headers['x-forwarded-host'] = publicUrl.host
      req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1)
      if (basePath !== '') req.originalUrl = `${basePath}${req.originalUrl ?? ''}`
      callback(req, res)
    })
    const unreachable = async (): Promise<void> => {}
    scope.all(`${REALM_PATH}/*`, unreachable)
  })
  await fastify.register(keycloakPages, { prefix: REALM_PATH, issuer, publicJwk: keys.publicJwk, clientOrigins: oidc.clientOrigins })
  await fastify.register(loginRoutes, { prefix: LOGIN_PATH, provider: oidc.provider, world: opts.world, lockout, issuer })
  await fastify.register(tokenEndpoints, { prefix: REALM_PATH, provider: oidc.provider, world: opts.world, verifier })
}

export default fp(authPlugin, { name: 'sandbox-identity-provider' })
