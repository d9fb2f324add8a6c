/*
 * The counters of a hosted sandbox's limits: token requests per second (auth/token-rate-limit.ts), requests
 * per second (plugins/rate-limit.ts, whose in-process store is @fastify/rate-limit's own) and the lockout's
 * failures in a row (auth/lockout.ts). Kept in this process, or in Redis (store/redis/counters.ts) so that a
 * limit holds across every replica: N per second for a partner, whichever replicas serve it.
 */

/** Whom a counter counts: a partner (its Redis keys carry its hash tag) or a client address. */
export type CounterSubject = `partner:${string}` | `ip:${string}`

/** One hit counted: the hits of the current window so far, and the milliseconds until it ends. */
export interface WindowCount { count: number, ttlMs: number }

/** Hits in fixed windows, per subject and counter name. */
export interface WindowCounter {
  hit: (subject: CounterSubject, name: string, windowMs: number) => WindowCount | Promise<WindowCount>
}

/** A lockout's subject: a client or a user, under the partner (or client id) it belongs to; or a client address. */
export type LockKey = { partnerId: string, name: string } | { address: string, name: string }

/** Failures in a row and locks (the policy, when to count and how long to lock, is the Lockout's). */
export interface LockoutStore {
  isLocked: (key: LockKey) => boolean | Promise<boolean>
  /** Counts a failure, unless locked; the maxFailures-th in a row locks for lockMs (and starts the count again): true then. */
  failed: (key: LockKey, maxFailures: number, lockMs: number) => boolean | Promise<boolean>
  /** A success: the failures in a row start again. */
  succeeded: (key: LockKey) => void | Promise<void>
}

/** Windows aligned on multiples of their length; one map per window, so memory is bounded by the subjects of one window. */
export class MemoryWindowCounter implements WindowCounter {
  private window = 0
  private readonly counts = new Map<string, number>()

  hit (subject: CounterSubject, name: string, windowMs: number, now = Date.now()): WindowCount {
    const window = Math.floor(now / windowMs)
    if (window !== this.window) {
      this.window = window
      this.counts.clear()
    }
    const key = `${name}\u0000${subject}`
    const count = (this.counts.get(key) ?? 0) + 1
    this.counts.set(key, count)
    return { count, ttlMs: (window + 1) * windowMs - now }
  }
}

const lockKeyText = (key: LockKey): string => 'address' in key ? `a\u0000${key.address}\u0000${key.name}` : `p\u0000${key.partnerId}\u0000${key.name}`

// failures in a row kept in memory: past this many subjects the one whose last failure is oldest is forgotten
// (addresses are the attacker's to choose: an IPv6 network has more than any memory)
const MAX_COUNTED = 100_000

/** Kept in memory: a restart unlocks everyone, as a Keycloak restart without a database would. */
export class MemoryLockouts implements LockoutStore {
  private readonly failures = new Map<string, number>()
  private readonly lockedUntil = new Map<string, number>()

  isLocked (key: LockKey): boolean {
    return this.locked(lockKeyText(key))
  }

  private locked (k: string): boolean {
    const until = this.lockedUntil.get(k)
    if (until === undefined) return false
    if (until > Date.now()) return true
    this.lockedUntil.delete(k)
    return false
  }

  failed (key: LockKey, maxFailures: number, lockMs: number): boolean {
    const k = lockKeyText(key)
    if (this.locked(k)) return false
    const count = (this.failures.get(k) ?? 0) + 1
    // (deleted first: a Map keeps insertion order, so the first key is the one failed longest ago)
    this.failures.delete(k)
    if (count < maxFailures) {
      this.failures.set(k, count)
      if (this.failures.size > MAX_COUNTED) this.failures.delete(this.failures.keys().next().value!)
      return false
    }
    this.lockedUntil.set(k, Date.now() + lockMs)
    // bounded: entries of long-gone locks are dropped when the map grows
    if (this.lockedUntil.size > 10_000) for (const old of this.lockedUntil.keys()) this.locked(old)
    return true
  }

  succeeded (key: LockKey): void {
    this.failures.delete(lockKeyText(key))
  }
}
