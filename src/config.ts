import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { readFileSync } from 'node:fs'
import { trustProxyOf } from './trust-proxy.js'

// Every option is declared once here: its type, default, description, environment variable and flag, and its
// default in the hosted profile where that differs (the profile is the same code with safe defaults: this one
// table, never a test of the profile in the routes). The CLI (--help), the environment reader, the README's
// configuration table and docs/hosting.md's table of local against hosted all come from this schema.
function option<T extends TSchema> (schema: T, env: string, flag: string, hosted?: Static<T>): T {
  return hosted === undefined ? { ...schema, env, flag } : { ...schema, env, flag, hosted }
}

export const PROFILES = ['local', 'hosted'] as const
export type Profile = typeof PROFILES[number]

const OnOff = (d: 'on' | 'off', description: string) => Type.Union([Type.Literal('off'), Type.Literal('on')], { default: d, description })

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export const ConfigSchema = Type.Object({
  profile: option(Type.Union(PROFILES.map((p) => Type.Literal(p)), { default: 'local', description: "Defaults for where the sandbox runs: local (a developer's machine, a CI job: published test secrets, no limits) or hosted (facing the internet: no published secret works, limits on, an operator credential required; docs/hosting.md). An option set explicitly wins over its profile's default" }), 'SANDBOX_PROFILE', 'profile'),
  scenarioPartners: option(OnOff('on', "on: the start scenario's partners (partner-a, partner-b) exist; off: only partners the operator registers"), 'SANDBOX_SCENARIO_PARTNERS', 'scenario-partners', 'off'),
  publishedSecrets: option(OnOff('on', "on: scenario partners and their users accept the secrets and passwords of their scenario file (the README, the banner, the Postman environment); off: they get random ones that nobody is shown (rotate a partner's secret to learn one), and the Postman files carry no secret"), 'SANDBOX_PUBLISHED_SECRETS', 'published-secrets', 'off'),
  port: option(Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'TCP port to listen on (0 picks a free port)' }), 'PORT', 'port'),
  host: option(Type.String({ minLength: 1, default: '0.0.0.0', description: 'Interface to listen on' }), 'HOST', 'host'),
  publicUrl: option(Type.Optional(Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', description: 'URL clients use to reach the sandbox (issuer and docs links); default http://localhost:{port}' })), 'PUBLIC_URL', 'public-url'),
  scenario: option(Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', default: 'default', description: 'Scenario loaded at first start (see scenarios/)' }), 'SANDBOX_SCENARIO', 'scenario'),
  seed: option(Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, description: "Seed for generated data; default the scenario's own seed" })), 'SANDBOX_SEED', 'seed'),
  dataDir: option(Type.Optional(Type.String({ minLength: 1, description: 'Directory for durable data (per partner a JSON snapshot and a change log; signing keys); in memory when unset' })), 'SANDBOX_DATA_DIR', 'data-dir'),
  adminToken: option(Type.Optional(Type.String({ minLength: 16, description: 'Bearer token for the operator endpoints under /__sandbox/admin; disabled when unset' })), 'SANDBOX_ADMIN_TOKEN', 'admin-token'),
  adminTokenFile: option(Type.Optional(Type.String({ minLength: 1, description: 'Path of a file holding the operator token (a mounted secret; one trailing newline is ignored), in place of SANDBOX_ADMIN_TOKEN' })), 'SANDBOX_ADMIN_TOKEN_FILE', 'admin-token-file'),
  secretPepper: option(Type.Optional(Type.String({ minLength: 32, description: 'Key of the hashes of client secrets (HMAC-SHA-256), the same on every replica; unset: generated and kept in the data dir (keys/secret-pepper), in Redis, or in memory. Changing it makes every stored client secret fail' })), 'SANDBOX_SECRET_PEPPER', 'secret-pepper'),
  tokenTtl: option(Type.Integer({ minimum: 10, maximum: 86400, default: 300, description: 'Access token lifetime in seconds' }), 'SANDBOX_TOKEN_TTL', 'token-ttl'),
  lockoutFailures: option(Type.Integer({ minimum: 0, maximum: 1000, default: 0, description: "Wrong secrets or passwords in a row after which a client or user is locked out of the token endpoint, as Keycloak's brute force detection (0: off)" }), 'SANDBOX_LOCKOUT_FAILURES', 'lockout-failures', 30),
  lockoutSeconds: option(Type.Integer({ minimum: 0, maximum: 86400, default: 0, description: 'Seconds a locked-out client or user is refused, even with the right secret (0: off)' }), 'SANDBOX_LOCKOUT_SECONDS', 'lockout-seconds', 60),
  addressLockoutFailures: option(Type.Integer({ minimum: 0, maximum: 1000, default: 30, description: "Wrong operator tokens in a row (operator console sign-in and /__sandbox/admin together) after which a client address is refused every operator token, the right one included (429 with Retry-After), as Keycloak's brute force detection counts (0: off)" }), 'SANDBOX_ADDRESS_LOCKOUT_FAILURES', 'address-lockout-failures'),
  addressLockoutSeconds: option(Type.Integer({ minimum: 0, maximum: 86400, default: 60, description: 'Seconds a client address locked out by SANDBOX_ADDRESS_LOCKOUT_FAILURES is refused (0: off)' }), 'SANDBOX_ADDRESS_LOCKOUT_SECONDS', 'address-lockout-seconds'),
  trustProxy: option(Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'Proxies in front of the sandbox whose X-Forwarded-For (and -Proto, -Host) it believes, as Fastify\'s trustProxy takes them: addresses and CIDR ranges separated by commas (10.0.0.0/8,192.168.1.7; loopback, linklocal, uniquelocal), or a number of hops; the client address then goes to logs, the journal, rate limits and lockouts. Unset: the connection\'s address' })), 'SANDBOX_TRUST_PROXY', 'trust-proxy'),
  signingKey: option(Type.Optional(Type.String({ minLength: 1, description: 'RSA private key (2048 bits or more) that signs tokens: unencrypted PEM, PKCS#1 ("BEGIN RSA PRIVATE KEY", openssl genrsa -traditional) or PKCS#8 ("BEGIN PRIVATE KEY", openssl genpkey), or JWK JSON; generated (and kept in the data dir) when neither this nor SANDBOX_SIGNING_KEYS is set' })), 'SANDBOX_SIGNING_KEY', 'signing-key'),
  signingKeys: option(Type.Optional(Type.String({ minLength: 1, description: 'Several RSA private keys for key rotation, the current one (which signs) first, each as SANDBOX_SIGNING_KEY takes it: PEM blocks one after another, a JSON array of JWKs or a JWK Set; or the path of a file holding them, or of a directory of key files (the name that sorts last is the current key). Tokens of every listed key verify; the JWKS publishes them all' })), 'SANDBOX_SIGNING_KEYS', 'signing-keys'),
  logLevel: option(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)), { default: 'info', description: 'Log level (JSON logs on stdout)' }), 'LOG_LEVEL', 'log-level'),
  managementPort: option(Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Literal('off')], { default: 0, description: 'Port of the management interface: GET /metrics (Prometheus), /health and /ready, on HOST. The default 0 picks a free port (the banner and the log show it), so that several sandboxes run on one machine; the image and the deploy/ manifests set 9000, where Prometheus scrapes it; off turns it and every metric off' }), 'SANDBOX_MANAGEMENT_PORT', 'management-port'),
  metricsPartners: option(Type.Integer({ minimum: 0, maximum: 1, default: 0, description: 'Set to 1 to count requests per partner too (sandbox_partner_requests_total, a series per partner)' }), 'SANDBOX_METRICS_PARTNERS', 'metrics-partners'),
  metricsPartnersMax: option(Type.Integer({ minimum: 1, maximum: 100000, default: 100, description: 'With SANDBOX_METRICS_PARTNERS=1: partners that get a label of their own, the first to send requests; the others count as partner="other"' }), 'SANDBOX_METRICS_PARTNERS_MAX', 'metrics-partners-max'),
  hsts: option(Type.Integer({ minimum: 0, maximum: 63072000, default: 0, description: 'Seconds of Strict-Transport-Security (max-age, includeSubDomains) sent on every answer when PUBLIC_URL is https; 0: none' }), 'SANDBOX_HSTS', 'hsts', 31536000),
  bodyLimit: option(Type.Integer({ minimum: 1024, maximum: 10485760, default: 262144, description: 'Largest accepted request body in bytes (413 above)' }), 'SANDBOX_BODY_LIMIT', 'body-limit'),
  snapshotLimit: option(Type.Integer({ minimum: 1024, maximum: 67108864, default: 4194304, description: 'Largest snapshot document PUT /__sandbox/snapshot accepts, in bytes (413 above); the default scenario\'s partners weigh 0.16 MB and 0.08 MB, the edge-cases one\'s 0.34 MB' }), 'SANDBOX_SNAPSHOT_LIMIT', 'snapshot-limit'),
  maxRecords: option(Type.Integer({ minimum: 100, maximum: 10000000, default: 500000, description: 'Most records (customers, accounts, beneficiaries, messages, guarantees) one partner may hold (403 SANDBOX_ERR_LIMIT above); a record takes at most about 4.4 KB of JSON, so this bounds a partner\'s bytes too' }), 'SANDBOX_MAX_RECORDS', 'max-records', 20000),
  maxAgents: option(Type.Integer({ minimum: 1, maximum: 999, default: 100, description: 'Most agents one partner may have (fresh agents included)' }), 'SANDBOX_MAX_AGENTS', 'max-agents'),
  requestTimeout: option(Type.Integer({ minimum: 1000, maximum: 600000, default: 30000, description: 'Milliseconds a client may take to send a whole request (408 and the connection closed after)' }), 'SANDBOX_REQUEST_TIMEOUT', 'request-timeout'),
  maxEventLoopDelay: option(Type.Integer({ minimum: 50, maximum: 60000, default: 1000, description: 'Event-loop delay in ms above which requests get 503 with Retry-After' }), 'SANDBOX_MAX_EVENT_LOOP_DELAY', 'max-event-loop-delay'),
  shutdownTimeout: option(Type.Integer({ minimum: 100, maximum: 60000, default: 4000, description: 'Milliseconds in-flight requests get to finish on SIGTERM/SIGINT' }), 'SANDBOX_SHUTDOWN_TIMEOUT', 'shutdown-timeout'),
  shutdownDrain: option(Type.Integer({ minimum: 0, maximum: 600000, default: 0, description: 'Milliseconds a stopping sandbox keeps serving on SIGTERM/SIGINT (/ready answering 503, every answer closing its connection) before it stops accepting connections, so that a load balancer takes it out of rotation first; 0: stop accepting at once' }), 'SANDBOX_SHUTDOWN_DRAIN', 'shutdown-drain'),
  faultHold: option(Type.Integer({ minimum: 1000, maximum: 600000, default: 120000, description: 'Milliseconds a request with the timeout fault is held before its connection is closed (a stop closes it at once)' }), 'SANDBOX_FAULT_HOLD', 'fault-hold'),
  rateLimit: option(Type.Integer({ minimum: 0, maximum: 1000000, default: 0, description: 'Requests per second each partner may make to /api and /__sandbox (429 with Retry-After above); 0 turns the limit off' }), 'SANDBOX_RATE_LIMIT', 'rate-limit', 25),
  tokenRateLimit: option(Type.Integer({ minimum: 0, maximum: 1000000, default: 0, description: 'Token requests per second each client may make to the token endpoint (429 with Retry-After above); 0 turns the limit off' }), 'SANDBOX_TOKEN_RATE_LIMIT', 'token-rate-limit', 10),
  journalSize: option(Type.Integer({ minimum: 0, maximum: 10000, default: 200, description: "Requests kept in each partner's request journal (in memory, or in Redis with SANDBOX_REDIS_URL; at most 4 KiB per entry on average, the newest always kept); 0 turns the journal off" }), 'SANDBOX_JOURNAL_SIZE', 'journal-size'),
  redisUrl: option(Type.Optional(Type.String({ pattern: '^rediss?://[^\\s]+$', description: 'Redis or Valkey (7+) that replicas share their state through (redis://[user:password@]host:port[/db], rediss:// for TLS); unset: one process, in memory or in the data dir' })), 'SANDBOX_REDIS_URL', 'redis-url'),
  redisCa: option(Type.Optional(Type.String({ minLength: 1, description: "Path of a PEM file of the certificate authorities that a rediss:// SANDBOX_REDIS_URL's server certificate is checked against (a private CA); unset: Node's built-in CAs (and NODE_EXTRA_CA_CERTS)" })), 'SANDBOX_REDIS_CA', 'redis-ca'),
  redisCluster: option(Type.Integer({ minimum: 0, maximum: 1, default: 0, description: 'Set to 1 when SANDBOX_REDIS_URL names a node of a Redis Cluster' }), 'SANDBOX_REDIS_CLUSTER', 'redis-cluster'),
  redisPrefix: option(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', default: 'sbx', description: "Prefix of the sandbox's Redis keys (several sandboxes can share one Redis)" }), 'SANDBOX_REDIS_PREFIX', 'redis-prefix'),
  redisMemoryGuard: option(Type.Integer({ minimum: 0, maximum: 100, default: 95, description: "With SANDBOX_REDIS_URL: percent of Redis's maxmemory above which writes are refused with 507 SANDBOX_ERR_STORE_FULL (reads still served), read from INFO memory every second; 0: off" }), 'SANDBOX_REDIS_MEMORY_GUARD', 'redis-memory-guard'),
  redisTimeout: option(Type.Integer({ minimum: 100, maximum: 60000, default: 2000, description: 'Milliseconds a Redis command may take; a request whose state cannot be read or written in time answers 503 with Retry-After' }), 'SANDBOX_REDIS_TIMEOUT', 'redis-timeout'),
  adviceTokenCalls: option(Type.Integer({ minimum: 1, maximum: 1000000, default: 20, description: 'Advisor, TOKEN_PER_REQUEST: API calls of a partner before it can be reported (then when most of them came with a new token while the previous one was valid)' }), 'SANDBOX_ADVICE_TOKEN_CALLS', 'advice-token-calls'),
  adviceRetryWindow: option(Type.Integer({ minimum: 1, maximum: 600000, default: 100, description: 'Advisor, RETRY_WITHOUT_BACKOFF: milliseconds after a failed answer (5xx, 429, reset, timeout) within which the same request again is a retry without backoff; readiness: the least pause before a retry that RETRIES_SERVER_ERROR and SURVIVES_TOKEN_ENDPOINT_OUTAGE count' }), 'SANDBOX_ADVICE_RETRY_WINDOW', 'advice-retry-window'),
  adviceRetryCount: option(Type.Integer({ minimum: 1, maximum: 1000, default: 3, description: 'Advisor, RETRY_WITHOUT_BACKOFF: retries without backoff in a row that are reported' }), 'SANDBOX_ADVICE_RETRY_COUNT', 'advice-retry-count'),
  advicePollRate: option(Type.Integer({ minimum: 1, maximum: 100000, default: 5, description: 'Advisor, POLLING_TOO_FAST: reads of one URL per second above which a second counts as too fast' }), 'SANDBOX_ADVICE_POLL_RATE', 'advice-poll-rate'),
  advicePollSeconds: option(Type.Integer({ minimum: 1, maximum: 3600, default: 10, description: 'Advisor, POLLING_TOO_FAST: seconds in a row over SANDBOX_ADVICE_POLL_RATE that are reported' }), 'SANDBOX_ADVICE_POLL_SECONDS', 'advice-poll-seconds'),
  adviceClientErrors: option(Type.Integer({ minimum: 1, maximum: 100000, default: 5, description: 'Advisor, REPEATED_CLIENT_ERROR: the same 400 (same operation, same rule broken) this many times is reported' }), 'SANDBOX_ADVICE_CLIENT_ERRORS', 'advice-client-errors'),
  deprecationDate: option(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', default: '2026-01-01', description: 'Date sent in the Deprecation header of deprecated API versions (YYYY-MM-DD)' }), 'SANDBOX_DEPRECATION_DATE', 'deprecation-date')
}, { $id: 'SandboxConfig', additionalProperties: false })

