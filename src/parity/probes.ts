import type { AgentMode, Aspect, AuthMode, BodyKind, Mutation, Probe } from './types.js'

/*
 * The probe suite as a table (design.md "Parity with the real service"): the operations of spec 4.1 to 4.16
 * as rows, and the families of probes each row gets. A new rule of the spec is a new row here (or, for a
 * field rule the served OpenAPI document states, nothing at all: breaks.ts derives those from the document).
 * {placeholders} are filled from each side's own data (context.ts), so that each side is probed with ids of
 * its own lists.
 */

const ALL: Aspect[] = ['status', 'error', 'schema', 'fields', 'headers', 'page']

/** Ids that no implementation has: the largest a path parameter may be, all nines. */
const MISSING = { accountId: '9999999999999999', customerId: '9999999999999999999', beneficiaryId: '9999999999999999999' }

interface ListRow { section: string, name: string, path: string, auth?: AuthMode, needs?: string[], filters?: Array<{ name: string, query: Record<string, string>, needs?: string[], kind: 'valid' | 'validation' }> }
interface ReadRow { section: string, name: string, path: string, missing?: string, malformed?: string, needs: string[], public?: true }
interface CreateRow { section: string, name: string, path: string, body: BodyKind, needs?: string[] }

export const LISTS: ListRow[] = [
  {
    section: '4.2',
    name: 'accounts',
    path: '/api/accounts',
    filters: [
      { name: 'of-customer', query: { customerId: '{customerId}' }, needs: ['customerId'], kind: 'valid' },
      { name: 'customer-id-not-digits', query: { customerId: 'ABC' }, kind: 'validation' },
      { name: 'customer-id-20-digits', query: { customerId: '12345678901234567890' }, kind: 'validation' }
    ]
  },
  { section: '4.4', name: 'banks', path: '/api/banks' },
  { section: '4.5', name: 'beneficiaries', path: '/api/customers/{beneficiaryCustomerId}/beneficiaries', needs: ['beneficiaryCustomerId'] },
  { section: '4.10', name: 'customers', path: '/api/customers' },
  { section: '4.11', name: 'user-customers', path: '/api/users/current/customers', auth: 'user', needs: ['userToken'] },
  { section: '4.12', name: 'messages', path: '/api/customers/{customerId}/messages', needs: ['customerId'] },
  { section: '4.14', name: 'investment-types', path: '/api/investment-types' },
  {
    section: '4.15',
    name: 'public-accounts',
    path: '/api/accounts/public',
    filters: [{ name: 'by-name', query: { name: '{publicAccountName}' }, needs: ['publicAccountName'], kind: 'valid' }]
  },
  { section: '4.16', name: 'products', path: '/api/products' }
]

export const READS: ReadRow[] = [
  { section: '4.1', name: 'account', path: '/api/accounts/{accountId}', missing: `/api/accounts/${MISSING.accountId}`, malformed: '/api/accounts/ABC', needs: ['accountId'] },
  { section: '4.6', name: 'beneficiary', path: '/api/customers/{beneficiaryCustomerId}/beneficiaries/{beneficiaryId}', missing: `/api/customers/{beneficiaryCustomerId}/beneficiaries/${MISSING.beneficiaryId}`, malformed: '/api/customers/{beneficiaryCustomerId}/beneficiaries/ABC', needs: ['beneficiaryCustomerId', 'beneficiaryId'] },
  { section: '4.9', name: 'customer', path: '/api/customers/{customerId}', missing: `/api/customers/${MISSING.customerId}`, malformed: '/api/customers/12345678901234567890', needs: ['customerId'] },
  { section: '4.13', name: 'guarantee', path: '/api/guarantees/{guaranteeId}/state', missing: '/api/guarantees/{missingGuaranteeId}/state', needs: ['guaranteeId'], public: true },
  { section: '4.16', name: 'product', path: '/api/products/{productCode}', missing: '/api/products/NO-SUCH-PRODUCT', needs: ['productCode'] }
]

