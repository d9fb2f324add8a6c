import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import type { FastifyBaseLogger } from 'fastify'
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis'
import { SandboxError } from '../../errors.js'
import type { Metrics } from '../../instruments/recorder.js'

/*
 * The connection to Redis (or Valkey) that replicas share their state through (SANDBOX_REDIS_URL). One
 * client per process, auto-pipelined: the commands of one event-loop turn leave in one write. While Redis
 * cannot be reached a command fails at once (no offline queue); a Redis that stops answering without closing
 * the connection (hung, paused, a network that drops packets) is found by a watchdog PING, and the connection
 * is dropped, failing every command waiting on it: a request then answers 503 with Retry-After within the
 * timeout, never hangs. The client reconnects by itself; service resumes without a restart.
 *
 * (ioredis's own commandTimeout would do the same per command, but its timer per command cost about 13 µs of
 * CPU each: a third of what a read costs in one process.)
 */

export type RedisClient = Redis | Cluster

export interface RedisSettings {
  url: string
  /** Path of a PEM file of the CAs a rediss:// server's certificate is checked against (SANDBOX_REDIS_CA); unset: Node's own. */
  ca?: string
  /** The URL names one node of a Redis Cluster (hash tags keep each partner's keys in one slot). */
  cluster: boolean
  /** Milliseconds a command may take before it fails (and its request answers 503). */
  commandTimeout: number
}

/** Seconds a client is told to wait (Retry-After) when the shared store cannot be reached. */
export const STORE_RETRY_AFTER_SECONDS = 1

const RECONNECT_MAX_MS = 1000

/**
 * TLS for rediss://: the server's certificate is always verified (its name against the URL's host), against
 * SANDBOX_REDIS_CA's CAs when set, for a Redis whose certificate a private CA signed.
 */
function tlsOptions (url: URL, ca: string | undefined): RedisOptions['tls'] {
  if (url.protocol !== 'rediss:') return undefined
  if (ca === undefined) return {}
  try {
    return { ca: readFileSync(ca) }
  } catch (err) {
    throw new Error(`cannot read SANDBOX_REDIS_CA (${ca}): ${(err as Error).message}`)
  }
}

function nodeOptions (url: URL, settings: RedisSettings): RedisOptions {
  const { commandTimeout } = settings
  return {
    username: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
    tls: tlsOptions(url, settings.ca),
    connectTimeout: Math.max(commandTimeout, 2000),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // a lost connection is tried again every few hundred ms, for ever: Redis restarting is not the end
    retryStrategy: (attempt) => Math.min(attempt * 100, RECONNECT_MAX_MS),
    enableAutoPipelining: true,
    lazyConnect: true
  }
}

/**
 * A client for the URL (redis:// or rediss://, user, password and database number in it); not connected yet.
 * ioredis is loaded here, at the first connection, not with the server: a sandbox without SANDBOX_REDIS_URL
 * never runs it, and its 260 KB of code stayed in every process's memory (the bundle's source is kept for the
 * life of the process, scripts/bundle.mjs).
 */
export async function redisClient (settings: RedisSettings): Promise<RedisClient> {
  // ioredis is CommonJS: its classes hang off module.exports, which is the default export wherever it is loaded
  // from (Node's loader finds named exports too; the bundle's chunk of it gives the default alone)
  const ioredis = (await import('ioredis')).default as unknown as { Cluster: typeof Cluster, Redis: typeof Redis }
  const url = new URL(settings.url)
  const options = nodeOptions(url, settings)
  if (!settings.cluster) return new ioredis.Redis(Number(url.port === '' ? 6379 : url.port), url.hostname, options)
  const { db: _db, ...redisOptions } = options
  const clusterOptions: ClusterOptions = {
    redisOptions,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    lazyConnect: true,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, RECONNECT_MAX_MS),
    // a moved slot or a failover is followed at once
    retryDelayOnMoved: 0,
    retryDelayOnFailover: 100
  }
  return new ioredis.Cluster([{ host: url.hostname, port: Number(url.port === '' ? 6379 : url.port) }], clusterOptions)
}

// how often the watchdog asks every connection for a PING
const WATCHDOG_MS = 250

/**
 * Drops a connection whose Redis has not answered a PING within `timeout` ms (every command waiting on it
 * fails; the client reconnects). Returns the function that stops the watchdog.
 */
export function watchdog (client: RedisClient, timeout: number, dropped: (node: string) => void): () => void {
  const pending = new Set<Redis>()
  const check = (node: Redis): void => {
    if (node.status !== 'ready' || pending.has(node)) return
    pending.add(node)
    const timer = setTimeout(() => {
      dropped(`${node.options.host ?? ''}:${node.options.port ?? ''}`)
      node.disconnect(true)
    }, timeout)
    node.ping().catch(() => {}).finally(() => {
      clearTimeout(timer)
      pending.delete(node)
    })
  }
  const every = setInterval(() => {
    for (const node of client.isCluster ? (client as Cluster).nodes() : [client as Redis]) check(node)
  }, WATCHDOG_MS)
  every.unref()
  return () => clearInterval(every)
}

