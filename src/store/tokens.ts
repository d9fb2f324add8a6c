import { SandboxError } from '../errors.js'
import type { Partner } from './partner.js'
import { TOKEN_EXPIRED, type PartnerTokenState } from './token-state.js'
import type { ChangeContext, World } from './world.js'

/*
 * What a partner's access tokens may no longer do, kept with the partner (Partner.tokens): so that a token
 * revoked on one replica is refused by every replica at once (each brings the partner up to date before it
 * accepts a token: plugins/auth.ts), a data dir keeps revocations over a restart, and no reset, restore or
 * snapshot restore brings a revoked token back (partners.replace carries this state over). The snapshot
 * document (GET /__sandbox/snapshot) does not include it: it is not part of the partner's data.
 */

/**
 * The most revoked tokens a partner keeps by id (each until it expires). A revocation past it revokes every
 * token of the partner issued until then instead (a cut-off replaces the list): a revoked token stays refused,
 * and the partner's state stays small (it travels with every snapshot of the partner).
 */
export const MAX_REVOKED = 10_000

const REVOKED = 'the access token was revoked'
/** Why every token of a suspended partner is refused (POST /__sandbox/admin/partners/{clientId}/suspend). */
export const SUSPENDED = "the client of the access token is suspended by the sandbox's operator"

/** The state without the revocations of tokens expired by `now` (epoch seconds); the cut-offs stay. */
function pruned (s: PartnerTokenState, now: number): PartnerTokenState {
  const revoked: Record<string, number> = {}
  for (const [jti, exp] of Object.entries(s.revoked)) if (exp > now) revoked[jti] = exp
  return { ...s, revoked }
}

/** Why the partner refuses a verified access token (the 401's reason), or undefined: it is accepted. */
export function tokenRefusal (partner: Partner | undefined, claims: { jti: string, iat: number }): string | undefined {
  if (partner === undefined) return 'the client of the access token no longer exists'
  if (partner.suspended) return SUSPENDED
  const s = partner.tokens
  if (s.revokedBefore !== undefined && claims.iat < s.revokedBefore) return REVOKED
  if (Object.hasOwn(s.revoked, claims.jti)) return REVOKED
  return s.expiredBefore !== undefined && claims.iat < s.expiredBefore ? TOKEN_EXPIRED : undefined
}

/** Whether the partner refuses a refresh token issued at iat (epoch seconds) as expired. */
export function refreshExpired (partner: Partner | undefined, iat: number): boolean {
  const before = partner?.tokens.refreshExpiredBefore
  return before !== undefined && iat < before
}

export interface RevokedToken { jti: string, exp: number }

export const tokenChanges = {
  /** Access tokens of the partner revoked (their ids, with their expiry: kept until then). */
  'tokens.revoke' ({ partner, at }: ChangeContext, a: { tokens: RevokedToken[] }): null {
    const now = Math.floor(at / 1000)
    const next = pruned(partner.tokens, now)
    for (const t of a.tokens) if (t.exp > now) next.revoked[t.jti] = t.exp
    if (Object.keys(next.revoked).length > MAX_REVOKED) {
      // (tokens issued in this second are refused too: iat has whole seconds)
      partner.tokens = { ...next, revoked: {}, revokedBefore: now + 1 }
      return null
    }
    partner.tokens = next
    return null
  },

  /**
   * Every access token of the partner issued before `before` (epoch seconds) expired, and with refresh its
   * refresh tokens too. A later cut-off replaces an earlier one (tokens issued before it are all refused).
   */
  'tokens.expire' ({ partner, at }: ChangeContext, a: { before: number, refresh: boolean }): null {
    const next = pruned(partner.tokens, Math.floor(at / 1000))
    next.expiredBefore = Math.max(next.expiredBefore ?? 0, a.before)
    if (a.refresh) next.refreshExpiredBefore = Math.max(next.refreshExpiredBefore ?? 0, a.before)
    partner.tokens = next
    return null
  }
}

/** The token state a partner's replacement (reset, restore) takes over from the partner it replaces. */
export function carriedTokenState (partner: Partner, at: number): PartnerTokenState {
  return pruned(partner.tokens, Math.floor(at / 1000))
}

/**
 * Revokes access tokens of a partner for every replica; a partner that is gone has nothing to revoke (its
 * tokens are refused already).
 */
export async function revokeTokens (world: World, partnerId: string, tokens: RevokedToken[]): Promise<void> {
  if (tokens.length === 0) return
  try {
    await world.perform(partnerId, 'tokens.revoke', { tokens })
  } catch (err) {
    if (!(err instanceof SandboxError && err.code === 'SANDBOX_ERR_NOT_FOUND')) throw err
  }
}
