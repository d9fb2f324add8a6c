import type { ClientSecrets } from './credentials.js'
import type { Partner } from './partner.js'
import type { ChangeContext } from './world.js'

/*
 * A partner's client credentials as the operator manages them (POST /__sandbox/admin/partners/{clientId}/secret,
 * .../suspend, .../resume): the changes that travel between replicas, the check of a secret against them, and
 * the migration of partners kept before secrets were hashed.
 */

/** Whether the secret is the partner's (or, until the overlap of a rotation ends, its previous one). Both are compared, in constant time. */
export function clientSecretAccepted (secrets: ClientSecrets, partner: Partner, secret: string, now = Date.now()): boolean {
  const current = secrets.verify(partner.secretHash, secret)
  // (no second hash while no rotation overlaps: whether one does is no secret)
  const previous = partner.previousSecretHash !== undefined && (partner.previousSecretUntil ?? 0) > now && secrets.verify(partner.previousSecretHash, secret)
  return current || previous
}

export const credentialChanges = {
  /**
   * A new client secret (its hash). With overlapUntil (epoch ms) the current one is still accepted until then
   * (an earlier overlap ends: only the secret just replaced overlaps); without, it stops working at once.
   */
  'partners.secret' ({ partner, at }: ChangeContext, a: { secretHash: string, overlapUntil?: number }): null {
    const overlaps = a.overlapUntil !== undefined && a.overlapUntil > at
    partner.previousSecretHash = overlaps ? partner.secretHash : undefined
    partner.previousSecretUntil = overlaps ? a.overlapUntil : undefined
    partner.secretHash = a.secretHash
    return null
  },

  /** Suspended (true) or resumed (false): nothing else of the partner changes. */
  'partners.suspend' ({ partner }: ChangeContext, a: { suspended: boolean }): null {
    partner.suspended = a.suspended
    return null
  }
}
