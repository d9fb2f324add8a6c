import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { LogController, type FastifyHttpOptions, type FastifyInstance } from 'fastify'
import type { Config } from './config.js'
import { makeAdvisor, type Advisor } from './advisor/index.js'
import identityProvider from './auth/index.js'
import { Lockout } from './auth/lockout.js'
import { generatesSigningKey, loadSigningKeys } from './auth/keys.js'
import { REALM_PATH, ROUTES } from './auth/realm.js'
import answerBatching from './plugins/answer-batching.js'
import authHooks from './plugins/auth.js'
import { docsRedirectUris } from './docs/swagger-ui.js'
import docs from './plugins/docs.js'
import errors, { frameworkError } from './plugins/errors.js'
import { lazySerializers, lazyValidators } from './plugins/lazy-compilers.js'
import journal, { tapProviderAnswer } from './plugins/journal.js'
import { logDestination } from './plugins/log-stream.js'
import operations, { REDACT_PATHS, clientError, lazyChildLogger, loggableUrl, requestId } from './plugins/operations.js'
import partnerRateLimit from './plugins/rate-limit.js'
import securityHeaders from './plugins/security-headers.js'
import store from './plugins/store.js'
import validation from './plugins/validation.js'
import versions, { rewriteVersionedUrl } from './plugins/versions.js'
import { PACKAGE_JSON } from './files.js'
import { trustProxyOf } from './trust-proxy.js'
import observe from './plugins/observe.js'
import api from './routes/api/index.js'
import consoleRoutes, { sessionClaims } from './routes/console.js'
import { ConsoleSessions, OPERATOR_COOKIE } from './store/console-sessions.js'
import operatorConsole, { operatorSession } from './routes/operator-console.js'
import { MemoryJournals } from './store/journal.js'
import { NO_SPANS } from './instruments/spans.js'
import type { Tracing } from './observe/tracing.js'
import { MemoryActivity, type ActivityStore } from './store/activity.js'
import { RedisActivity } from './store/redis/activity.js'
import sandbox from './routes/sandbox/index.js'
import { RedisConsoleSessions } from './store/redis/console-sessions.js'
import { RedisLockouts, RedisWindowCounter } from './store/redis/counters.js'
import { RedisJournals } from './store/redis/journal.js'
import { redisProviderStorage } from './store/redis/oidc-adapter.js'
import { API_SCHEMAS } from './schemas/index.js'
import { AJV_OPTIONS, AJV_PLUGINS } from './schemas/validation.js'

declare module 'fastify' {
  interface FastifyInstance {
    advisor: Advisor
    /** Each partner's requests and 5xx over the last 24 hours, its latest request: the operator's overview. */
    activity: ActivityStore
  }
}

const SANDBOX_VERSION = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version

/** Where the JSON log lines go: by default the process's standard output, batched (plugins/log-stream.ts). */
export interface LogSink { write: (line: string) => void }

