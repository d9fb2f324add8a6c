/**
 * Brute-force protection as Keycloak's brute force detection does it when a realm turns it on (temporary
 * lockout): after `failures` wrong secrets or passwords in a row for one client or user, that client or
 * user is refused for `seconds`, the right secret included; a success resets the count. Keycloak answers
 * a locked account exactly as a wrong password, so nothing tells an attacker the lock is on.
 * Off when failures is 0. Kept in memory: a restart unlocks everyone, as a Keycloak restart without a
 * database would.
 */
export class Lockout {
  private readonly failures = new Map<string, number>()
  private readonly lockedUntil = new Map<string, number>()

  constructor (private readonly maxFailures: number, private readonly seconds: number) {}

  get enabled (): boolean {
    return this.maxFailures > 0 && this.seconds > 0
  }

  isLocked (key: string): boolean {
    const until = this.lockedUntil.get(key)
    if (until === undefined) return false
    if (until > Date.now()) return true
    this.lockedUntil.delete(key)
    return false
  }

  /** A wrong secret or password; failures while locked do not extend the lock. */
  failed (key: string): void {
    if (!this.enabled || this.isLocked(key)) return
    const count = (this.failures.get(key) ?? 0) + 1
    if (count < this.maxFailures) {
      this.failures.set(key, count)
      return
    }
    this.failures.delete(key)
    this.lockedUntil.set(key, Date.now() + this.seconds * 1000)
    // bounded: entries of long-gone locks are dropped when the map grows
    if (this.lockedUntil.size > 10_000) for (const k of this.lockedUntil.keys()) this.isLocked(k)
  }

  succeeded (key: string): void {
    this.failures.delete(key)
  }
}

export const clientKey = (clientId: string): string => `client\u0000${clientId}`
export const userKey = (clientId: string, username: string): string => `user\u0000${clientId}\u0000${username}`
