import { request as httpRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { parse, type TestCase, type TestSuites } from 'junit2json'
import { BENEFICIARY_REQUEST, listen, TOKEN_PATH } from './helper.js'

/*
 * The go-live readiness checklist (issue 29) over HTTP, with tokens from the sandbox's own token endpoint: a
 * client that does each case right moves it from not-tried to passed, with request ids that the journal finds;
 * one that does it wrong gets failed with a reason; the JUnit XML is read by a JUnit reader.
 */

const MESSAGES = '/api/customers/1001100000001/messages'
const MESSAGE = { message: 'READINESS', fromDepartment: 'CI', fromPerson: 'CI' }
const TOKEN_RULE = { match: { method: 'POST', path: '/**/protocol/openid-connect/token' }, times: 1 }

interface Sent { status: number, headers: Record<string, string | string[] | undefined>, body: string }
interface Case { case: string, status: string, title: string, requestIds: string[], reason: string | null, howTo: string | null, since: string | null, docs: string }
interface Checklist { observing: boolean, ready: boolean, passed: number, failed: number, notTried: number, cases: Case[] }

/** One request on its own connection (a dropped one: status 0). */
async function send (base: string, path: string, opts: { method?: string, body?: string, headers?: Record<string, string> } = {}): Promise<Sent> {
  return await new Promise((resolve) => {
    const req = httpRequest(`${base}${path}`, { method: opts.method ?? 'GET', agent: false, headers: opts.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { body += c })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }))
    req.end(opts.body)
  })
}

class Client {
  token = ''
  constructor (readonly base: string, readonly client = 'partner-a', readonly secret = 'partner-a-secret', readonly agentId = '1001') {}

  /** A token of the client's own (client credentials), or of a test user (grant: the password grant's form). */
  async tokenRequest (grant = 'grant_type=client_credentials'): Promise<Sent> {
    const res = await send(this.base, TOKEN_PATH, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${this.client}:${this.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: grant
    })
    if (res.status === 200) this.token = JSON.parse(res.body).access_token
    return res
  }