/** Options that must be given when the Fastify instance is made (the rest of the app is the plugin below). */
export function serverOptions (config: Config, log: LogSink = logDestination()): FastifyHttpOptions<Server> {
  return {
    logger: {
      level: config.logLevel,
      stream: log,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      serializers: {
        req: (req) => ({ method: req.method, url: loggableUrl(req.url), remoteAddress: req.ip }),
        res: (res) => ({ statusCode: res.statusCode })
      }
    },
    // one line per request, written by the operations plugin (with partner and agent)
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    childLoggerFactory: lazyChildLogger,
    genReqId: requestId,
    bodyLimit: config.bodyLimit,
    // behind a load balancer: request.ip is the client's (X-Forwarded-For), for logs, journal, limits and lockouts
    trustProxy: trustProxyOf(config.trustProxy),
    requestTimeout: config.requestTimeout,
    // Node applies requestTimeout only when given to the server's constructor (Fastify sets it after),
    // and checks every 30 s by default, far too coarse for a timeout of a few seconds
    http: { requestTimeout: config.requestTimeout, connectionsCheckingInterval: Math.min(1000, config.requestTimeout), requireHostHeader: false },
    // (requireHostHeader: Node's own 400 for a missing Host has an empty body; the operations plugin answers it instead)
    // a request that still reaches us on an open connection while stopping is served (with
    // Connection: close), not answered by Fastify's bare 503 that has no request id
    return503OnClosing: false,
    clientErrorHandler: clientError,
    rewriteUrl: rewriteVersionedUrl,
    // router errors (bad percent-encoding, over-long path segment) in the error body of every other error
    frameworkErrors: frameworkError,
    // spec 4.13: a guarantee id may have 255 characters (find-my-way's default limit is 100); longer
    // values reach the schema, which answers the Spring 400, up to what fits in Node's 16 KB of headers
    routerOptions: { maxParamLength: 8192 },
    // the large scenario builds 100,000 customers while the store plugin loads: on a busy machine that
    // can take longer than avvio's default 10 s per plugin
    pluginTimeout: 120_000,
    ajv: { customOptions: AJV_OPTIONS, plugins: AJV_PLUGINS },
    schemaController: { compilersFactory: { buildValidator: lazyValidators(), buildSerializer: lazySerializers() } }
  }
}

/**
 * The whole sandbox as one Fastify plugin: data, identity provider, docs, and the API and control
 * routes behind the token checks. Register it with fastify-plugin on an instance made with serverOptions().
 * With tracing (observe/tracing.ts), its plugin comes first: every request's span starts before any other step.
 */
