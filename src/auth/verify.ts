import { createLocalJWKSet, jwtVerify, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose'
import { TOKEN_EXPIRED } from '../store/token-state.js'

/** What the API needs to know of a verified access token. */
export interface AccessClaims {
  jti: string
  /** Issued at (epoch seconds): a partner's cut-off (store/tokens.ts) compares it. */
  iat: number
  exp: number
  /** The OAuth client (partner) the token was issued to. */
  clientId: string
  /** The test user, for tokens issued through a login (authorization code, password, refresh). */
  username?: string
  agentIds: string[]
  scope: string
  payload: JWTPayload
}

export class TokenError extends Error {
  constructor (readonly reason: string) {
    super(reason)
    this.name = 'TokenError'
  }
}

/** Why an expired access token is refused: a partner's expiry control (store/tokens.ts) says the same, as a client cannot tell them apart. */

const CACHE_LIMIT = 10_000
// how long after its expiry a token is still recognised as ours (jose needs a finite tolerance): ten years
const EXPIRED_LONG_AGO = 10 * 365 * 24 * 3600

/**
 * Cache key: the tail of the signature. Hashing a whole 1 KB token on every request was a measurable
 * share of a request's cost; the entry keeps the full token, compared before the claims are used.
 */
const keyOf = (token: string): string => token.slice(-32)

interface Cached { token: string, claims: AccessClaims }

/**
 * Local verification of the provider's access tokens (no network hop): RS256 signature with one of the
 * provider's public keys (chosen by the token's kid: every key of SANDBOX_SIGNING_KEYS), issuer, audience,
 * expiry, header typ "JWT" and Keycloak's typ claim "Bearer", which rejects ID tokens (typ ID), refresh tokens
 * (HS512, typ Refresh), "alg: none" and HS256 look-alikes. A verified token is cached (whole text compared)
 * until it expires, so the hot path costs a map lookup. Revocations are the partner's state
 * (store/tokens.ts), checked where the partner is at hand (plugins/auth.ts).
 */
export class TokenVerifier {
  /** The public keys; until the sandbox's generated key is made, undefined (verify() waits for keysReady). */
  private keys: JWTVerifyGetKey | undefined
  private readonly keysReady: Promise<JWTVerifyGetKey>
  private readonly cache = new Map<string, Cached>()

  constructor (
    publicJwks: JWK[] | Promise<JWK[]>,
    readonly issuer: string,
    readonly audience: string
  ) {
    this.keysReady = Promise.resolve(publicJwks).then((keys) => (this.keys = createLocalJWKSet({ keys })))
    // a generation that fails is answered by each verify() that waits for it
    this.keysReady.catch(() => {})
  }

  /** The claims of a token verified before and still unexpired, without a promise; else undefined (call verify()). */
  cached (token: string): AccessClaims | undefined {
    const claims = this.lookup(token)
    if (claims === undefined || claims.exp <= Math.floor(Date.now() / 1000)) return undefined
    return claims
  }

  private lookup (token: string): AccessClaims | undefined {
    const entry = this.cache.get(keyOf(token))
    return entry !== undefined && entry.token === token ? entry.claims : undefined
  }

  async verify (token: string): Promise<AccessClaims> {
    const now = Math.floor(Date.now() / 1000)
    const cached = this.lookup(token)
    if (cached !== undefined) {
      if (cached.exp <= now) {
        this.cache.delete(keyOf(token))
        throw new TokenError(TOKEN_EXPIRED)
      }
      return cached
    }
    let payload: JWTPayload
    try {
      payload = await this.accessTokenPayload(token)
    } catch (err) {
      throw err instanceof TokenError ? err : new TokenError(describe(err))
    }
    const claims: AccessClaims = {
      jti: String(payload.jti),
      iat: Number(payload.iat),
      exp: Number(payload.exp),
      clientId: String(payload.client_id),
      username: payload.sub !== payload.client_id && typeof payload.preferred_username === 'string' ? payload.preferred_username : undefined,
      agentIds: Array.isArray(payload.agent_id) ? payload.agent_id.map(String) : [],
      scope: typeof payload.scope === 'string' ? payload.scope : '',
      payload
    }
    if (this.cache.size >= CACHE_LIMIT) this.prune(now)
    this.cache.set(keyOf(token), { token, claims })
    return claims
  }

  /**
   * The one definition of an access token of this sandbox (Keycloak's shape), for verify() and
   * expiredTokenClient() alike: RS256 with one of the provider's keys (the one its kid names), issuer, audience,
   * header typ "JWT", the claims every one carries, and claim typ "Bearer". clockTolerance lets an expired one through.
   */
  private async accessTokenPayload (token: string, clockTolerance = 0): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, this.keys ?? await this.keysReady, {
      issuer: this.issuer,
      audience: this.audience,
      algorithms: ['RS256'],
      typ: 'JWT',
      requiredClaims: ['exp', 'iat', 'jti', 'client_id'],
      clockTolerance
    })
    if (payload.typ !== 'Bearer') throw new TokenError(NOT_ACCESS_TOKEN)
    return payload
  }

  /**
   * The client of a token that failed only because it expired: an access token of ours in every other
   * respect. The request journal files such a 401 under that partner; a forged or unsigned token gives undefined.
   */
  async expiredTokenClient (token: string): Promise<string | undefined> {
    try {
      return String((await this.accessTokenPayload(token, EXPIRED_LONG_AGO)).client_id)
    } catch {
      return undefined
    }
  }

  private prune (now: number): void {
    for (const [key, e] of this.cache) if (e.claims.exp <= now) this.cache.delete(key)
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear()
  }
}

const NOT_ACCESS_TOKEN = 'not an access token (header typ must be JWT and claim typ Bearer)'

function describe (err: unknown): string {
  const code = (err as { code?: string }).code
  const claim = (err as { claim?: string }).claim
  const reason = (err as { reason?: string }).reason
  switch (code) {
    case 'ERR_JWT_EXPIRED': return TOKEN_EXPIRED
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED': return 'the access token signature is invalid'
    case 'ERR_JWKS_NO_MATCHING_KEY': return 'the access token is signed with a key this sandbox does not hold (an old key, removed from its signing keys)'
    case 'ERR_JOSE_ALG_NOT_ALLOWED': return 'the access token must be signed with RS256'
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'typ') return NOT_ACCESS_TOKEN
      if (reason === 'missing') return `the access token has no ${claim ?? 'required'} claim`
      return `the access token has the wrong ${claim ?? 'claims'}`
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'the token is not a JWT access token of this sandbox'
    default: return 'the access token is invalid'
  }
}
