import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { loadClientSecrets } from '../store/credential-keys.js'
import { PasswordHashes } from '../store/credentials.js'
import { migrateCredentials } from '../store/legacy-credentials.js'
import { ConfigError, type Config } from '../config.js'
import { API_SCHEMAS } from '../schemas/index.js'
import { lazyValidator, type DataValidator } from '../schemas/validation.js'
import { ScenarioControl } from '../seed/control.js'
import type { Reference } from '../schemas/reference.js'
import { loadReference } from '../seed/fixtures.js'
import { EXAMPLE_SCENARIO } from '../docs/examples/context.js'
import { loadFaker } from '../seed/faker.js'
import { Prebuilt } from '../seed/prebuilt.js'
import { ScenarioLibrary } from '../seed/scenarios.js'
import { loadVerified } from '../seed/verified.js'
import { createRepos, type Repos } from '../store/index.js'
import { FilePersistence } from '../store/persistence.js'
import { NamedSnapshots, type NamedSnapshotStore } from '../store/snapshots.js'
import { CHANGES } from '../store/changes.js'
import { LocalBackend, World } from '../store/world.js'
import { RedisBackend } from '../store/redis/backend.js'
import { connected, observeCommands, redisClient, watchdog, type RedisClient } from '../store/redis/connection.js'
import type { Metrics } from '../instruments/recorder.js'
import { RedisKeys } from '../store/redis/keys.js'
import { defineScripts } from '../store/redis/scripts.js'
import { RedisNamedSnapshots } from '../store/redis/snapshots.js'
import { MemoryGuard } from '../store/redis/memory-guard.js'
import type { Spans } from '../instruments/spans.js'

declare module 'fastify' {
  interface FastifyInstance {
    world: World
    repos: Repos
    control: ScenarioControl
    scenarios: ScenarioLibrary
    reference: Reference
    /** The API schemas without the API's scalar coercion: what scenario files and snapshots must pass. */
    dataValidator: DataValidator
    prebuilt: Prebuilt
    snapshots: NamedSnapshotStore
    /**
     * The shared store of replicas (SANDBOX_REDIS_URL) and its key names; null for a sandbox of one process.
     * Two connections: `client` for what requests wait on (partners' rounds, counters, the identity provider),
     * `bulk` for the request journal, filed after the answers (a client keeps one pipeline in flight per
     * connection: the journal's larger writes would hold up every request's round behind them).
     */
    redis: { client: RedisClient, bulk: RedisClient, keys: RedisKeys } | null
  }
}

/** The connections to the shared store: see FastifyInstance.redis. */
interface Shared { client: RedisClient, bulk: RedisClient, keys: RedisKeys, guard?: MemoryGuard, close: () => Promise<void> }

/** Connects to the shared store, or says why not (the start stops: a replica without its state is no use). */
async function connectShared (config: Config, log: FastifyBaseLogger, metrics: Metrics): Promise<Shared> {
  const connect = async (): Promise<RedisClient> => {
    const client = await redisClient({ url: config.redisUrl!, ca: config.redisCa, cluster: config.redisCluster === 1, commandTimeout: config.redisTimeout })
    // errors come back through the commands; without a listener each would also be thrown as an 'error' event
    client.on('error', () => {})
    try {
      await client.connect()
      if (!connected(client)) await new Promise((resolve) => client.once('ready', resolve))
    } catch (err) {
      client.disconnect()
      throw new Error(`cannot reach Redis at SANDBOX_REDIS_URL (${redactedUrl(config.redisUrl!)}): ${(err as Error).message}`)
    }
    observeCommands(client, metrics)
    return client
  }
  const client = await connect()
  const bulk = await connect()
  defineScripts(client)
  const dropped = (node: string): void =>
    log.warn({ node, timeoutMs: config.redisTimeout }, 'Redis did not answer a PING in time: connection dropped (waiting requests answer 503), reconnecting')
  const stops = [watchdog(client, config.redisTimeout, dropped), watchdog(bulk, config.redisTimeout, dropped)]
  const guard = config.redisMemoryGuard === 0 ? undefined : await memoryGuard(client, config, log)
  if (guard !== undefined) stops.push(() => guard.stop())
  const close = async (): Promise<void> => {
    for (const stop of stops) stop()
    await Promise.all([client, bulk].map(async (c) => await c.quit().catch(() => c.disconnect())))
  }
  return { client, bulk, keys: new RedisKeys(config.redisPrefix), guard, close }
}

/** The guard of Redis's memory (memory-guard.ts), read once before the first request; its turns are logged. */
async function memoryGuard (client: RedisClient, config: Config, log: FastifyBaseLogger): Promise<MemoryGuard> {
  const guard = new MemoryGuard(client, config.redisCluster === 1, config.redisMemoryGuard, (full, used, max) => {
    const at = { usedMemory: used, maxmemory: max, guardPercent: config.redisMemoryGuard }
    if (full) log.error(at, "Redis's memory is above SANDBOX_REDIS_MEMORY_GUARD: partners' writes are refused (507 SANDBOX_ERR_STORE_FULL) until there is room")
    else log.info(at, "Redis's memory is below SANDBOX_REDIS_MEMORY_GUARD again: writes accepted")
  })
  // a Redis that refuses INFO (an ACL) leaves the guard open, said once; its own OOM answer is still the 507
  await guard.read().catch((err: unknown) => log.warn({ err }, 'cannot read INFO memory from Redis: SANDBOX_REDIS_MEMORY_GUARD stays off'))
  return guard
}

