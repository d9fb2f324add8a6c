import { createHash, createHmac, randomUUID } from 'node:crypto'
import { importJWK, jwtVerify, SignJWT, decodeJwt, decodeProtectedHeader, type JWK, type JWTPayload, type KeyObject } from 'jose'
import type { SigningKeys } from './keys.js'

/**
 * Keycloak's token shapes (Keycloak 26, default realm settings), which oidc-provider does not produce on
 * its own: JOSE header typ "JWT", a typ claim in every token (Bearer, ID, Refresh), sid, acr and
 * Keycloak's role claims, and refresh tokens that are HS512 JWTs. test/fixtures/keycloak-tokens.json
 * holds real Keycloak tokens these are compared with.
 */

/** Keycloak's default roles of the built-in "account" client, present in every user token. */
export const ACCOUNT_ROLES = ['manage-account', 'manage-account-links', 'view-profile']

/** Keycloak's session ids are UUIDs; ours derive from the grant, so every token of one sign-in shares one. */
export function sessionId (grantId: string): string {
  const h = createHash('sha256').update(`sid\u0000${grantId}`).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** Keycloak's default client scopes profile and email apply whether a client asks for them or not. */
export function keycloakScope (scope: string | undefined): string {
  return [...new Set([...(scope ?? '').split(' ').filter(Boolean), 'profile', 'email'])].join(' ')
}

/** OIDC core 3.1.3.6: the left half of the SHA-256 of the access token, base64url. */
export function atHash (accessToken: string): string {
  return createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url')
}

export interface RefreshClaims {
  /** The provider's (opaque) refresh token this JWT stands for. */
  handle: string
  exp: number
  sub: string
  azp: string
  sid: string
  scope: string
}

/** The claim of our refresh JWTs that carries the provider's refresh token (Keycloak has no such claim: it finds the session by sid). */
const HANDLE_CLAIM = 'sandbox_refresh_handle'

interface HmacKey { kid: string, key: Uint8Array }

/** The HS512 key of refresh tokens, derived from a signing key (so it rotates with it), with its Keycloak-style UUID kid. */
function hmacKeyOf (privateJwk: JWK): HmacKey {
  const key = createHmac('sha512', 'keycloak-refresh-token').update(String(privateJwk.d)).digest()
  const h = createHash('sha256').update(key).digest('hex')
  return { kid: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`, key }
}

/**
 * ID tokens re-signed in Keycloak's shape, and refresh tokens as HS512 JWTs (as Keycloak signs them) that
 * carry the provider's refresh token: the JWT is the only form a client ever sees. Like Keycloak, every
 * answer with a refresh token has a new one (its own jti and iat); all of one sign-in stand for the same
 * provider refresh token, so an earlier one keeps working (Keycloak's default, "Revoke Refresh Token" off)
 * and revocation or logout ends them all. Refresh tokens are signed with the current signing key's HMAC key
 * and accepted with that of any listed key.
 */
export class KeycloakTokens {
  private privateKey: KeyObject | Uint8Array | undefined
  /** The current key's first. */
  private readonly hmacKeys: HmacKey[]

  constructor (private readonly keys: SigningKeys, readonly issuer: string) {
    this.hmacKeys = keys.accepted.map((k) => hmacKeyOf(k.privateJwk))
  }

  async refreshToken (c: RefreshClaims): Promise<string> {
    const now = Math.floor(Date.now() / 1000)
    return await new SignJWT({ exp: c.exp, iat: now, jti: randomUUID(), iss: this.issuer, aud: this.issuer, sub: c.sub, typ: 'Refresh', azp: c.azp, sid: c.sid, scope: c.scope, [HANDLE_CLAIM]: c.handle })
      .setProtectedHeader({ alg: 'HS512', typ: 'JWT', kid: this.hmacKeys[0].kid })
      .sign(this.hmacKeys[0].key)
  }

  /**
   * What one of our refresh JWTs carries (signature and typ checked, expiry not: the provider answers that):
   * the provider's refresh token, when the JWT was issued and to which client; else undefined.
   */
  async refreshClaims (token: unknown): Promise<{ handle: string, iat: number, azp: string } | undefined> {
    if (typeof token !== 'string' || token.split('.').length !== 3) return undefined
    try {
      const { kid } = decodeProtectedHeader(token)
      const hmac = this.hmacKeys.find((k) => k.kid === kid)
      if (hmac === undefined) return undefined
      const { payload } = await jwtVerify(token, hmac.key, { algorithms: ['HS512'], issuer: this.issuer, typ: 'JWT', currentDate: new Date(0) })
      const handle = payload[HANDLE_CLAIM]
      return payload.typ === 'Refresh' && typeof handle === 'string' ? { handle, iat: Number(payload.iat), azp: String(payload.azp) } : undefined
    } catch {
      return undefined
    }
  }

  /** The provider's refresh token inside one of our refresh JWTs, else undefined. */
  async refreshHandle (token: unknown): Promise<string | undefined> {
    return (await this.refreshClaims(token))?.handle
  }

  /** The provider's ID token, signed again with Keycloak's header and claims (typ ID, azp, sid, at_hash, acr). */
  async idToken (providerIdToken: string, extra: { sid?: string, accessToken?: string }): Promise<string> {
    this.privateKey ??= await importJWK(this.keys.privateJwk, 'RS256')
    const p = decodeJwt(providerIdToken)
    const { exp, iat, iss, aud, sub, nonce, ...claims } = p
    // the provider adds auth_time only when asked to; Keycloak always does (the access token has it)
    const authTime = p.auth_time ?? (extra.accessToken === undefined ? undefined : decodeJwt(extra.accessToken).auth_time)
    delete claims.auth_time
    delete claims.jti
    delete claims.azp
    delete claims.at_hash
    delete claims.acr
    delete claims.sid
    const payload: JWTPayload = {
      exp,
      iat,
      auth_time: authTime,
      jti: randomUUID(),
      iss,
      aud,
      sub,
      typ: 'ID',
      azp: Array.isArray(aud) ? aud[0] : aud,
      nonce,
      sid: extra.sid,
      at_hash: extra.accessToken === undefined ? undefined : atHash(extra.accessToken),
      acr: '1',
      ...claims
    }
    return await new SignJWT(JSON.parse(JSON.stringify(payload)) as JWTPayload)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.keys.privateJwk.kid })
      .sign(this.privateKey)
  }
}
