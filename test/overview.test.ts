import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { call, token } from './calls.js'
import { checkAgainstDocs, listen } from './helper.js'

/*
 * The operator's view of partners (GET /__sandbox/admin/overview, issue 45) over real HTTP, with tokens from the
 * sandbox's own token endpoint: each partner's requests and the 5xx the sandbox did not inject over 24 hours, its
 * latest request, findings and readiness as the partner itself reads them; sorting, filters and paging; a bad
 * query; who may read it; and a partner's readiness and advice read by the operator. Every answer is checked
 * against the control API's document. The window's hour maths under a controlled clock: test/activity-cases.ts.
 */

const ADMIN = 'operator-secret-0123456789'
const OPERATOR = { authorization: `Bearer ${ADMIN}` }
const ACME = { clientId: 'acme-conveyancing', name: 'ACME Conveyancing' }

interface Row {
  clientId: string
  name: string
  registered: boolean
  lastRequestAt: string | null
  requests24h: number
  serverErrors24h: number
  findings: string[]
  readiness: { passed: number, failed: number, notTried: number }
  active: boolean
  ready: boolean
  attention: boolean
}
interface Overview {
  observing: boolean
  window: { from: string, to: string }
  totals: { partners: number, active: number, attention: number, ready: number }
  page: { page: number, pageSize: number, numberOfElements: number, totalElements: number, totalPages: number, first: boolean, last: boolean }
  sortResponses: Array<{ property: string, direction: string }>
  partners: Row[]
}

/** A GET over HTTP, its answer held to the control API's document; the status and the JSON body. */
async function get (app: FastifyInstance, base: string, path: string, headers: Record<string, string> = OPERATOR): Promise<{ status: number, json: any, headers: Headers, text: string }> {
  const res = await fetch(`${base}${path}`, { headers })
  const text = await res.text()
  checkAgainstDocs(app, 'GET', { statusCode: res.status, headers: Object.fromEntries(res.headers), body: text })
  return { status: res.status, json: res.headers.get('content-type')?.startsWith('application/json') === true ? JSON.parse(text) : null, headers: res.headers, text }
}

async function overview (app: FastifyInstance, base: string, query = ''): Promise<Overview> {
  const res = await get(app, base, `/__sandbox/admin/overview${query}`)
  if (res.status !== 200) throw new Error(`overview: ${res.status} ${res.text}`)
  return res.json
}

const rowOf = (o: Overview, clientId: string): Row => {
  const row = o.partners.find((p) => p.clientId === clientId)
  if (row === undefined) throw new Error(`no ${clientId} in ${JSON.stringify(o.partners.map((p) => p.clientId))}`)
  return row
}

/** The overview once the partner's requests reach n (a request is counted as its answer finishes, after the client has it), or after 3 s. */
async function overviewWith (app: FastifyInstance, base: string, clientId: string, n: number): Promise<Overview> {
  let o = await overview(app, base)
  for (let i = 0; i < 60 && rowOf(o, clientId).requests24h < n; i++) {
    await sleep(50)
    o = await overview(app, base)
  }
  return o
}

const ids = (o: Overview): string[] => o.partners.map((p) => p.clientId)

/** ACME registered by the operator: its secret (shown once) and agent ids. */
async function register (t: Test, base: string): Promise<{ clientSecret: string, agentIds: string[] }> {
  const res = await fetch(`${base}/__sandbox/admin/partners`, { method: 'POST', headers: { ...OPERATOR, 'content-type': 'application/json' }, body: JSON.stringify(ACME) })
  t.equal(res.status, 200, `${ACME.clientId} registered`)
  return await res.json() as { clientSecret: string, agentIds: string[] }
}