export const CREATES: CreateRow[] = [
  { section: '4.3', name: 'account', path: '/api/accounts', body: 'account', needs: ['customerId', 'productCode'] },
  { section: '4.7', name: 'beneficiary', path: '/api/customers/{customerId}/beneficiaries', body: 'beneficiary', needs: ['customerId', 'bankCode'] },
  { section: '4.8', name: 'customer', path: '/api/customers', body: 'customer' },
  { section: '4.12', name: 'message', path: '/api/customers/{customerId}/messages', body: 'message', needs: ['customerId'] }
]

/**
 * The rules the served document cannot state (src/rules): each broken alone on a valid body. The field rules
 * it does state (required, size, pattern, enum, digits) are derived from the document by breaks.ts.
 */
export const RULE_BREAKS: Array<{ body: BodyKind, name: string, mutations: Mutation[] }> = [
  { body: 'customer', name: 'sa-id-wrong-check-digit', mutations: [{ path: 'defaultCustomer.identifyingNumber', set: '{idWrongCheckDigit}' }] },
  { body: 'customer', name: 'sa-id-not-a-date', mutations: [{ path: 'defaultCustomer.identifyingNumber', set: '8013325009086' }] },
  { body: 'customer', name: 'sa-id-12-digits', mutations: [{ path: 'defaultCustomer.identifyingNumber', set: '800101500908' }] },
  { body: 'customer', name: 'company-registration-format', mutations: [{ path: 'defaultCustomer.entityTypeId', set: '5' }, { path: 'defaultCustomer.identifyingNumber', set: '2001-123456-07' }] },
  { body: 'customer', name: 'company-registration-year-1799', mutations: [{ path: 'defaultCustomer.entityTypeId', set: '5' }, { path: 'defaultCustomer.identifyingNumber', set: '1799/123456/07' }] },
  { body: 'customer', name: 'company-registration-unknown-type-code', mutations: [{ path: 'defaultCustomer.entityTypeId', set: '6' }, { path: 'defaultCustomer.identifyingNumber', set: '2001/123456/99' }] },
  { body: 'customer', name: 'individual-without-name2', mutations: [{ path: 'defaultCustomer.name2', remove: true }] },
  { body: 'customer', name: 'name1-without-letters', mutations: [{ path: 'defaultCustomer.name1', set: '12345' }] },
  { body: 'customer', name: 'default-customer-repeated', mutations: [{ path: 'otherCustomers', set: '{defaultCustomerCopy}' }] },
  { body: 'customer', name: 'unknown-investment-type', mutations: [{ path: 'defaultCustomer.investmentTypeId', set: 987654 }] },
  { body: 'customer', name: 'email-malformed', mutations: [{ path: 'defaultCustomer.email', set: 'NOT-AN-EMAIL' }] },
  { body: 'beneficiary', name: 'unknown-bank-code', mutations: [{ path: 'bankCode', set: '999999' }] },
  { body: 'account', name: 'unknown-product-code', mutations: [{ path: 'productCode', set: 'NO-SUCH-PRODUCT' }] },
  { body: 'account', name: 'customer-id-not-digits', mutations: [{ path: 'customerId', set: 'ABC' }] }
]

/** The authentication and authorisation probes every operation gets (4.13 only those without an Agent-Id). */
const AUTH_CASES: Array<{ name: string, title: string, auth: AuthMode, agent: AgentMode, public: boolean }> = [
  { name: 'no-token', title: 'no token', auth: 'none', agent: 'own', public: true },
  { name: 'garbage-token', title: 'a bearer token that is no JWT', auth: 'garbage', agent: 'own', public: true },
  { name: 'tampered-token', title: 'an expired, wrongly signed JWT (its own claims with exp moved back, the signature kept)', auth: 'tampered', agent: 'own', public: true },
  { name: 'no-agent-id', title: 'no Agent-Id header', auth: 'client', agent: 'none', public: false },
  { name: 'other-agent', title: "an Agent-Id not bound to the caller (another partner's agent)", auth: 'client', agent: 'other', public: false }
]

