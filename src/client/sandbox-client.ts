import createClient, { type Client, type Middleware } from 'openapi-fetch'
import { AdminMethods } from './admin.js'
import { SandboxApiError, unwrap } from './errors.js'
import { CachedToken, TOKEN_PATH, TokenEndpoint, type TokenSet } from './tokens.js'
import type { AnswerOf, BankPaths, BodyOf, ControlPaths } from './types.js'

export interface SandboxClientOptions {
  /** The sandbox's URL, as the tests reach it: http://localhost:8080 (hosted, in a container or in-process). */
  baseUrl: string
  /** The partner's OAuth client (the scenarios' partner-a, or a partner of your own). */
  clientId: string
  clientSecret: string
  /** The Agent-Id that calls of the bank's API carry unless a call names its own. */
  agentId?: string
  /** SANDBOX_ADMIN_TOKEN, for the operator endpoints (/__sandbox/admin). */
  adminToken?: string
  /** The scope asked for with every token (default openid, as Keycloak's clients ask). */
  scope?: string
  /** Another fetch (a proxy's, a recorder's); default the global one. */
  fetch?: typeof globalThis.fetch
}

/** What every view of one client shares: the token endpoint and every token kept, for expireTokens. */
interface Shared {
  endpoint: TokenEndpoint
  partner: CachedToken
  kept: Set<CachedToken>
}

/**
 * A test suite's handle on a sandbox, wherever it runs: tokens, the bank's API (typed, openapi-fetch) and every
 * operation of the control API. One instance per partner; withAgent and withUser give views that share its tokens.
 */
export class SandboxClient extends AdminMethods {
  readonly baseUrl: string
  readonly clientId: string
  readonly agentId: string | undefined
  /** The realm's token endpoint on baseUrl. */
  readonly tokenUrl: string
  /**
   * The bank's API (spec section 4) as openapi-fetch's typed client: `await client.api.GET('/api/banks')`
   * resolves to { data, error, response } for every status, so that a test can look at error answers; wrap it
   * in unwrap() for the data or a SandboxApiError. Each call carries the bearer token and, unless it names its
   * own, the client's Agent-Id.
   */
  readonly api: Client<BankPaths>
  protected readonly control: Client<ControlPaths>
  protected readonly admin: Client<ControlPaths>
  readonly #options: SandboxClientOptions
  readonly #fetch: typeof globalThis.fetch
  #shared: Shared
  /** The token this view's calls carry: the partner's client-credentials token, or a test user's. */
  #bearer: CachedToken

  constructor (options: SandboxClientOptions) {
    super()
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') }
    this.baseUrl = this.#options.baseUrl
    this.clientId = options.clientId
    this.agentId = options.agentId
    this.tokenUrl = `${this.baseUrl}${TOKEN_PATH}`
    // the global fetch as it is at the call, not at construction (a test may replace it meanwhile)
    this.#fetch = options.fetch ?? (async (input, init) => await fetch(input, init))
    const endpoint = new TokenEndpoint(this.tokenUrl, options.clientId, options.clientSecret, this.#fetch)
    const partner = new CachedToken(async () => await endpoint.request({ grant_type: 'client_credentials', scope: this.#scope }))
    this.#shared = { endpoint, partner, kept: new Set([partner]) }
    this.#bearer = partner
    const bearer: Middleware = {
      onRequest: async ({ request }) => {
        if (!request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${await this.#bearer.get()}`)
        return request
      }
    }
    const agent: Middleware = {
      onRequest: ({ request }) => {
        if (this.agentId !== undefined && !request.headers.has('agent-id')) request.headers.set('agent-id', this.agentId)
        return request
      }
    }
    const fetchOption = async (request: Request): Promise<Response> => await this.#fetch(request)
    this.api = createClient<BankPaths>({ baseUrl: this.baseUrl, fetch: fetchOption })
    this.api.use(bearer, agent)
    this.control = createClient<ControlPaths>({ baseUrl: this.baseUrl, fetch: fetchOption })
    this.control.use(bearer)
    this.admin = createClient<ControlPaths>({ baseUrl: this.baseUrl, fetch: fetchOption })
    if (options.adminToken !== undefined) this.admin.use({ onRequest: ({ request }) => { request.headers.set('authorization', `Bearer ${options.adminToken}`) } })
  }

  get #scope (): string {
    return this.#options.scope ?? 'openid'
  }

  /** The same client with another default Agent-Id (a fresh agent's), sharing its tokens. */
  withAgent (agentId: string): SandboxClient {
    const view = new SandboxClient({ ...this.#options, agentId })
    view.#shared = this.#shared
    view.#bearer = this.#bearer
    return view
  }

  /**
   * The same client acting for a test user (the password grant; what GET /api/users/current/customers needs):
   * its calls carry the user's token, kept like the partner's and renewed with its refresh token.
   */
  withUser (username: string, password: string): SandboxClient {
    const view = new SandboxClient(this.#options)
    view.#shared = this.#shared
    view.#bearer = new CachedToken(async (previous) => {
      if (previous?.refresh_token !== undefined) {
        try {
          return await this.refreshGrant(previous.refresh_token)
        } catch (err) {
          // a refresh token that expired or was revoked: the user signs in again
          if (!(err instanceof SandboxApiError && err.code === 'invalid_grant')) throw err
        }
      }
      return await this.passwordGrant(username, password)
    })
    this.#shared.kept.add(view.#bearer)
    return view
  }

  // ---- tokens
  /** The access token this client's calls carry: kept until shortly before it expires, then a new one. */
  async accessToken (): Promise<string> {
    return await this.#bearer.get()
  }

  /** A test user's tokens (Keycloak's direct access grant): access, refresh and ID token. */
  async passwordGrant (username: string, password: string): Promise<TokenSet> {
    return await this.#shared.endpoint.request({ grant_type: 'password', username, password, scope: this.#scope })
  }

  /** New tokens for a refresh token (refresh tokens rotate: the answer carries the next one). */
  async refreshGrant (refreshToken: string): Promise<TokenSet> {
    return await this.#shared.endpoint.request({ grant_type: 'refresh_token', refresh_token: refreshToken })
  }

  /**
   * Every access token of the partner issued so far is refused as expired from now on (with { refresh: true }
   * its refresh tokens too): how a test makes its code meet an expired token. The tokens this client kept are
   * dropped, so its own next call gets a new one.
   */
  async expireTokens (body?: BodyOf<'expireTokens'>): Promise<AnswerOf<'expireTokens'>> {
    const answer = unwrap(await this.control.POST('/__sandbox/tokens/expire', { body }))
    for (const token of this.#shared.kept) token.forget()
    return answer
  }
}