t.test("each partner with what its own traffic shows: its requests and the sandbox's own 5xx over 24 hours, its latest request, its findings and readiness as it reads them", async (t) => {
  const { app, base } = await listen(t, { adminToken: ADMIN })
  const acmeCredentials = await register(t, base)
  const before = await overview(app, base)
  t.same(ids(before).sort(), [ACME.clientId, 'partner-a', 'partner-b'], 'every partner: of the scenario and registered')
  t.same(rowOf(before, ACME.clientId), {
    ...ACME, registered: true, lastRequestAt: null, requests24h: 0, serverErrors24h: 0, findings: [], readiness: { passed: 0, failed: 0, notTried: 8 }, active: false, ready: false, attention: false
  }, 'a partner without requests')
  t.match(rowOf(before, 'partner-a'), { registered: false, name: 'Partner A (conveyancing software vendor)', lastRequestAt: null })
  const from = Date.parse(before.window.from)
  const to = Date.parse(before.window.to)
  t.equal(from % 3_600_000, 0, 'the window starts on a whole hour')
  t.ok(to - from > 23 * 3_600_000 && to - from <= 24 * 3_600_000, 'and reaches between 23 and 24 hours back')

  // partner-a's client, over HTTP: 14 requests, three of them answered with a 5xx the sandbox injected
  const bearer = await token(base)
  const statuses = [
    (await call(base, bearer, '/api/banks')).status,
    (await call(base, bearer, '/api/banks', { headers: { 'sandbox-fault': 'status=500' } })).status,
    (await call(base, bearer, '/__sandbox/faults', { body: { match: { method: 'GET', path: '/api/banks' }, fault: 'status=503', times: 1 }, headers: { 'agent-id': '' } })).status,
    (await call(base, bearer, '/api/banks')).status,
    (await call(base, bearer, '/api/accounts', { body: { customerId: '1001100000001', productCode: 'SANDBOX-FAULT-500' } })).status,
    // a deprecated version: a finding, and a failed readiness case
    (await call(base, bearer, '/4.0/api/banks')).status
  ]
  t.same(statuses, [200, 500, 200, 503, 500, 200])
  // a list read to its last page: a readiness case passed
  for (let page = 0; ; page++) {
    const res = await call(base, bearer, `/api/banks?size=5&page=${page}`)
    statuses.push(res.status)
    if (JSON.parse(res.body).page.last === true) break
  }
  const sent = 1 + statuses.length
  t.ok(sent >= 9, `${sent} requests with partner-a's credentials and token`)

  const o = await overviewWith(app, base, 'partner-a', sent)
  const a = rowOf(o, 'partner-a')
  t.equal(a.requests24h, sent, 'every request counted: the token request, the API and the control API')
  t.equal(a.serverErrors24h, 0, 'the injected 5xx (header, rule, magic value) are not the sandbox failing')
  // what the partner reads of itself (its journal: reading it adds nothing; its advice and readiness, after the overview was read)
  const journal = (await get(app, base, '/__sandbox/requests?limit=1', { authorization: `Bearer ${bearer}` })).json
  t.equal(journal.total, sent, 'the journal holds as many')
  t.equal(a.lastRequestAt, journal.requests[0].time, 'the latest request is the newest in the journal')
  t.equal((await get(app, base, '/__sandbox/requests?status=5xx', { authorization: `Bearer ${bearer}` })).json.total, 3, 'three 5xx in the journal')
  const advice = (await get(app, base, '/__sandbox/advice', { authorization: `Bearer ${bearer}` })).json
  t.same(a.findings, advice.findings.map((f: { code: string }) => f.code), 'the findings are the advice\'s, in its order')
  t.ok(a.findings.includes('DEPRECATED_VERSION'))
  const readiness = (await get(app, base, '/__sandbox/readiness', { authorization: `Bearer ${bearer}` })).json
  t.same(a.readiness, { passed: readiness.passed, failed: readiness.failed, notTried: readiness.notTried }, 'the readiness counts are the checklist\'s')
  t.ok(a.readiness.passed >= 1 && a.readiness.failed >= 1, `${a.readiness.passed} passed, ${a.readiness.failed} failed`)
  t.match(a, { active: true, ready: false, attention: true })
  t.match(rowOf(o, 'partner-b'), { requests24h: 0, lastRequestAt: null, findings: [] }, "another partner's traffic is not partner-b's")
  t.same(o.totals, { partners: 3, active: 1, attention: 1, ready: 0 })
  t.equal(ids(o)[0], 'partner-a', 'the most recently active first (the default order)')

  // the registered partner's first request
  await token(base, ACME.clientId, acmeCredentials.clientSecret)
  const acme = rowOf(await overviewWith(app, base, ACME.clientId, 1), ACME.clientId)
  t.match(acme, { requests24h: 1, serverErrors24h: 0, active: true, attention: false })
  t.not(acme.lastRequestAt, null)
})