/** A command as ioredis sends it. */
interface SentCommand { name: string, args: unknown[], promise: Promise<unknown> }

/**
 * Times every command the client sends, to its answer or failure (sandbox_redis_command_duration_seconds,
 * sandbox_redis_errors_total). A script (EVALSHA) is named by the name it was defined with (sandboxSync ...).
 * Nothing is wrapped while the metrics are off.
 */
export function observeCommands (client: RedisClient, metrics: Metrics): void {
  if (!metrics.on) return
  const scripts = client as unknown as { scriptsSet: Record<string, { sha: string }> }
  const names = new Map<string, string>()
  const scriptName = (sha: unknown): string => {
    if (!names.has(String(sha))) for (const [name, script] of Object.entries(scripts.scriptsSet ?? {})) names.set(script.sha, name)
    return names.get(String(sha)) ?? 'evalsha'
  }
  const target = client as unknown as { sendCommand: (command: SentCommand, ...rest: unknown[]) => unknown }
  const send = target.sendCommand.bind(client)
  target.sendCommand = (command, ...rest) => {
    const start = performance.now()
    const name = command.name === 'evalsha' ? scriptName(command.args[0]) : command.name
    const seconds = (): number => (performance.now() - start) / 1000
    command.promise.then(() => metrics.redisCommand(name, seconds(), false), () => metrics.redisCommand(name, seconds(), true))
    return send(command, ...rest)
  }
}

/** Whether the client can take commands now (a connection up and, for a cluster, its slots known). */
export function connected (client: RedisClient): boolean {
  return client.status === 'ready'
}

/** The 503 of a request whose state could not be read or written (the cause is logged, never sent). */
export function storeUnavailable (): SandboxError {
  return new SandboxError('SANDBOX_ERR_STORE_UNAVAILABLE',
    `The sandbox's shared store (Redis) cannot be reached; retry after ${STORE_RETRY_AFTER_SECONDS} second${STORE_RETRY_AFTER_SECONDS === 1 ? '' : 's'}`,
    [], { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) })
}

/** The 507 of a write refused because Redis is (nearly) full: by the memory guard, or by Redis itself. */
export function storeFull (): SandboxError {
  return new SandboxError('SANDBOX_ERR_STORE_FULL',
    "The sandbox's shared store (Redis) is full: nothing was changed; writes are refused until the operator makes room (reads are still served)")
}

/** What refuses partners' writes while the store is nearly full (memory-guard.ts): check throws the 507. */
export interface WriteGuard { check: () => void }
export const NO_GUARD: WriteGuard = { check: () => {} }

/** Redis's answer to a write under maxmemory with the noeviction policy ("OOM command not allowed when used memory > 'maxmemory'"). */
const isOutOfMemory = (err: unknown): boolean => err instanceof Error && err.message.startsWith('OOM ')

/** The error a caller sees for a failed Redis command: a SandboxError stays as it is, Redis out of memory is the 507, anything else the 503. */
export function asStoreError (err: unknown): Error {
  if (err instanceof SandboxError) return err
  return isOutOfMemory(err) ? storeFull() : storeUnavailable()
}

/** A background writer's outage (journal, advisor): logged once when it begins and once when it ends, not for every request meanwhile. */
export class OutageLog {
  private down = false

  constructor (private readonly log: Pick<FastifyBaseLogger, 'error' | 'info'>, private readonly lost: string, private readonly back: string) {}

  readonly failed = (err: unknown): void => {
    if (this.down) return
    this.down = true
    this.log.error({ err }, this.lost)
  }

  reached (): void {
    if (!this.down) return
    this.down = false
    this.log.info(this.back)
  }
}

/**
 * What a replica sends Redis per partner after each answer (journal entries, advisor digests), gathered over
 * one event-loop turn and sent at its end, one call per partner: a command per request cost more CPU than the
 * requests' bytes.
 */
export class TurnBatches<B> {
  private readonly pending = new Map<string, B>()

  constructor (private readonly create: () => B, private readonly send: (partnerId: string, batch: B) => void) {}

  /** The partner's batch of this turn: made at its first item, sent at the turn's end. */
  of (partnerId: string): B {
    let batch = this.pending.get(partnerId)
    if (batch === undefined) {
      this.pending.set(partnerId, batch = this.create())
      if (this.pending.size === 1) setImmediate(this.flush)
    }
    return batch
  }

  /** A deleted partner: what it had waiting goes. */
  drop (partnerId: string): void {
    this.pending.delete(partnerId)
  }

  private readonly flush = (): void => {
    for (const [partnerId, batch] of this.pending) this.send(partnerId, batch)
    this.pending.clear()
  }
}
