import type { Traffic } from './http.js'
import { LISTS } from './probes.js'
import type { Redactor } from './redact.js'

/*
 * One side of a run (the target or the reference): its addresses and credentials, the tokens it was given,
 * and the ids of its own data, found by walking its list endpoints before the probes (spec 4: ids come from
 * the side's lists, never from the other side's).
 */

export interface SideSettings {
  baseUrl: string
  tokenUrl: string
  clientId: string
  clientSecret: string
  agentId: string
  /** An Agent-Id not bound to the caller. */
  otherAgentId: string
  user?: { username: string, password: string }
  /** A guarantee id of the side (no list gives one): 4.13's valid read is skipped without it. */
  guaranteeId?: string
}

type Json = Record<string, unknown>

export class Side {
  readonly vars: Record<string, string> = {}
  token = ''
  userToken?: string
  /** The client's own token with exp moved back and the signature kept: expired and wrongly signed. */
  tamperedToken = ''

  constructor (readonly name: 'target' | 'reference', readonly settings: SideSettings, readonly traffic: Traffic, private readonly redactor: Redactor) {
    redactor.add(settings.clientSecret)
    redactor.add(settings.user?.password)
  }

  basic (clientId: string, secret: string): string {
    return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`
  }

  async requestToken (label: string, form: Record<string, string>): Promise<{ token?: string, problem?: string }> {
    // the run's first requests: a cold identity provider may take a while to answer its first token
    const ex = await this.traffic.send(label, {
      method: 'POST',
      url: this.settings.tokenUrl,
      headers: { authorization: this.basic(this.settings.clientId, this.settings.clientSecret), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString()
    }, 90_000)
    if (ex.answer === undefined) return { problem: `${this.name} token endpoint ${this.settings.tokenUrl} unreachable (${ex.failure ?? 'no answer'})` }
    const json = ex.answer.json as Json | undefined
    this.keepTokens(json)
    if (ex.answer.status !== 200 || typeof json?.access_token !== 'string') {
      const error = typeof json?.error === 'string' ? json.error : `HTTP ${ex.answer.status}`
      return { problem: `${this.name} token endpoint refused the credentials (${error})` }
    }
    return { token: json.access_token }
  }

  /** Every token an answer carries becomes a secret of the run: no report shows it. */
  keepTokens (json: Json | undefined): void {
    for (const k of ['access_token', 'refresh_token', 'id_token']) if (typeof json?.[k] === 'string') this.redactor.add(json[k])
  }

  /** Tokens first: a side whose token endpoint is unreachable or refuses the credentials cannot be probed. */
  async signIn (): Promise<string | undefined> {
    const client = await this.requestToken('walk:token', { grant_type: 'client_credentials', scope: 'openid' })
    if (client.token === undefined) return client.problem
    this.token = client.token
    this.tamperedToken = tamper(client.token)
    this.redactor.add(this.tamperedToken)
    const user = this.settings.user
    if (user !== undefined) {
      const got = await this.requestToken('walk:user-token', { grant_type: 'password', username: user.username, password: user.password, scope: 'openid' })
      if (got.token === undefined) return got.problem
      this.userToken = got.token
      this.vars.userToken = 'yes'
      this.vars.username = user.username
    }
    return undefined
  }

  private async list (label: string, path: string, query: string, token = this.token): Promise<Json | undefined> {
    const ex = await this.traffic.send(`walk:${label}`, {
      method: 'GET',
      url: `${this.settings.baseUrl}${path}?${query}`,
      headers: { authorization: `Bearer ${token}`, 'agent-id': this.settings.agentId, accept: 'application/json' }
    })
    return ex.answer?.status === 200 ? ex.answer.json as Json : undefined
  }

  private first (page: Json | undefined, items: string, field: string): string | undefined {
    const item = (page?.[items] as Json[] | undefined)?.[0]
    return item?.[field] === undefined ? undefined : String(item[field])
  }

  /** The side's own ids and list totals, from its list endpoints (GET only). */
  async walk (): Promise<void> {
    const v = this.vars
    const set = (key: string, value: string | undefined): void => { if (value !== undefined) v[key] = value }
    const customers = await this.list('customers', '/api/customers', 'size=10')
    set('customerId', this.first(customers, 'customers', 'customerId'))
    set('accountId', this.first(await this.list('accounts', '/api/accounts', 'size=1'), 'accounts', 'id'))
    set('bankCode', this.first(await this.list('banks', '/api/banks', 'size=1'), 'banks', 'id'))
    set('productCode', this.first(await this.list('products', '/api/products', 'size=1'), 'products', 'productCode'))
    set('publicAccountName', this.first(await this.list('public-accounts', '/api/accounts/public', 'size=1'), 'publicAccounts', 'name'))
    set('investmentTypeId', this.first(await this.list('investment-types', '/api/investment-types', 'size=1'), 'investmentTypes', 'id'))
    // a customer with a beneficiary: the first few customers of the first page are asked
    for (const c of ((customers?.customers ?? []) as Json[]).slice(0, 5)) {
      const id = String(c.customerId)
      const beneficiary = this.first(await this.list('beneficiaries', `/api/customers/${id}/beneficiaries`, 'size=1'), 'beneficiaries', 'beneficiaryId')
      if (beneficiary === undefined) continue
      v.beneficiaryCustomerId = id
      v.beneficiaryId = beneficiary
      break
    }
    set('guaranteeId', this.settings.guaranteeId)
    v.missingGuaranteeId = 'NOTFOUND-PARITY-0000'
    // totals for the paging edges: the last page and the one past it at size 3
    for (const l of LISTS) {
      const path = l.path.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '')
      if (path.includes('//') || path.endsWith('/')) continue
      if (l.auth === 'user' && this.userToken === undefined) continue
      const page = (await this.list(`${l.name}-total`, path, 'size=3', l.auth === 'user' ? this.userToken : this.token))?.page as Json | undefined
      if (typeof page?.totalElements !== 'number') continue
      const pages = Math.ceil(page.totalElements / 3)
      v[`${l.name}.last3`] = String(Math.max(0, pages - 1))
      v[`${l.name}.past3`] = String(Math.max(1, pages))
    }
  }
}

/** A JWT with its payload changed (exp an hour back) and the original signature: invalid and expired at once. */
export function tamper (jwt: string): string {
  const [header, payload, signature] = jwt.split('.')
  if (signature === undefined) return `${jwt}x`
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Json
    const now = Math.floor(Date.now() / 1000)
    claims.exp = now - 3600
    claims.iat = now - 7200
    return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
  } catch {
    return `${header}.${payload}x.${signature}`
  }
}
