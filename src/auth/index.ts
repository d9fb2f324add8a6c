import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type Provider from 'oidc-provider'
import fp from 'fastify-plugin'
import middie from '@fastify/middie'
import { pathOf } from '../path-patterns.js'
import { headersToRaw } from '../raw-headers.js'
import { providerRequest, TokenEndpointFaults } from './token-endpoint-faults.js'
import type { AppliedFault } from '../faults/actions.js'
import type { LockoutStore, WindowCounter } from '../store/counters.js'
import type { SandboxStateRepo } from '../store/sandbox-state.js'
import type { World } from '../store/world.js'
import type { ProviderStorageFactory } from '../store/provider-storage.js'
import type { SigningKeys } from './keys.js'
import { Lockout } from './lockout.js'
import { NO_METRICS, type Metrics } from '../instruments/recorder.js'
import keycloakPages from './keycloak-pages.js'
import loginRoutes from './login.js'
import type { SandboxProvider } from './provider.js'
import { providerContext, type ProviderContext } from './provider-context.js'
import { clientOrigins } from './clients.js'
import { LOGIN_PATH, REALM_PATH, ROUTES } from './realm.js'
import tokenEndpoints from './token-endpoints.js'
import { TokenRateLimit } from './token-rate-limit.js'
import { TokenVerifier } from './verify.js'
import type { Spans } from '../instruments/spans.js'

declare module 'fastify' {
  interface FastifyInstance {
    tokens: TokenVerifier
    /** The clients' and users' lockout (SANDBOX_LOCKOUT_*), which the partner console's sign-in counts against too. */
    lockout: Lockout
  }
}

/**
 * The identity provider's module, loaded once per process. oidc-provider warns on stderr, when it is loaded, on
 * every runtime whose release has no LTS name ("Unsupported runtime"), which Node 26 had not yet when the
 * sandbox took it on (`process.release.lts` undefined in 26.10): a supported runtime of the sandbox's, tested in
 * CI, so that one warning is dropped; every other goes through. Once per process, so that two sandboxes loading
 * it at the same moment cannot leave console.warn wrapped.
 */
let providerModuleLoading: Promise<typeof import('./provider.js')> | undefined
async function providerModule (): Promise<typeof import('./provider.js')> {
  return await (providerModuleLoading ??= (async () => {
    const warn = console.warn
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider WARNING: Unsupported runtime')) return
      warn.apply(console, args)
    }
    try {
      return await import('./provider.js')
    } finally {
      console.warn = warn
    }
  })())
}

export interface AuthOptions {
  world: World
  publicUrl: string
  tokenTtl: number
  lockoutFailures: number
  lockoutSeconds: number
  /** token requests per second per client (SANDBOX_TOKEN_RATE_LIMIT); 0: no limit */
  tokenRateLimit: number
  /** The token signing keys, being loaded or made (app.ts starts that first, to overlap the rest of the start). */
  keys: Promise<SigningKeys>
  /**
   * The keys are generated (none configured, none in the data dir): the start does not wait for them. Making an
   * RSA key took 0.05-0.3 s (and up to 0.9 s on a busy machine), the slowest and least predictable part of a
   * start; the token endpoint, the verifier, the realm information and /ready wait for it instead. Keys loaded
   * from the configuration or the data dir are awaited, so that a bad one stops the start.
   */
  keysGenerated: boolean
  /** An access token's signature is a span of its request's trace. */
  spans?: Spans
  docsRedirectUris: string[]
  /** Called for each request the provider answers, before it does (the journal taps the answer). */
  onProviderRequest?: (request: FastifyRequest, reply: FastifyReply) => void
  /** The provider's state and the lockout's and token limit's counters shared by replicas (Redis); in this process when absent. */
  shared?: { storage: ProviderStorageFactory, lockouts: LockoutStore, counter: WindowCounter }
  /** Fault injection at the token endpoint for the partners' own clients: their rules, and how long a timeout holds. */
  faults: { rules: SandboxStateRepo, holdMs: number }
  /** Tokens issued and refused, token requests over the limit, lockouts. */
  metrics?: Metrics
}

/**
 * The embedded identity provider (oidc-provider) at Keycloak's paths, its login pages and token
 * endpoints, and the verifier the API uses for its access tokens.
 */