t.test('sorted by every property either way, filtered and paged as asked; the totals count every partner', async (t) => {
  const { app, base } = await listen(t, { adminToken: ADMIN })
  await register(t, base)
  const a = await token(base)
  for (let i = 0; i < 3; i++) t.equal((await call(base, a, '/api/banks')).status, 200)
  await overviewWith(app, base, 'partner-a', 4)
  // partner-b last, with a deprecated call: a finding
  const b = await token(base, 'partner-b')
  t.equal((await call(base, b, '/4.0/api/banks', { headers: { 'agent-id': '2001' } })).status, 200)
  await overviewWith(app, base, 'partner-b', 2)

  const order = async (query: string): Promise<string[]> => ids(await overview(app, base, query))
  const A = 'partner-a'
  const B = 'partner-b'
  const C = ACME.clientId
  t.same(await order(''), [B, A, C], 'lastRequestAt, latest first; never last')
  t.same(await order('?sort=lastRequestAt,asc'), [C, A, B], 'never is the oldest')
  t.same(await order('?sort=clientId'), [C, A, B], 'ascending without a direction')
  t.same(await order('?sort=clientId,DESC'), [B, A, C])
  t.same(await order('?sort=name'), [C, A, B], 'ACME Conveyancing, Partner A ..., Partner B ...')
  t.same(await order('?sort=registered,desc'), [C, A, B], 'registered first; ties by client id')
  t.same(await order('?sort=requests24h,desc'), [A, B, C])
  t.same(await order('?sort=serverErrors24h'), [C, A, B], 'all equal: by client id')
  t.same(await order('?sort=findings,desc'), [B, C, A], 'of as many findings, by client id')
  t.same(await order('?sort=readiness,desc'), [A, C, B], 'partner-a passed a case; partner-b failed one')
  const sorted = await overview(app, base, '?sort=name,desc')
  t.same(sorted.sortResponses, [{ property: 'name', direction: 'DESC' }], 'the order applied')

  t.same(await order('?active=true&sort=clientId'), [A, B])
  t.same(await order('?active=false'), [C])
  t.same(await order('?attention=true'), [B])
  t.same(await order('?ready=true'), [])
  t.same(await order('?q=acme'), [C], 'by client id or name, any case')
  t.same(await order('?q=PARTNER%20A'), [A])
  t.same(await order('?q=partner&active=true&sort=clientId'), [A, B], 'filters together')

  const second = await overview(app, base, '?size=1&page=1')
  t.same(ids(second), [A])
  t.same(second.page, { page: 1, pageSize: 1, numberOfElements: 1, totalElements: 3, totalPages: 3, first: false, last: false })
  const past = await overview(app, base, '?size=2&page=5')
  t.same(past.partners, [])
  t.match(past.page, { page: 5, numberOfElements: 0, totalElements: 3, totalPages: 2, first: false, last: true })
  const none = await overview(app, base, '?q=nobody')
  t.match(none.page, { totalElements: 0, totalPages: 0, first: true, last: true })
  t.same(none.totals, { partners: 3, active: 2, attention: 1, ready: 0 }, 'the totals count every partner, whatever the filters')
})

t.test("a bad query is Spring's 400 naming the parameter and changes nothing; a parameter the overview does not know is ignored", async (t) => {
  const { app, base } = await listen(t, { adminToken: ADMIN })
  const bad: Array<[string, string, string]> = [
    ['sort=bogus', 'sort', 'Pattern'], ['sort=name,up', 'sort', 'Pattern'], ['size=0', 'size', 'Min'], ['size=1001', 'size', 'Max'],
    ['page=-1', 'page', 'Min'], ['page=x', 'page', 'typeMismatch'], ['active=maybe', 'active', 'typeMismatch'], ['q=', 'q', 'Size']
  ]
  for (const [query, field, code] of bad) {
    const res = await get(app, base, `/__sandbox/admin/overview?${query}`)
    t.equal(res.status, 400, query)
    t.equal(res.headers.get('x-sandbox-error'), 'SANDBOX_ERR_VALIDATION')
    t.match(res.json, { status: 400, error: 'Bad Request', path: '/__sandbox/admin/overview', errors: [{ field, code }] }, `${query}: names ${field}`)
  }
  t.equal((await get(app, base, '/__sandbox/admin/overview?unknown=1')).status, 200, 'as Spring ignores a parameter it does not bind')
})