const PAGING: Array<{ name: string, title: string, query: Record<string, string>, kind: 'paging' }> = [
  { name: 'size-1', title: 'the first page of size 1', query: { size: '1' }, kind: 'paging' },
  { name: 'last-page', title: 'the last page at size 3', query: { size: '3', page: '{LIST.last3}' }, kind: 'paging' },
  { name: 'past-the-end', title: 'a page past the end at size 3', query: { size: '3', page: '{LIST.past3}' }, kind: 'paging' },
  { name: 'size-0', title: 'size 0', query: { size: '0' }, kind: 'paging' },
  { name: 'size-2001', title: 'size above the sandbox maximum (2000)', query: { size: '2001' }, kind: 'paging' },
  { name: 'page-negative', title: 'page -1', query: { page: '-1' }, kind: 'paging' },
  { name: 'size-not-a-number', title: 'size abc', query: { size: 'abc' }, kind: 'paging' }
]

function fill (query: Record<string, string>, list: string): Record<string, string> {
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v.replace('LIST', list)]))
}

function op (section: string, method: string, path: string): string {
  return `${section} ${method} ${path}`
}

/** Every path of the table with the operations it has, for the wrong-method probes. */
function pathsWithMethods (): Array<{ path: string, section: string, methods: string[], needs: string[] }> {
  const out = new Map<string, { path: string, section: string, methods: string[], needs: string[] }>()
  const add = (section: string, path: string, method: string, needs: string[] = []): void => {
    const entry = out.get(path) ?? { path, section, methods: [], needs }
    entry.methods.push(method)
    out.set(path, entry)
  }
  for (const l of LISTS) add(l.section, l.path, 'GET', l.needs)
  for (const r of READS) add(r.section, r.path, 'GET', r.needs)
  for (const c of CREATES) add(c.section, c.path, 'POST', c.needs)
  return [...out.values()]
}