export type Config = Static<typeof ConfigSchema>

export interface OptionInfo {
  key: keyof Config
  env: string
  flag: string
  description: string
  default?: unknown
  type: 'integer' | 'string'
  /** Takes an integer (alone, or besides words such as off): a number given as text is read as one. */
  numeric: boolean
  /** The default in the hosted profile, where it differs from the local one. */
  hosted?: unknown
}

export const OPTIONS: OptionInfo[] = Object.entries(ConfigSchema.properties).map(([key, s]) => ({
  key: key as keyof Config,
  env: s.env,
  flag: s.flag,
  description: s.description ?? '',
  default: s.default,
  type: s.type === 'integer' ? 'integer' : 'string',
  numeric: s.type === 'integer' || (s.anyOf as TSchema[] | undefined)?.some((branch) => branch.type === 'integer') === true,
  hosted: (s as { hosted?: unknown }).hosted
}))

/** Options whose values are secrets: never echoed in messages. */
const SECRET_OPTIONS = new Set<string>(['adminToken', 'signingKey', 'signingKeys', 'redisUrl', 'secretPepper'])

export class ConfigError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

/** Reads the options from environment variables (strings), ignoring empty values. */
export function fromEnv (env: NodeJS.ProcessEnv): Record<string, string> {
  const raw: Record<string, string> = {}
  for (const o of OPTIONS) {
    const v = env[o.env]
    if (v !== undefined && v !== '') raw[o.key] = v
  }
  return raw
}