t.test('only the operator reads it: no token, a wrong one or a partner\'s is a 401; without SANDBOX_ADMIN_TOKEN a 403', async (t) => {
  const { app, base } = await listen(t, { adminToken: ADMIN })
  const partner = await token(base)
  for (const [label, headers] of [['no token', {}], ['a wrong token', { authorization: 'Bearer operator-secret-wrong-1234' }], ["a partner's access token", { authorization: `Bearer ${partner}` }]] as const) {
    for (const path of ['/__sandbox/admin/overview', '/__sandbox/admin/partners/partner-a/readiness', '/__sandbox/admin/partners/partner-a/advice']) {
      const res = await get(app, base, path, headers)
      t.equal(res.status, 401, `${label}: ${path}`)
      t.equal(res.headers.get('x-sandbox-error'), 'SANDBOX_ERR_ADMIN_TOKEN')
      t.equal(res.headers.get('www-authenticate'), 'Bearer realm="sandbox-admin"')
    }
  }
  const off = await listen(t)
  const res = await get(off.app, off.base, '/__sandbox/admin/overview')
  t.equal(res.status, 403)
  t.match(res.json.message, /SANDBOX_ADMIN_TOKEN/)
})

t.test("the operator reads a partner's readiness and advice as the partner reads them; an unknown partner is a 404", async (t) => {
  const { app, base } = await listen(t, { adminToken: ADMIN })
  const bearer = await token(base)
  t.equal((await call(base, bearer, '/4.0/api/banks')).status, 200)
  await overviewWith(app, base, 'partner-a', 2)
  const own = { authorization: `Bearer ${bearer}` }
  for (const part of ['readiness', 'advice']) {
    const operator = await get(app, base, `/__sandbox/admin/partners/partner-a/${part}`)
    t.equal(operator.status, 200)
    t.same(operator.json, (await get(app, base, `/__sandbox/${part}`, own)).json, `${part}: what the partner reads`)
  }
  const junit = await get(app, base, '/__sandbox/admin/partners/partner-a/readiness', { ...OPERATOR, accept: 'application/xml' })
  t.match(junit.headers.get('content-type'), /^application\/xml/)
  t.match(junit.text, /<testsuite name="readiness\.partner-a" tests="8" failures="1"/, 'JUnit XML, as the partner gets it')
  t.match((await get(app, base, '/__sandbox/admin/partners/partner-a/readiness?format=junit')).text, /<testsuites /)
  for (const who of ['nobody', 'partner-a-web']) {
    const res = await get(app, base, `/__sandbox/admin/partners/${who}/readiness`)
    t.equal(res.status, 404, `${who}: no partner of that client id`)
    t.equal(res.headers.get('x-sandbox-error'), 'SANDBOX_ERR_NOT_FOUND')
  }
})

t.test('a reset starts the readiness afresh and keeps the counts; a deleted partner is gone from the overview', async (t) => {
  const { app, base } = await listen(t, { adminToken: ADMIN })
  const { clientSecret, agentIds } = await register(t, base)
  const bearer = await token(base, ACME.clientId, clientSecret)
  t.equal((await call(base, bearer, '/4.0/api/banks', { headers: { 'agent-id': agentIds[0] } })).status, 200)
  const listed = rowOf(await overviewWith(app, base, ACME.clientId, 2), ACME.clientId)
  t.ok(listed.findings.includes('DEPRECATED_VERSION'))
  t.equal((await call(base, bearer, '/__sandbox/reset', { method: 'POST', headers: { 'agent-id': '' } })).status, 200)
  const reset = rowOf(await overviewWith(app, base, ACME.clientId, 3), ACME.clientId)
  t.match(reset, { requests24h: 3, findings: [], readiness: { passed: 0, failed: 0, notTried: 8 } }, 'the advisor starts afresh; the traffic stays counted')
  t.equal((await fetch(`${base}/__sandbox/admin/partners/${ACME.clientId}`, { method: 'DELETE', headers: OPERATOR })).status, 204)
  const after = await overview(app, base)
  t.same(ids(after).sort(), ['partner-a', 'partner-b'])
  t.equal(after.totals.partners, 2)
})

t.test('with the journal off the requests are still counted; findings and readiness are not judged', async (t) => {
  const { app, base } = await listen(t, { adminToken: ADMIN, journalSize: 0 })
  const bearer = await token(base)
  t.equal((await call(base, bearer, '/4.0/api/banks')).status, 200)
  t.equal((await call(base, bearer, '/api/banks', { headers: { 'sandbox-fault': 'status=502' } })).status, 502)
  const o = await overviewWith(app, base, 'partner-a', 3)
  t.equal(o.observing, false)
  t.match(rowOf(o, 'partner-a'), { requests24h: 3, serverErrors24h: 0, findings: [], readiness: { passed: 0, failed: 0, notTried: 8 }, active: true, attention: false })
})