/** The table's probes of the bank API and of the token endpoint, in the order they run. */
export function apiProbes (): Probe[] {
  const probes: Probe[] = []
  for (const l of LISTS) {
    const operation = op(l.section, 'GET', l.path)
    const base = { operation, method: 'GET', path: l.path, auth: l.auth ?? 'client', needs: l.needs, compare: ALL }
    probes.push({ ...base, id: `${l.name}.list`, kind: 'valid', title: 'the default page (size 10)' })
    for (const f of l.filters ?? []) probes.push({ ...base, id: `${l.name}.list.${f.name}`, kind: f.kind, title: `filtered: ${new URLSearchParams(f.query).toString()}`, query: f.query, needs: [...(l.needs ?? []), ...(f.needs ?? [])] })
    for (const p of PAGING) probes.push({ ...base, id: `${l.name}.list.${p.name}`, kind: p.kind, title: p.title, query: fill(p.query, l.name) })
  }
  for (const r of READS) {
    const operation = op(r.section, 'GET', r.path)
    const base = { operation, method: 'GET', auth: 'client' as const, compare: ALL }
    probes.push({ ...base, id: `${r.name}.read`, kind: 'valid', title: 'an id of its own list', path: r.path, needs: r.needs })
    if (r.missing !== undefined) probes.push({ ...base, id: `${r.name}.read.not-found`, kind: 'not-found', title: 'an id that does not exist', path: r.missing, needs: r.needs.filter((n) => r.missing?.includes(`{${n}}`)) })
    if (r.malformed !== undefined) probes.push({ ...base, id: `${r.name}.read.malformed-id`, kind: 'validation', title: 'an id that breaks the path rule', path: r.malformed, needs: r.needs.filter((n) => r.malformed?.includes(`{${n}}`)) })
  }
  for (const c of CREATES) {
    const operation = op(c.section, 'POST', c.path)
    const base = { operation, method: 'POST', path: c.path, auth: 'client' as const, needs: c.needs, compare: ALL }
    probes.push({ ...base, id: `${c.name}.create.text-plain`, kind: 'content-type', title: 'a body sent as text/plain', raw: { contentType: 'text/plain', text: 'parity' } })
    probes.push({ ...base, id: `${c.name}.create.malformed-json`, kind: 'content-type', title: 'a body that is not JSON', raw: { contentType: 'application/json', text: '{"parity":' } })
    probes.push({ ...base, id: `${c.name}.create.no-body`, kind: 'content-type', title: 'no body', raw: { contentType: 'application/json', text: '' } })
  }
  // authentication and authorisation, for every operation of the table
  const operations = [
    ...LISTS.map((l) => ({ section: l.section, name: `${l.name}.list`, method: 'GET', path: l.path, needs: l.needs, public: false, body: undefined as BodyKind | undefined })),
    ...READS.map((r) => ({ section: r.section, name: `${r.name}.read`, method: 'GET', path: r.path, needs: r.needs, public: r.public === true, body: undefined })),
    ...CREATES.map((c) => ({ section: c.section, name: `${c.name}.create`, method: 'POST', path: c.path, needs: c.needs, public: false, body: c.body }))
  ]
  for (const o of operations) {
    for (const a of AUTH_CASES) {
      if (o.public && !a.public) continue
      probes.push({ id: `${o.name}.${a.name}`, operation: op(o.section, o.method, o.path), kind: 'auth', title: a.title, method: o.method, path: o.path, auth: a.auth, agent: a.agent, body: o.body, needs: (o.needs ?? []).filter((n) => n !== 'userToken'), compare: ALL })
    }
  }
  for (const p of pathsWithMethods()) {
    const method = p.methods.includes('POST') ? 'DELETE' : 'PUT'
    probes.push({ id: `${p.path}.${method}`.replace(/[{}]/g, '').replace(/^\/api\//, 'method:'), operation: op(p.section, method, p.path), kind: 'method', title: `${method}, which the path does not have`, method, path: p.path, auth: 'client', needs: p.needs.filter((n) => n !== 'userToken'), compare: ALL })
  }
  probes.push({ id: 'no-such-path', operation: 'no operation', kind: 'not-found', title: 'a path the API does not have', method: 'GET', path: '/api/no-such-resources', auth: 'client', compare: ALL })
  return probes
}

/** Probes that create (valid bodies): run last, so that the lists and paging above saw each side as it was. */
export function createProbes (): Probe[] {
  return CREATES.map((c) => ({ id: `${c.name}.create`, operation: op(c.section, 'POST', c.path), kind: 'valid' as const, title: 'a generated valid body', method: 'POST', path: c.path, auth: 'client' as const, body: c.body, needs: c.needs, compare: ALL }))
}

/** The token endpoint (spec 5): responses, their headers and the access token's claims. */
export function tokenProbes (): Probe[] {
  const base = { operation: '5 POST token endpoint', kind: 'token' as const, method: 'POST', path: 'token' }
  const claims: Aspect[] = ['status', 'error', 'fields', 'headers', 'claims']
  return [
    { ...base, id: 'token.client-credentials', title: 'client credentials, client_secret_basic, scope openid', basic: 'right', form: { grant_type: 'client_credentials', scope: 'openid' }, compare: claims },
    { ...base, id: 'token.client-credentials-post', title: 'client credentials, client_secret_post', form: { grant_type: 'client_credentials', client_id: '{clientId}', client_secret: '{clientSecret}' }, compare: claims },
    { ...base, id: 'token.password', title: "the test user's password grant (Keycloak's direct access grant)", basic: 'right', form: { grant_type: 'password', username: '{username}', password: '{password}', scope: 'openid' }, needs: ['username'], compare: claims },
    { ...base, id: 'token.wrong-secret', title: 'a wrong client secret', basic: 'wrong-secret', form: { grant_type: 'client_credentials' }, compare: claims },
    { ...base, id: 'token.unknown-client', title: 'a client that does not exist', basic: 'unknown-client', form: { grant_type: 'client_credentials' }, compare: claims },
    { ...base, id: 'token.no-grant-type', title: 'no grant_type', basic: 'right', form: { scope: 'openid' }, compare: claims },
    { ...base, id: 'token.unsupported-grant-type', title: 'a grant type nobody supports', basic: 'right', form: { grant_type: 'urn:parity:no-such-grant' }, compare: claims },
    { ...base, id: 'token.get', title: 'GET on the token endpoint', method: 'GET', compare: ['status', 'headers'] }
  ]
}
