import type { Result } from 'ioredis'
import type { CounterSubject, LockKey, LockoutStore, WindowCount, WindowCounter } from '../counters.js'
import { asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'

/*
 * The limits' counters in Redis (store/counters.ts), shared by every replica: one script call per counted
 * request, on one key (a partner's keys carry its hash tag; a lock and its failures share it). A counter Redis
 * cannot be asked about answers 503 SANDBOX_ERR_STORE_UNAVAILABLE (with Retry-After): a limit never lets
 * requests through unchecked, as the rest of the sandbox does not serve what it cannot read.
 */

/** One hit: the window's count and its milliseconds left. KEYS: the counter. ARGV: the window in ms. */
const HIT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`

/**
 * A failure: counted unless locked; the ARGV[1]-th in a row locks for ARGV[2] ms. A count without a failure for
 * ARGV[3] ms is forgotten. KEYS: failures, lock.
 */
const FAILED = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local n = redis.call('INCR', KEYS[1])
if n >= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
  return 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 0
`

// Keycloak's "failure reset time" default: failures in a row older than this are forgotten (Redis keeps no key for ever)
const FAILURES_KEPT_MS = 12 * 3600 * 1000

declare module 'ioredis' {
  interface RedisCommander<Context> {
    sandboxHit: (counter: string, windowMs: number) => Result<[number, number], Context>
    sandboxFailed: (failures: string, lock: string, maxFailures: number, lockMs: number, keptMs: number) => Result<number, Context>
  }
}

function defineCounterScripts (client: RedisClient): void {
  if (typeof (client as { sandboxHit?: unknown }).sandboxHit === 'function') return
  client.defineCommand('sandboxHit', { numberOfKeys: 1, lua: HIT })
  client.defineCommand('sandboxFailed', { numberOfKeys: 2, lua: FAILED })
}

function counterKey (keys: RedisKeys, subject: CounterSubject, name: string): string {
  return subject.startsWith('partner:') ? keys.counter(subject.slice(8), name) : keys.addressCounter(subject.slice(3), name)
}

export class RedisWindowCounter implements WindowCounter {
  constructor (private readonly client: RedisClient, private readonly keys: RedisKeys) {
    defineCounterScripts(client)
  }

  async hit (subject: CounterSubject, name: string, windowMs: number): Promise<WindowCount> {
    try {
      const [count, ttlMs] = await this.client.sandboxHit(counterKey(this.keys, subject, name), windowMs)
      return { count, ttlMs }
    } catch (err) {
      throw asStoreError(err)
    }
  }
}

export class RedisLockouts implements LockoutStore {
  constructor (private readonly client: RedisClient, private readonly keys: RedisKeys) {
    defineCounterScripts(client)
  }

  private key (key: LockKey, name: string): string {
    return 'address' in key ? this.keys.addressCounter(key.address, name) : this.keys.counter(key.partnerId, name)
  }

  private lockKey (key: LockKey): string { return this.key(key, `lock:${key.name}`) }
  private failuresKey (key: LockKey): string { return this.key(key, `failures:${key.name}`) }

  async isLocked (key: LockKey): Promise<boolean> {
    try {
      return await this.client.exists(this.lockKey(key)) === 1
    } catch (err) {
      throw asStoreError(err)
    }
  }

  async failed (key: LockKey, maxFailures: number, lockMs: number): Promise<boolean> {
    try {
      return await this.client.sandboxFailed(this.failuresKey(key), this.lockKey(key), maxFailures, lockMs, Math.max(FAILURES_KEPT_MS, lockMs)) === 1
    } catch (err) {
      throw asStoreError(err)
    }
  }

  async succeeded (key: LockKey): Promise<void> {
    try {
      await this.client.del(this.failuresKey(key))
    } catch (err) {
      throw asStoreError(err)
    }
  }
}
