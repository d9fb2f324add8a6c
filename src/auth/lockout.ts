import { MemoryLockouts, type LockKey, type LockoutStore } from '../store/counters.js'

/** What a secret check through the guard came to: `locked` when it was refused without looking at the secret. */
export type Verdict = 'ok' | 'wrong' | 'locked'

/**
 * The guard every secret check goes through (design.md, "Facing the internet"): the token endpoint's clients
 * and users, the partner console's sign-in (the client's count), the operator token per source address.
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

  /** Seconds a lock lasts (a locked caller's Retry-After). */
  get lockSeconds (): number {
    return this.seconds
  }

  /**
   * One secret check through the guard: while the key is locked `verify` is not asked (the right secret is
   * refused too); otherwise its answer is counted. However the secret is verified (as it is stored: plain,
   * hashed) is the caller's; a caller answers `wrong` and `locked` alike unless the lock may be told.
   */
  async attempt (key: LockKey, verify: () => boolean | Promise<boolean>): Promise<Verdict> {
    if (await this.isLocked(key)) return 'locked'
    if (await verify()) {
      await this.succeeded(key)
      return 'ok'
    }
    await this.failed(key)
    return 'wrong'
  }
}

export const clientKey = (clientId: string): LockKey => ({ partnerId: clientId, name: 'client' })
export const userKey = (partnerId: string, username: string): LockKey => ({ partnerId, name: `user:${username}` })
/** A source address's failures with one secret (the operator token), whoever it claims to be. */
export const addressKey = (address: string, secret: string): LockKey => ({ address, name: secret })
