/*
 * The shape of what a partner's access tokens may no longer do (Partner.tokens), below the partner and its
 * records, which carry it; store/tokens.ts has the changes and the checks that use it.
 */

/** The 401's reason for a token past its exp, or issued before the partner expired its tokens. */
export const TOKEN_EXPIRED = 'the access token expired'

/**
 * Revoked tokens by id until they expire, and cut-offs by issue time: an access token issued (iat) before
 * revokedBefore is refused as revoked, one issued before expiredBefore as expired (POST /__sandbox/tokens/expire),
 * and a refresh token issued before refreshExpiredBefore as no longer active.
 */
export interface PartnerTokenState {
  /** jti -> exp (epoch seconds) of revoked access tokens that have not expired yet. */
  revoked: Record<string, number>
  /** Epoch seconds: every token issued before is refused as revoked (see MAX_REVOKED in store/tokens.ts). */
  revokedBefore?: number
  /** Epoch seconds: every access token issued before is refused as expired. */
  expiredBefore?: number
  /** Epoch seconds: every refresh token issued before is refused as expired (the client must sign in again). */
  refreshExpiredBefore?: number
}

export function initialTokenState (): PartnerTokenState {
  return { revoked: {} }
}

/** Whether there is anything to keep (a partner without it has no tokens field in its file). */
export function hasTokenState (s: PartnerTokenState): boolean {
  return s.revokedBefore !== undefined || s.expiredBefore !== undefined || s.refreshExpiredBefore !== undefined || Object.keys(s.revoked).length > 0
}