/**
 * Turns raw option values (strings from env/flags, or typed values from tests) into a checked Config.
 * The first invalid option stops everything with a message naming it by flag and environment variable.
 */
export function loadConfig (raw: Record<string, unknown> = {}): Config {
  const input: Record<string, unknown> = {}
  for (const o of OPTIONS) {
    const v = raw[o.key]
    if (v === undefined) continue
    if (o.numeric && typeof v === 'string') {
      input[o.key] = /^-?\d+$/.test(v.trim()) ? Number(v) : v
    } else {
      input[o.key] = v
    }
  }
  for (const key of Object.keys(raw)) {
    if (!OPTIONS.some((o) => o.key === key)) throw new ConfigError(`unknown option "${key}"`)
  }
  // the profile's defaults before the schema's: an option set explicitly wins over both
  if (input.profile === 'hosted') {
    for (const o of OPTIONS) if (o.hosted !== undefined && input[o.key] === undefined) input[o.key] = o.hosted
  }
  const withDefaults = Value.Default(ConfigSchema, input)
  const first = Value.Errors(ConfigSchema, withDefaults).First()
  if (first) {
    const key = first.path.split('/')[1] as keyof Config
    const o = OPTIONS.find((x) => x.key === key)
    const name = o ? `--${o.flag} / ${o.env}` : key
    // a secret never reaches a terminal or a CI log, even a wrong one
    const value = SECRET_OPTIONS.has(key) && typeof first.value === 'string' ? `(hidden, ${first.value.length} characters)` : JSON.stringify(first.value)
    throw new ConfigError(`invalid option ${name} = ${value}: ${describe(first.schema)}`)
  }
  const config = withDefaults as Config
  if (config.signingKey !== undefined && config.signingKeys !== undefined) {
    throw new ConfigError('options --signing-key / SANDBOX_SIGNING_KEY and --signing-keys / SANDBOX_SIGNING_KEYS exclude each other: put the one key in SANDBOX_SIGNING_KEYS with the others')
  }
  if (config.adminTokenFile !== undefined) config.adminToken = adminTokenOfFile(config)
  if (config.redisUrl !== undefined) sharedStateChecks(config)
  if (config.profile === 'hosted' && !hasOperatorCredential(config)) {
    throw new ConfigError('the hosted profile (--profile / SANDBOX_PROFILE = hosted) needs an operator credential: set SANDBOX_ADMIN_TOKEN (--admin-token), at least 16 characters, or SANDBOX_ADMIN_TOKEN_FILE (--admin-token-file)')
  }
  try {
    trustProxyOf(config.trustProxy)
  } catch (err) {
    throw new ConfigError(`invalid option --trust-proxy / SANDBOX_TRUST_PROXY = ${JSON.stringify(config.trustProxy)}: ${(err as Error).message}`)
  }
  if (config.publicUrl === undefined) config.publicUrl = `http://localhost:${config.port}`
  config.publicUrl = config.publicUrl.replace(/\/+$/, '')
  // Date.parse('2026-02-31') is 3 March: a real date reads back unchanged
  const date = new Date(`${config.deprecationDate}T00:00:00Z`)
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== config.deprecationDate) {
    throw new ConfigError(`invalid option --deprecation-date / SANDBOX_DEPRECATION_DATE = "${config.deprecationDate}": expected a real date YYYY-MM-DD`)
  }
  return config
}