/** The URL without its password, for messages. */
function redactedUrl (url: string): string {
  const u = new URL(url)
  if (u.password !== '') u.password = '***'
  return u.toString()
}

/**
 * The data: fixtures and scenarios checked against the API schemas (a file that could not be served
 * stops the start), then the partners from the data dir, or from the start scenario on a first start.
 */
async function storePlugin (fastify: FastifyInstance, opts: { config: Config, spans: Spans }): Promise<void> {
  const { config, spans } = opts
  const validator = lazyValidator(API_SCHEMAS)
  // the files this build already checked skip the schema and rule checks (seed/verified.ts)
  const verified = loadVerified()
  const reference = loadReference(validator, verified)
  const scenarios = new ScenarioLibrary(validator, reference, undefined, verified)
  const prebuilt = new Prebuilt()
  // the docs' examples build partner-a of the default scenario synchronously when the build did not (from the
  // sources, or an edited scenario file): faker must be loaded for that (seed/faker.ts)
  if (!prebuilt.has(scenarios.get(EXAMPLE_SCENARIO))) await loadFaker()
  if (!scenarios.has(config.scenario)) {
    throw new ConfigError(`invalid option --scenario / SANDBOX_SCENARIO = "${config.scenario}": expected one of ${scenarios.names().join(', ')}`)
  }
  const shared = config.redisUrl === undefined ? null : await connectShared(config, fastify.log, fastify.metrics)
  const files = config.dataDir === undefined ? undefined : new FilePersistence(config.dataDir, undefined, (message) => fastify.log.error(message), fastify.metrics, spans)
  const backend = shared === null ? new LocalBackend(files) : new RedisBackend(shared.client, shared.keys, fastify.log, fastify.metrics, spans, shared.guard)
  const { secrets, source } = await loadClientSecrets({
    configured: config.secretPepper,
    dataDir: config.dataDir,
    shared: shared === null ? undefined : { setIfAbsent: async (value) => await shared.client.set(shared.keys.secretPepper, value, 'NX'), get: async () => await shared.client.get(shared.keys.secretPepper) }
  })
  if (source === 'redis') fastify.log.warn('client secrets are hashed with a pepper kept in Redis: set SANDBOX_SECRET_PEPPER on every replica so that a copy of Redis cannot test guesses of a secret (docs/operations.md)')
  const world = new World(reference, { maxRecords: config.maxRecords, maxAgents: config.maxAgents }, CHANGES, backend, secrets)
  // the start scenario's test passwords hashed once, side by side in the thread pool, before its partners are built
  const passwords = new PasswordHashes()
  const prepared = passwords.prepare(scenarios.get(config.scenario).scenario.partners.flatMap((p) => (p.users ?? []).map((u) => u.password)))
  const control = new ScenarioControl(world, scenarios, { reference, validator, passwords }, { scenario: config.scenario, seed: config.seed, scenarioPartners: config.scenarioPartners === 'on', publishedSecrets: config.publishedSecrets === 'on' }, prebuilt)
  const saved = files === undefined ? [] : await files.loadAll((message) => fastify.log.warn(message))
  // partners kept before credentials were hashed: hashed as they are restored (World.putPartner), then written
  // again as a whole, so that no file of the data dir keeps a plain secret or password
  const migrated = saved.filter((s) => migrateCredentials(s, secrets)).map((s) => s.id)
  control.restore(saved)
  files?.adopt([...world.partners.values()].filter((p) => !migrated.includes(p.id)))
  for (const id of migrated) await files?.commit(world.partner(id)!)
  if (migrated.length > 0) fastify.log.info({ partners: migrated.length }, 'data dir: plain client secrets and passwords replaced by their hashes')
  // every partner of the start scenario on a first start; afterwards only those without a file
  await prepared
  await control.loadStart()

  fastify.decorate('world', world)
  fastify.decorate('repos', createRepos(world))
  fastify.decorate('control', control)
  fastify.decorate('scenarios', scenarios)
  fastify.decorate('prebuilt', prebuilt)
  fastify.decorate('reference', reference)
  fastify.decorate('dataValidator', validator)
  const snapshots: NamedSnapshotStore = shared === null ? new NamedSnapshots(config.dataDir) : new RedisNamedSnapshots(shared.client, shared.keys, shared.guard)
  fastify.decorate('snapshots', snapshots)
  control.whenDeleted(async (partnerId) => await snapshots.forget(partnerId))
  fastify.decorate('redis', shared === null ? null : { client: shared.client, bulk: shared.bulk, keys: shared.keys })
  // a replica that cannot reach the shared store can serve nothing: out of the load balancer until it can
  if (shared !== null) fastify.readiness.checks.push(async () => await shared.client.ping().then(() => true, () => false))
  // on close, every pending batch reaches the disk before the process may exit
  fastify.addHook('onClose', async () => {
    await world.close()
    await shared?.close()
  })
}

export default fp(storePlugin, { name: 'sandbox-store' })