async function authPlugin (fastify: FastifyInstance, opts: AuthOptions): Promise<void> {
  const keys = opts.keys
  if (!opts.keysGenerated) await keys
  const issuer = `${opts.publicUrl}${REALM_PATH}`
  const verifier = new TokenVerifier(keys.then((k) => k.accepted.map((a) => a.publicJwk)), issuer, `${opts.publicUrl}/api`)
  const metrics = opts.metrics ?? NO_METRICS
  const lockout = new Lockout(opts.lockoutFailures, opts.lockoutSeconds, opts.shared?.lockouts, () => metrics.lockedOut())
  fastify.decorate('tokens', verifier)
  fastify.decorate('lockout', lockout)
  keys.then((k) => fastify.log.debug({ kid: k.privateJwk.kid, accepted: k.accepted.map((a) => a.privateJwk.kid), source: k.source }, 'token signing keys'),
    (err: unknown) => fastify.log.error({ err }, 'the token signing key could not be made'))

  // oidc-provider (with Koa and its helpers) is loaded when first needed, not at start: it was a fifth of
  // the start-up, and the API itself checks tokens without it. The first request that needs it (a token,
  // a login page, discovery) waits for it to load (about 0.1-0.2 s), and so does /ready, so that a client
  // that waits for /ready finds everything loaded.
  let loaded: SandboxProvider | undefined
  let loading: Promise<SandboxProvider> | undefined
  let context: ProviderContext | undefined
  const identityProvider = async (): Promise<SandboxProvider> => await (loading ??= Promise.all([providerModule(), providerContext(), keys]).then(([{ createProvider }, providerContext, signingKeys]) => {
    context = providerContext
    const oidc = createProvider({
      world: opts.world,
      keys: signingKeys,
      publicUrl: opts.publicUrl,
      tokenTtl: opts.tokenTtl,
      docsRedirectUris: opts.docsRedirectUris,
      storage: opts.shared?.storage,
      lockout,
      spans: opts.spans,
      metrics
    })
    oidc.provider.on('server_error', (_ctx, err) => fastify.log.error({ err }, 'identity provider error'))
    loaded = oidc
    return oidc
  }))
  const provider = async (): Promise<Provider> => (await identityProvider()).provider
  fastify.readiness.before.push(identityProvider)
  fastify.addHook('onClose', async () => loaded?.close())

  const publicUrl = new URL(opts.publicUrl)
  const basePath = publicUrl.pathname.replace(/\/$/, '')
  let callback: ReturnType<Provider['callback']> | undefined
  const tokenLimit = opts.tokenRateLimit > 0 ? new TokenRateLimit(opts.tokenRateLimit, opts.world, opts.shared?.counter, metrics) : undefined
  const tokenPath = `${REALM_PATH}${ROUTES.token}`
  const tokenFaults = new TokenEndpointFaults(opts.world, opts.faults.rules, opts.faults.holdMs, tokenPath)
  fastify.addHook('preClose', (done) => {
    tokenFaults.holds.release()
    done()
  })
  /** A token request's steps before the provider reads it: the rate limit, then faults; false when it was answered without the provider. */
  const tokenRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<{ proceed: boolean, after?: AppliedFault }> => {
    // refused before the provider reads the body or signs anything (an answer in the error shape)
    const refused = tokenLimit === undefined ? undefined : await tokenLimit.check(request)
    if (refused !== undefined) throw refused
    return await tokenFaults.apply(request, reply)
  }
  // The provider in a context of its own: middie's hook then runs for its paths only, never on the API.
  await fastify.register(async (scope) => {
    // before middie's step: the provider writes its answers on the raw response
    scope.addHook('onRequest', (request, reply, done) => {
      const proceed = (after?: AppliedFault): void => {
        headersToRaw(reply)
        opts.onProviderRequest?.(request, reply)
        if (after !== undefined) tokenFaults.afterAnswer(request, reply, after)
        done()
      }
      if (request.method !== 'POST' || pathOf(request.url) !== tokenPath) return proceed()
      tokenRequest(request, reply).then((outcome) => { if (outcome.proceed) proceed(outcome.after) }, done)
    })
    await scope.register(middie)
    scope.use(REALM_PATH, (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: (err?: unknown) => void) => {
      // endpoints in discovery follow the public URL, whatever Host the request came with
      req.headers['x-forwarded-host'] = publicUrl.host
      req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1)
      if (basePath !== '') req.originalUrl = `${basePath}${req.originalUrl ?? ''}`
      const answer = (handle: NonNullable<typeof callback>): void => {
        context!.answer(res)
        // a token request whose form the fault step read is read again from what it kept
        handle(providerRequest(req), res)
      }
      if (callback !== undefined) return answer(callback)
      provider().then((p) => answer(callback ??= p.callback()), next)
    })
    const unreachable = async (): Promise<void> => {}
    scope.all(`${REALM_PATH}/*`, unreachable)
  })
  const origins = (clientId: string): string[] | undefined => clientOrigins(opts.world, opts.docsRedirectUris, clientId)
  await fastify.register(keycloakPages, { prefix: REALM_PATH, issuer, publicJwk: keys.then((k) => k.publicJwk), clientOrigins: origins })
  await fastify.register(loginRoutes, { prefix: LOGIN_PATH, provider, world: opts.world, lockout, issuer })
  await fastify.register(tokenEndpoints, { prefix: REALM_PATH, provider, world: opts.world, verifier })
}

export default fp(authPlugin, { name: 'sandbox-identity-provider' })