export default async function app (fastify: FastifyInstance, opts: { config: Config, tracing?: Tracing }): Promise<void> {
  const { config } = opts
  const spans = opts.tracing?.spans ?? NO_SPANS
  const publicUrl = config.publicUrl!
  // made first (an RSA key is generated off the main thread), so that it overlaps loading the data
  const keysGenerated = generatesSigningKey(config.signingKey, config.dataDir, config.signingKeys)
  const keys = loadSigningKeys(config.signingKey, config.dataDir, config.signingKeys)
  // awaited by the identity provider's registration; a start that fails before that must not leave it unhandled
  keys.catch(() => {})
  // first: every request's span starts before any other step
  if (opts.tracing !== undefined) await fastify.register(opts.tracing.plugin)
  // then metrics: its request step goes on every route, and every room below counts into fastify.metrics
  await fastify.register(observe, { config, version: SANDBOX_VERSION })
  await fastify.register(securityHeaders, { hstsSeconds: config.publicUrl!.startsWith('https://') ? config.hsts : 0 })
  // every answer that goes through reply.send (the API, the control API, the docs) is written at the end of
  // its event-loop turn, with the others of that turn; the identity provider writes its own
  await fastify.register(answerBatching)
  await fastify.register(operations, { maxEventLoopDelay: config.maxEventLoopDelay })
  await fastify.register(store, { config, spans })
  for (const schema of API_SCHEMAS) fastify.addSchema(schema)
  await fastify.register(errors, { reference: fastify.reference })
  await fastify.register(versions, { deprecationDate: config.deprecationDate, publicUrl })
  // one journal per partner: in this process, or in Redis for every replica
  const journals = fastify.redis === null || config.journalSize === 0
    ? new MemoryJournals(config.journalSize)
    : new RedisJournals(fastify.redis.bulk, fastify.redis.keys, config.journalSize, fastify.log)
  fastify.control.whenDeleted((partnerId) => journals.forget(partnerId))
  // the integration advisor judges each request as it is journaled (none while the journal is off)
  const advisor = makeAdvisor(config, fastify.redis, fastify.log, fastify.metrics)
  fastify.decorate('advisor', advisor)
  fastify.control.whenDeleted((partnerId) => advisor.store.forget(partnerId))
  fastify.control.whenReplaced(async (partnerId) => await advisor.store.clear(partnerId))
  // every partner's traffic, counted by the journal's step whether the journal is on or off (with replicas in
  // Redis, on the journal's connection: its counts go in the pipeline of the journal's entries)
  const activity: ActivityStore = fastify.redis === null ? new MemoryActivity() : new RedisActivity(fastify.redis.bulk, fastify.redis.keys, fastify.log)
  fastify.decorate('activity', activity)
  fastify.control.whenDeleted((partnerId) => activity.forget(partnerId))
  // before the routes it records: its hooks and the JSON parser (the body as sent) reach them all
  await fastify.register(journal, { journals, world: fastify.world, verifier: () => fastify.tokens, observers: [advisor.observer], activity })
  // with replicas, the identity provider's state and the limits' counters are Redis's, shared by all
  const redis = fastify.redis
  const shared = redis === null
    ? undefined
    : { storage: redisProviderStorage(redis.client, redis.keys), lockouts: new RedisLockouts(redis.client, redis.keys), counter: new RedisWindowCounter(redis.client, redis.keys) }
  await fastify.register(identityProvider, {
    shared,
    keys,
    keysGenerated,
    spans,
    onProviderRequest: config.journalSize > 0 ? tapProviderAnswer : undefined,
    world: fastify.world,
    publicUrl,
    tokenTtl: config.tokenTtl,
    lockoutFailures: config.lockoutFailures,
    lockoutSeconds: config.lockoutSeconds,
    tokenRateLimit: config.tokenRateLimit,
    faults: { rules: fastify.repos.sandboxState, holdMs: config.faultHold },
    metrics: fastify.metrics,
    docsRedirectUris: docsRedirectUris(publicUrl)
  })
  await fastify.register(docs, { publicUrl, deprecationDate: config.deprecationDate, publishedSecrets: config.publishedSecrets === 'on' })
  const sessions = new ConsoleSessions(fastify.redis === null ? undefined : new RedisConsoleSessions(fastify.redis.client, fastify.redis.keys))
  // a rotated secret, a suspension, a deletion or expired tokens end the partner's console sessions
  fastify.control.whenSignedOut(async (partnerId) => await sessions.endAll(partnerId))
  await fastify.register(consoleRoutes, { sessions, world: fastify.world, publicUrl, lockout: fastify.lockout })
  // the operator's console: sessions of its own (store, cookie, keys), which only the operator endpoints accept
  const operatorSessions = new ConsoleSessions(fastify.redis === null ? undefined : new RedisConsoleSessions(fastify.redis.client, fastify.redis.keys, 'operator'), OPERATOR_COOKIE)
  // wrong operator tokens per source address, the console's sign-in and the operator endpoints together
  const operatorGuard = new Lockout(config.addressLockoutFailures, config.addressLockoutSeconds, shared?.lockouts)
  await fastify.register(operatorConsole, { sessions: operatorSessions, adminToken: config.adminToken, publicUrl, operatorGuard })
  // the token-protected routes, in a scope of their own so that the hooks apply to them only
  await fastify.register(async (scope) => {
    await scope.register(validation, { reference: fastify.reference })
    await scope.register(authHooks, { verifier: fastify.tokens, world: fastify.world, session: (request) => sessionClaims(sessions, request) })
    if (config.rateLimit > 0) await scope.register(partnerRateLimit, { perSecond: config.rateLimit, counter: shared?.counter, metrics: fastify.metrics })
    await scope.register(api, { prefix: '/api', faultHoldMs: config.faultHold })
    await scope.register(sandbox, { prefix: '/__sandbox', adminToken: config.adminToken, snapshotLimit: config.snapshotLimit, tokenUrl: `${publicUrl}${REALM_PATH}${ROUTES.token}`, publicUrl, version: SANDBOX_VERSION, observing: config.journalSize > 0, operatorSession: operatorSession(operatorSessions, config.adminToken), operatorGuard })
  })
}
