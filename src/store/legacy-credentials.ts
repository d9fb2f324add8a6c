import { hashPasswordSync, type ClientSecrets } from './credentials.js'
import type { PartnerSnapshot, TestUser } from './records.js'

// (a room of its own, below world.ts, which migrates every partner it takes in: partner-credentials.ts, the
// changes of a partner's credentials, is above world.ts, whose change context it takes)

/** Partner files and states written before credentials were hashed: the plain values they may carry. */
type LegacySnapshot = Omit<PartnerSnapshot, 'secretHash' | 'users'> & { secretHash?: string, secret?: string, users: Array<Partial<TestUser> & { password?: string }> }

/**
 * Replaces the plain client secret and passwords of a partner kept before they were hashed by their hashes, in
 * place; true when there was anything to replace (the caller then writes the partner again, so that no copy
 * of the plain values stays behind).
 */
export function migrateCredentials (snapshot: PartnerSnapshot, secrets: ClientSecrets): boolean {
  const legacy = snapshot as unknown as LegacySnapshot
  let changed = false
  if (typeof legacy.secret === 'string') {
    legacy.secretHash ??= secrets.hash(legacy.secret)
    delete legacy.secret
    changed = true
  }
  for (const user of legacy.users) {
    if (typeof user.password !== 'string') continue
    user.passwordHash ??= hashPasswordSync(user.password)
    delete user.password
    changed = true
  }
  return changed
}
