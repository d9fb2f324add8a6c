import { MemoryLockouts, type LockKey, type LockoutStore } from '../store/counters.js'

/**
 * Brute-force protection as Keycloak's brute force detection does it when a realm turns it on (temporary
 * lockout): after `failures` wrong secrets or passwords in a row for one client or user, that client or
 * user is refused for `seconds`, the right secret included; a success resets the count. Keycloak answers
 * a locked account exactly as a wrong password, so nothing tells an attacker the lock is on.
 * Off when failures is 0. Counted in this process (a restart unlocks everyone, as a Keycloak restart without
 * a database would), or in Redis for every replica at once (store/redis/counters.ts).
 */
export class Lockout {
  /** `locked`: told of each lock as it begins (the metrics' sandbox_lockouts_total). */
  constructor (private readonly maxFailures: number, private readonly seconds: number, private readonly store: LockoutStore = new MemoryLockouts(), private readonly locked: () => void = () => {}) {}

  get enabled (): boolean {
    return this.maxFailures > 0 && this.seconds > 0
  }

  isLocked (key: LockKey): boolean | Promise<boolean> {
    return this.enabled && this.store.isLocked(key)
  }

  /** A wrong secret or password; failures while locked do not extend the lock. */
  failed (key: LockKey): void | Promise<void> {
    if (!this.enabled) return
    const locked = this.store.failed(key, this.maxFailures, this.seconds * 1000)
    if (locked === true) return this.locked()
    if (locked instanceof Promise) return locked.then((now) => { if (now) this.locked() })
  }

  succeeded (key: LockKey): void | Promise<void> {
    if (this.enabled) return this.store.succeeded(key)
  }
}

export const clientKey = (clientId: string): LockKey => ({ partnerId: clientId, name: 'client' })
export const userKey = (partnerId: string, username: string): LockKey => ({ partnerId, name: `user:${username}` })