/** Whether the operator endpoints can be reached by someone: a hosted sandbox refuses to start without. */
function hasOperatorCredential (config: Config): boolean {
  return config.adminToken !== undefined
}

/**
 * SANDBOX_ADMIN_TOKEN_FILE: the operator token read from a file (a Kubernetes or Docker secret), without the
 * trailing newline an editor or `echo` leaves. Neither the token nor a word of the file reaches a message.
 */
function adminTokenOfFile (config: Config): string {
  const name = '--admin-token-file / SANDBOX_ADMIN_TOKEN_FILE'
  if (config.adminToken !== undefined) throw new ConfigError(`options --admin-token / SANDBOX_ADMIN_TOKEN and ${name} exclude each other: unset one of them`)
  let text: string
  try {
    text = readFileSync(config.adminTokenFile!, 'utf8')
  } catch (err) {
    throw new ConfigError(`invalid option ${name} = ${JSON.stringify(config.adminTokenFile)}: the file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  const token = text.replace(/\r?\n$/, '')
  if (token.length < 16 || /\s/.test(token)) {
    throw new ConfigError(`invalid option ${name} = ${JSON.stringify(config.adminTokenFile)}: the file must hold the operator token alone, 16 characters or more without spaces or line breaks (it holds ${token.length} characters)`)
  }
  return token
}

/** What replicas sharing state through Redis need: one signing key for all (a key of its own per process would make every other replica's tokens invalid here). */
function sharedStateChecks (config: Config): void {
  if (config.dataDir !== undefined) {
    throw new ConfigError('options --data-dir / SANDBOX_DATA_DIR and --redis-url / SANDBOX_REDIS_URL exclude each other: with Redis every replica keeps its state there; unset one of them')
  }
  if (config.signingKey === undefined && config.signingKeys === undefined) {
    throw new ConfigError('option --redis-url / SANDBOX_REDIS_URL needs signing keys shared by every replica: set SANDBOX_SIGNING_KEY (or --signing-key) to the same RSA private key (PEM or JWK JSON) on each, or SANDBOX_SIGNING_KEYS (--signing-keys) to the same keys for key rotation')
  }
}

function describe (schema: TSchema): string {
  if (schema.anyOf) return `expected ${schema.anyOf.some((s: TSchema) => s.const === undefined) ? '' : 'one of '}${schema.anyOf.map((s: TSchema) => s.const ?? describe(s).replace(/^expected /, '')).join(schema.anyOf.some((s: TSchema) => s.const === undefined) ? ' or ' : ', ')}`
  const parts: string[] = [`expected ${schema.type === 'integer' ? 'an integer' : 'a string'}`]
  if (schema.minimum !== undefined) parts.push(`from ${schema.minimum} to ${schema.maximum}`)
  if (schema.minLength !== undefined) parts.push(`of at least ${schema.minLength} characters`)
  if (schema.pattern !== undefined) parts.push(`matching ${schema.pattern}`)
  return parts.join(' ')
}
