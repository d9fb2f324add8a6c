import { SandboxApiError, bodyOf } from './errors.js'

/** A token endpoint's answer (RFC 6749 5.1, with Keycloak's and OpenID Connect's additions). */
export interface TokenSet {
  access_token: string
  token_type: string
  expires_in: number
  refresh_token?: string
  refresh_expires_in?: number
  id_token?: string
  scope?: string
}

/** The realm's token endpoint, relative to the sandbox's URL (Keycloak's layout, docs/tokens.md). */
export const TOKEN_PATH = '/auth/realms/sandbox/protocol/openid-connect/token'

/** RFC 6749 2.3.1: client id and secret are form-encoded before they are joined for HTTP Basic. */
function basic (clientId: string, clientSecret: string): string {
  const enc = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+')
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(clientSecret)}`).toString('base64')}`
}

/** One confidential client's requests to the token endpoint; an error answer throws SandboxApiError. */
export class TokenEndpoint {
  constructor (
    readonly url: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly fetch: typeof globalThis.fetch
  ) {}

  async request (grant: Record<string, string>): Promise<TokenSet> {
    const response = await this.fetch(this.url, {
      method: 'POST',
      headers: { authorization: basic(this.clientId, this.clientSecret), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(grant).toString()
    })
    const body = await bodyOf(response)
    if (!response.ok) throw new SandboxApiError(response, body)
    return body as TokenSet
  }
}

/**
 * An access token kept until shortly before it expires (a tenth of its lifetime, at most 30 s early: a token
 * sent at the last moment may expire on its way), then obtained again. Callers at the same moment share one
 * token request.
 */
export class CachedToken {
  private current: { set: TokenSet, renewAt: number } | undefined
  private pending: Promise<TokenSet> | undefined

  /** obtain gets the next token set; it is handed the previous one (for its refresh token), if any. */
  constructor (private readonly obtain: (previous: TokenSet | undefined) => Promise<TokenSet>) {}

  async get (): Promise<string> {
    if (this.current !== undefined && Date.now() < this.current.renewAt) return this.current.set.access_token
    this.pending ??= this.obtain(this.current?.set).finally(() => { this.pending = undefined })
    const set = await this.pending
    const lifetime = set.expires_in * 1000
    this.current = { set, renewAt: Date.now() + lifetime - Math.min(30_000, lifetime / 10) }
    return set.access_token
  }

  /** Drops the kept token (after POST /__sandbox/tokens/expire the sandbox refuses it): the next call gets a new one. */
  forget (): void {
    this.current = undefined
  }
}