  async call (path: string, opts: { method?: string, body?: unknown, headers?: Record<string, string> } = {}): Promise<Sent> {
    const json: Record<string, string> = opts.body === undefined ? {} : { 'content-type': 'application/json' }
    return await send(this.base, path, {
      method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${this.token}`, 'agent-id': this.agentId, ...json, ...opts.headers },
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) })
    })
  }

  async control (method: string, path: string, body?: unknown): Promise<Sent> {
    return await this.call(`/__sandbox${path}`, { method, body, headers: { 'agent-id': '' } })
  }

  async checklist (): Promise<Checklist> {
    const res = await this.control('GET', '/readiness')
    if (res.status !== 200) throw new Error(`readiness: ${res.status} ${res.body}`)
    return JSON.parse(res.body)
  }

  async verdicts (): Promise<Record<string, Case>> {
    return Object.fromEntries((await this.checklist()).cases.map((c) => [c.case, c]))
  }

  /**
   * A list read the way a client pages through it: `?page=0`, 1, 2, ... (the list's own query after it, e.g.
   * `size=10`; none: the default size) until an answer's page.last. The pages' request ids and sizes in bytes.
   */
  async walk (list: string): Promise<{ ids: string[], bytes: number[] }> {
    const [path, query] = list.split('?')
    const ids: string[] = []
    const bytes: number[] = []
    for (let page = 0; ; page++) {
      const res = await this.call(`${path}?page=${page}${query === undefined ? '' : `&${query}`}`)
      if (res.status !== 200) throw new Error(`${list}, page ${page}: ${res.status} ${res.body}`)
      ids.push(idOf(res))
      bytes.push(Buffer.byteLength(res.body))
      if ((JSON.parse(res.body) as { page: { last: boolean } }).page.last) return { ids, bytes }
    }
  }
}

const idOf = (res: Sent): string => String(res.headers['x-request-id'])

/** The requests PAGES_TO_THE_END names for a walk: the first page and the latest four. */
const proofOf = (ids: string[]): string[] => ids.length <= 5 ? ids : [ids[0], ...ids.slice(-4)]

/** The report as a JUnit reader sees it: <testsuites> with one <testsuite> of the cases. */
async function junit (xml: string): Promise<{ report: TestSuites, cases: TestCase[] }> {
  const report = await parse(xml) as TestSuites
  return { report, cases: report.testsuite?.[0].testcase ?? [] }
}

t.test('before anything: every case not tried, each with how to provoke it; bad format 400', async (t) => {
  const { base } = await listen(t)
  const a = new Client(base)
  await a.tokenRequest()
  const list = await a.checklist()
  t.match(list, { observing: true, ready: false, passed: 0, failed: 0, notTried: 8 })
  t.same(list.cases.map((c) => c.case), ['RETRIES_SERVER_ERROR', 'HONOURS_RETRY_AFTER', 'NO_DUPLICATE_AFTER_TIMEOUT', 'REFRESHES_EXPIRED_TOKEN',
    'SURVIVES_TOKEN_ENDPOINT_OUTAGE', 'HANDLES_VALIDATION_ERROR', 'PAGES_TO_THE_END', 'USES_CURRENT_VERSION'])
  for (const c of list.cases) {
    t.match(c, { status: 'not-tried', requestIds: [], reason: null, since: null, docs: `docs/advisor.md#${c.case.toLowerCase()}` })
    t.ok((c.howTo ?? '').length > 40, `${c.case}: how to provoke it`)
  }
  t.match(list.cases[0].howTo, /Sandbox-Fault: status=503/)
  t.match(list.cases[3].howTo, /POST \/__sandbox\/tokens\/expire/)
  t.equal((await a.control('GET', '/readiness?format=xml')).status, 400, 'an unknown format is a 400')
  t.equal((await send(base, '/__sandbox/readiness')).status, 401, 'a token is needed')
})

t.test('a client that does each case right passes it, with request ids the journal finds, and the JUnit has no failure', async (t) => {
  const { base } = await listen(t)
  const a = new Client(base)
  await a.tokenRequest()

  // USES_CURRENT_VERSION: calls of the current version only
  const first = await a.call('/api/banks')
  t.equal(first.status, 200)
  t.match((await a.verdicts()).USES_CURRENT_VERSION, { status: 'passed', requestIds: [idOf(first)], reason: null, howTo: null })

  // RETRIES_SERVER_ERROR: a 500 on a read, the same read again after a pause
  await a.control('POST', '/faults', { match: { method: 'GET', path: '/api/banks' }, fault: 'status=500', times: 1 })
  const failed = await a.call('/api/banks')
  t.equal(failed.status, 500)
  await sleep(250)
  const retried = await a.call('/api/banks')
  t.equal(retried.status, 200)
  t.match((await a.verdicts()).RETRIES_SERVER_ERROR, { status: 'passed', requestIds: [idOf(failed), idOf(retried)] })

  // NO_DUPLICATE_AFTER_TIMEOUT: a create made whose answer was lost; the client looks before creating again
  const lost = await a.call(MESSAGES, { body: { ...MESSAGE, message: 'LOST ANSWER' }, headers: { 'sandbox-fault': 'after, reset' } })
  t.equal(lost.status, 0, 'no answer')
  const looked = await a.call(`${MESSAGES}?size=50`)
  t.ok(looked.body.includes('LOST ANSWER'), 'the record is there: no need to create it again')
  t.match((await a.verdicts()).NO_DUPLICATE_AFTER_TIMEOUT, { status: 'passed', requestIds: [String, idOf(looked)] })

  // HANDLES_VALIDATION_ERROR: a refused create, fixed, then a valid one
  const refused = await a.call(MESSAGES, { body: { message: 'NO PERSON', fromDepartment: 'CI' } })
  t.equal(refused.status, 400)
  const fixed = await a.call(MESSAGES, { body: { ...MESSAGE, message: 'WITH PERSON' } })
  t.equal(fixed.status, 200)
  t.match((await a.verdicts()).HANDLES_VALIDATION_ERROR, { status: 'passed', requestIds: [idOf(refused), idOf(fixed)] })

  // PAGES_TO_THE_END: the agent's customers walked page by page at the default size to page.last
  const walk = await a.walk('/api/customers')
  t.equal(walk.ids.length, 4, '4 pages of 10')
  t.match((await a.verdicts()).PAGES_TO_THE_END, { status: 'passed', requestIds: proofOf(walk.ids) })

  // REFRESHES_EXPIRED_TOKEN: the token expired by the control, a new one fetched once, the call made again
  t.equal((await a.control('POST', '/tokens/expire')).status, 200)
  const expired = await a.call('/api/banks')
  t.equal(expired.status, 401)
  const renewed = await a.tokenRequest()
  const again = await a.call('/api/banks')
  t.equal(again.status, 200)
  t.match((await a.verdicts()).REFRESHES_EXPIRED_TOKEN, { status: 'passed', requestIds: [idOf(expired), idOf(renewed), idOf(again)] })

  // SURVIVES_TOKEN_ENDPOINT_OUTAGE and HONOURS_RETRY_AFTER: the token endpoint answers 503 (Retry-After: 5) once;
  // the client waits what it asks, then gets a token
  await a.control('POST', '/faults', { ...TOKEN_RULE, fault: 'status=503' })
  const outage = await a.tokenRequest()
  t.equal(outage.status, 503)
  t.equal(outage.headers['retry-after'], '5')
  await sleep(5100)
  const back = await a.tokenRequest()
  t.equal(back.status, 200)
  const list = await a.checklist()
  const by = Object.fromEntries(list.cases.map((c) => [c.case, c]))
  t.match(by.SURVIVES_TOKEN_ENDPOINT_OUTAGE, { status: 'passed', requestIds: [idOf(outage), idOf(back)] })
  t.match(by.HONOURS_RETRY_AFTER, { status: 'passed', requestIds: [idOf(outage), idOf(back)] })
  t.match(list, { ready: true, passed: 8, failed: 0, notTried: 0 }, 'every case passed')

  // the ids are the journal's
  for (const id of new Set(list.cases.flatMap((c) => c.requestIds))) {
    t.equal((await a.control('GET', `/requests/${id}`)).status, 200, `request ${id} is in the journal`)
  }

  const xml = await a.control('GET', '/readiness?format=junit')
  t.equal(xml.status, 200)
  t.match(xml.headers['content-type'], /^application\/xml/)
  const { report, cases } = await junit(xml.body)
  t.match(report, { tests: 8, failures: 0, skipped: 0 })
  t.same(cases.map((c) => c.name), list.cases.map((c) => c.case))
  t.ok(cases.every((c) => c.failure === undefined && c.skipped === undefined), 'no failure, nothing skipped')
  t.match(cases[0]['system-out'], [new RegExp(idOf(retried))], 'a passed case names its proof')
})

t.test('a client that does each case wrong fails it with a reason; the JUnit marks failures and skips the not tried', async (t) => {
  const { base } = await listen(t)
  const a = new Client(base)
  await a.tokenRequest()

  await a.control('POST', '/faults', { match: { method: 'GET', path: '/api/banks' }, fault: 'status=500', times: 1 })
  await a.call('/api/banks')
  await a.call('/api/banks')
  t.match((await a.verdicts()).RETRIES_SERVER_ERROR, { status: 'failed', reason: /answered 500 was sent again \d+ ms later, without a pause/, howTo: /Sandbox-Fault/ })

  await a.control('POST', '/faults', { match: { path: '/api/investment-types' }, fault: 'status=503', times: 1 })
  t.equal((await a.call('/api/investment-types')).status, 503)
  await a.call('/api/investment-types')
  t.match((await a.verdicts()).HONOURS_RETRY_AFTER, { status: 'failed', reason: /after the 503 whose Retry-After asked for 5 s/ })

  const body = { ...MESSAGE, message: 'TWICE' }
  t.equal((await a.call(MESSAGES, { body, headers: { 'sandbox-fault': 'after, status=502' } })).status, 502)
  t.equal((await a.call(MESSAGES, { body })).status, 200)
  t.match((await a.verdicts()).NO_DUPLICATE_AFTER_TIMEOUT, { status: 'failed', reason: /made a second record/ })

  const bad = { message: 'NO PERSON', fromDepartment: 'CI' }
  await a.call(MESSAGES, { body: bad })
  await a.call(MESSAGES, { body: bad })
  t.match((await a.verdicts()).HANDLES_VALIDATION_ERROR, { status: 'failed', reason: /sent again unchanged/ })

  t.equal((await a.call('/4.0/api/banks')).status, 200)
  t.match((await a.verdicts()).USES_CURRENT_VERSION, { status: 'failed', reason: '1 call to a deprecated API version (answered with a Deprecation header)' })
  await a.call('/api/banks')
  t.equal((await a.verdicts()).USES_CURRENT_VERSION.status, 'failed', 'a deprecated call is not undone by current ones')

  await a.control('POST', '/faults', { ...TOKEN_RULE, fault: 'status=500' })
  t.equal((await a.tokenRequest()).status, 500)
  t.equal((await a.tokenRequest()).status, 200)
  t.match((await a.verdicts()).SURVIVES_TOKEN_ENDPOINT_OUTAGE, { status: 'failed', reason: /answered 500 was sent again \d+ ms later/ })

  await a.control('POST', '/tokens/expire')
  t.equal((await a.call('/api/banks')).status, 401)
  t.equal((await a.call('/api/banks')).status, 401, 'the refused token sent again')
  // the checklist is read with a new token (the control API is not judged)
  await a.tokenRequest()
  t.match((await a.verdicts()).REFRESHES_EXPIRED_TOKEN, { status: 'failed', reason: /sent again instead of a new one/ })

  const list = await a.checklist()
  t.match(list, { ready: false, passed: 0, failed: 7, notTried: 1 })
  t.match(list.cases.find((c) => c.case === 'PAGES_TO_THE_END'), { status: 'not-tried', howTo: /page\.last/ })

  const xml = await a.call('/__sandbox/readiness', { headers: { accept: 'application/xml', 'agent-id': '' } })
  t.match(xml.headers['content-type'], /^application\/xml/, 'Accept: application/xml asks for JUnit too')
  const { report, cases } = await junit(xml.body)
  t.match(report, { tests: 8, failures: 7, skipped: 1 })
  t.equal(cases.filter((c) => c.failure !== undefined).length, 7)
  t.match(cases.find((c) => c.name === 'PAGES_TO_THE_END'), { skipped: [{ message: /^not tried: / }] })
  t.match(cases.find((c) => c.name === 'HANDLES_VALIDATION_ERROR')?.failure, [{ message: /sent again unchanged/ }])
})

t.test('issue 44: partner-b walks GET /api/customers?page=N&size=10 until page.last, 4 pages, and PAGES_TO_THE_END passes', async (t) => {
  const { base } = await listen(t)
  const b = new Client(base, 'partner-b', 'partner-b-secret', '2001')
  await b.tokenRequest()
  t.equal((await b.verdicts()).PAGES_TO_THE_END.status, 'not-tried', 'not tried before the walk')
  const { ids, bytes } = await b.walk('/api/customers?size=10')
  t.equal(ids.length, 4, 'pages 0 to 3')
  t.ok(bytes.every((n) => n > 1024), `pages of ${bytes.join(', ')} bytes`)
  t.match((await b.verdicts()).PAGES_TO_THE_END, { status: 'passed', requestIds: ids, reason: null, howTo: null }, 'the readiness report says passed, the 4 pages its proof')
  const { cases } = await junit((await b.control('GET', '/readiness?format=junit')).body)
  t.match(cases.find((c) => c.name === 'PAGES_TO_THE_END'), { 'system-out': [new RegExp(ids[3])] }, 'passed in the JUnit XML, with its proof')
})

/** The bank's list operations, as the served API document has them: the GETs that take a page. */
async function listOperations (base: string): Promise<string[]> {
  const doc = await (await fetch(`${base}/api/docs/apidocs/openapi.json`)).json() as { paths: Record<string, { get?: { operationId: string, parameters?: Array<{ in: string, name: string }> } }> }
  return Object.values(doc.paths).flatMap(({ get }) => get?.parameters?.some((p) => p.in === 'query' && p.name === 'page') === true ? [get.operationId] : []).sort()
}

t.test('every list operation, walked from page 0 to page.last at the default size, passes PAGES_TO_THE_END', async (t) => {
  const { base } = await listen(t)
  const a = new Client(base)
  await a.tokenRequest()
  const alice = new Client(base)
  t.equal((await alice.tokenRequest('grant_type=password&username=alice&password=alice-password&scope=openid')).status, 200, 'a test user signs in')
  // a customer's own lists grow past one default page as a client adds to them
  const customer = '/api/customers/1001100000002'
  const created: number[] = []
  for (let i = 1; i <= 11; i++) {
    created.push((await a.call(`${customer}/messages`, { body: { message: `YOUR STATEMENT ${i} OF 2026 IS READY`, fromDepartment: 'CONVEYANCING', fromPerson: 'THANDI NKOSI' } })).status)
    created.push((await a.call(`${customer}/beneficiaries`, { body: { ...BENEFICIARY_REQUEST, beneficiaryReference: `RENT MONTH ${i}`, clientReference: `NDLOVU RENT ${i}` } })).status)
    created.push((await a.call('/api/accounts', { body: { customerId: '1001100000002' } })).status)
  }
  t.ok(created.every((s) => s === 200), '11 messages, beneficiaries and accounts created')

  const walked = new Set<string>()
  const walks = [
    { operationId: 'listCustomers', list: '/api/customers' },
    { operationId: 'listAccounts', list: '/api/accounts' },
    { operationId: 'listAccounts', list: '/api/accounts?customerId=1001100000002' },
    { operationId: 'listBeneficiaries', list: `${customer}/beneficiaries` },
    { operationId: 'listMessages', list: `${customer}/messages` },
    { operationId: 'listBanks', list: '/api/banks' },
    { operationId: 'listPublicAccounts', list: '/api/accounts/public' }
  ]
  for (const { operationId, list } of walks) {
    t.equal((await a.control('DELETE', '/advice')).status, 204)
    const { ids, bytes } = await a.walk(list)
    t.ok(ids.length >= 2, `${operationId} ${list}: ${ids.length} pages of ${bytes.join(', ')} bytes`)
    t.match((await a.verdicts()).PAGES_TO_THE_END, { status: 'passed', requestIds: proofOf(ids) }, `${list} walked to the end`)
    walked.add(operationId)
  }

  // these fit one page at the default size, which proves nothing: walked again at a smaller size
  const short = [
    { operationId: 'listProducts', client: a, list: '/api/products', smaller: '/api/products?size=2' },
    { operationId: 'listInvestmentTypes', client: a, list: '/api/investment-types', smaller: '/api/investment-types?size=4' },
    { operationId: 'listCurrentUserCustomers', client: alice, list: '/api/users/current/customers', smaller: '/api/users/current/customers?size=2' }
  ]
  for (const { operationId, client, list, smaller } of short) {
    t.equal((await a.control('DELETE', '/advice')).status, 204)
    t.equal((await client.walk(list)).ids.length, 1, `${list}: one page at the default size`)
    t.equal((await a.verdicts()).PAGES_TO_THE_END.status, 'not-tried', `${list}: a list of one page proves nothing`)
    const { ids, bytes } = await client.walk(smaller)
    t.ok(ids.length >= 2, `${smaller}: ${ids.length} pages of ${bytes.join(', ')} bytes`)
    t.match((await a.verdicts()).PAGES_TO_THE_END, { status: 'passed', requestIds: proofOf(ids) }, `${smaller} walked to the end`)
    walked.add(operationId)
  }
  t.same([...walked].sort(), await listOperations(base), 'every list operation of the API document walked')
})

t.test('a walk whose pages the journal keeps cut at 64 KiB passes too: the page object comes first', async (t) => {
  const { base } = await listen(t)
  const a = new Client(base)
  await a.tokenRequest()
  const messages = '/api/customers/1001100000003/messages'
  // a customer with two hundred long messages, read back in pages of 200
  const text = (i: number): string => `NOTICE ${i}: THE INTEREST OF YOUR TRUST INVESTMENT ACCOUNT FOR THE MONTH HAS BEEN CAPITALISED. `.repeat(3).slice(0, 256)
  const created: number[] = []
  for (let i = 0; i < 205; i += 8) {
    created.push(...await Promise.all(Array.from({ length: Math.min(8, 205 - i) }, async (_, j) =>
      (await a.call(messages, { body: { message: text(i + j), fromDepartment: 'TRUST ACCOUNTING DEPARTMENT', fromPerson: 'THANDI NKOSI' } })).status)))
  }
  t.ok(created.every((s) => s === 200), `${created.length} messages created`)
  const { ids, bytes } = await a.walk(`${messages}?size=200`)
  t.equal(ids.length, 2, 'two pages')
  t.ok(bytes[0] > 65536, `the first is ${bytes[0]} bytes`)
  const first = JSON.parse((await a.control('GET', `/requests/${ids[0]}`)).body) as { response: { bodyTruncated: boolean, bodySize: number } }
  t.match(first.response, { bodyTruncated: true, bodySize: bytes[0] }, 'the journal keeps it cut')
  t.match((await a.verdicts()).PAGES_TO_THE_END, { status: 'passed', requestIds: ids })
})

t.test('DELETE /__sandbox/advice and a reset clear the checklist; another partner has its own', async (t) => {
  const { base } = await listen(t)
  const a = new Client(base)
  const b = new Client(base, 'partner-b', 'partner-b-secret', '2001')
  await a.tokenRequest()
  await b.tokenRequest()
  await a.call('/api/banks')
  t.equal((await a.checklist()).passed, 1)
  t.equal((await b.checklist()).passed, 0, "partner-b's checklist is its own")
  t.equal((await a.control('DELETE', '/advice')).status, 204)
  t.match(await a.checklist(), { passed: 0, notTried: 8 }, 'cleared by DELETE /__sandbox/advice')
  await a.call('/api/banks')
  t.equal((await a.checklist()).passed, 1)
  t.equal((await a.control('POST', '/reset')).status, 200)
  t.match(await a.checklist(), { passed: 0, notTried: 8 }, 'cleared by a reset')
})
