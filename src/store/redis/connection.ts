import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis'
import { SandboxError } from '../../errors.js'

/*
 * The connection to Redis (or Valkey) that replicas share their state through (SANDBOX_REDIS_URL). One
 * client per process, auto-pipelined: the commands of one event-loop turn leave in one write. While Redis
 * cannot be reached a command fails at once (no offline queue), and one that gets no answer fails after
 * commandTimeout: a request then answers 503 with Retry-After in bounded time, never hangs. The client
 * reconnects by itself; service resumes without a restart.
 */

export type RedisClient = Redis | Cluster

export interface RedisSettings {
  url: string
  /** The URL names one node of a Redis Cluster (hash tags keep each partner's keys in one slot). */
  cluster: boolean
  /** Milliseconds a command may take before it fails (and its request answers 503). */
  commandTimeout: number
}

/** Seconds a client is told to wait (Retry-After) when the shared store cannot be reached. */
export const STORE_RETRY_AFTER_SECONDS = 1

const RECONNECT_MAX_MS = 1000

function nodeOptions (url: URL, commandTimeout: number): RedisOptions {
  return {
    username: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    commandTimeout,
    connectTimeout: Math.max(commandTimeout, 2000),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // a lost connection is tried again every few hundred ms, for ever: Redis restarting is not the end
    retryStrategy: (attempt) => Math.min(attempt * 100, RECONNECT_MAX_MS),
    enableAutoPipelining: true,
    lazyConnect: true
  }
}

/** A client for the URL (redis:// or rediss://, user, password and database number in it); not connected yet. */
export function redisClient (settings: RedisSettings): RedisClient {
  const url = new URL(settings.url)
  const options = nodeOptions(url, settings.commandTimeout)
  if (!settings.cluster) return new Redis(Number(url.port === '' ? 6379 : url.port), url.hostname, options)
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
  return new Cluster([{ host: url.hostname, port: Number(url.port === '' ? 6379 : url.port) }], clusterOptions)
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

/** The error a caller sees for a failed Redis command: a SandboxError stays as it is, anything else is the 503. */
export function asStoreError (err: unknown): Error {
  return err instanceof SandboxError ? err : storeUnavailable()
}
