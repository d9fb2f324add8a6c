import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { api, build, BENEFICIARY_REQUEST, PARTNER_B, tokenFor } from './helper.js'

/*
 * Faults by header (issue 11), over inject: status, latency, after, Prefer, malformed values. The faults
 * that drop the connection (reset, timeout) need a socket: test/faults-http.test.ts.
 */

const MESSAGE = { message: 'HELLO', fromDepartment: 'CI', fromPerson: 'CI' }
const CUSTOMER = '1001100000001'

async function messageCount (app: FastifyInstance, token?: string): Promise<number> {
  const res = await api(app, { url: `/api/customers/${CUSTOMER}/messages?size=1`, token })
  return res.json().page.totalElements
}

t.test('status=<code> answers that status in the error shape instead of running the operation', async (t) => {
  const app = await build(t)
  const before = await messageCount(app)
  for (const status of [400, 401, 404, 409, 418, 429, 500, 502, 503, 504, 599]) {
    const res = await api(app, { url: `/api/customers/${CUSTOMER}/messages`, body: MESSAGE, headers: { 'sandbox-fault': `status=${status}` } })
    t.equal(res.statusCode, status, `status ${status}`)
    const body = res.json()
    t.same(Object.keys(body), ['timestamp', 'status', 'error', 'message', 'path', 'errors'], 'Spring error body')
    t.equal(body.status, status)
    t.equal(body.path, `/api/customers/${CUSTOMER}/messages`, 'the request path')
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_FAULT_INJECTED')
    t.equal(res.headers['sandbox-fault-applied'], `status=${status}; source=header`)
    t.equal(res.headers['retry-after'], status === 429 || status === 503 ? '5' : undefined, 'Retry-After on 429 and 503 only')
    if (status === 401) t.match(res.headers['www-authenticate'], /^Bearer/, '401 carries a Bearer challenge')
  }
  t.equal(await messageCount(app), before, 'nothing was created')
})

t.test('every versioned path takes the header, and reads too', async (t) => {
  const app = await build(t)
  for (const url of ['/api/banks', '/4.1/api/banks', '/4.0/api/customers', '/1.3/api/accounts/1001200000001']) {
    const res = await api(app, { url, headers: { 'sandbox-fault': 'status=503' } })
    t.equal(res.statusCode, 503, url)
    t.equal(res.json().path, url.split('?')[0], `${url}: path as sent`)
  }
  const guarantee = await app.inject({ url: '/api/guarantees/GTE-A-0001/state', headers: { 'sandbox-fault': 'status=500' } })
  t.equal(guarantee.statusCode, 500, 'the public guarantee state takes it without a token')
})

t.test('latency=<ms> waits, then answers as usual', async (t) => {
  const app = await build(t)
  const started = Date.now()
  const res = await api(app, { url: `/api/customers/${CUSTOMER}`, headers: { 'sandbox-fault': 'latency=300' } })
  t.ok(Date.now() - started >= 290, 'waited')
  t.equal(res.statusCode, 200)
  t.equal(res.json().customerId, CUSTOMER)
  t.equal(res.headers['sandbox-fault-applied'], 'latency=300; source=header')
  const both = await api(app, { url: `/api/customers/${CUSTOMER}`, headers: { 'sandbox-fault': 'latency=100, status=504' } })
  t.equal(both.statusCode, 504, 'latency then status')
})

t.test('after, status=502 creates exactly one record and still answers 502', async (t) => {
  const app = await build(t)
  const before = await messageCount(app)
  const res = await api(app, { url: `/api/customers/${CUSTOMER}/messages`, body: { ...MESSAGE, message: 'ONCE' }, headers: { 'sandbox-fault': 'after, status=502' } })
  t.equal(res.statusCode, 502)
  t.equal(res.headers['sandbox-fault-applied'], 'after, status=502; source=header')
  t.equal(res.json().error, 'Bad Gateway')
  t.equal(await messageCount(app), before + 1, 'the operation ran once')
  const customers = await api(app, { url: '/api/customers?size=1' })
  const created = await api(app, { url: '/api/customers', body: { defaultCustomer: { entityTypeId: '3', name1: 'AFTER TRUST', identifyingNumber: 'IT 1/2020', taxNumber: '9001339050' } }, headers: { 'sandbox-fault': 'status=502,after' } })
  t.equal(created.statusCode, 502, 'order of items does not matter')
  t.equal((await api(app, { url: '/api/customers?size=1' })).json().page.totalElements, customers.json().page.totalElements + 1, 'customer created')
  const invalid = await api(app, { url: `/api/customers/${CUSTOMER}/messages`, body: { message: 'X' }, headers: { 'sandbox-fault': 'after, status=502' } })
  t.equal(invalid.statusCode, 400, 'an invalid request is refused as usual: the fault applies to operations that run')
})

t.test("Prism's Prefer: code=<status> gives that status; code=2xx and other preferences change nothing", async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/banks', headers: { prefer: 'code=404' } })
  t.equal(res.statusCode, 404)
  t.equal(res.headers['sandbox-fault-applied'], 'status=404; source=prefer')
  t.equal((await api(app, { url: '/api/banks', headers: { prefer: 'respond-async, code=503' } })).statusCode, 503, 'among other preferences')
  t.equal((await api(app, { url: '/api/banks', headers: { prefer: 'code=200' } })).statusCode, 200, 'code=200 asks for the normal answer')
  t.equal((await api(app, { url: '/api/banks', headers: { prefer: 'return=minimal' } })).statusCode, 200, 'other preferences are ignored (RFC 7240)')
  const bad = await api(app, { url: '/api/banks', headers: { prefer: 'code=abc' } })
  t.equal(bad.statusCode, 400, 'a code that is no status is a 400')
  t.equal(bad.json().errors[0].field, 'Prefer')
  t.equal((await api(app, { url: '/api/banks', headers: { prefer: 'code=404', 'sandbox-fault': 'status=500' } })).statusCode, 500, 'Sandbox-Fault wins over Prefer')
})

t.test('a malformed Sandbox-Fault is a 400 naming the header and what is wrong, and changes nothing', async (t) => {
  const app = await build(t)
  const before = await messageCount(app)
  const cases: Array<[string, RegExp]> = [
    ['', /empty/],
    ['   ', /empty/],
    ['status', /needs a value/],
    ['status=', /needs a value/],
    ['status=200', /from 400 to 599/],
    ['status=600', /from 400 to 599/],
    ['status=5xx', /integer/],
    ['status=-1', /integer/],
    ['latency=60001', /from 0 to 60000/],
    ['latency=1.5', /integer/],
    ['latency=1e3', /integer/],
    ['reset=1', /takes no value/],
    ['after', /nothing to apply/],
    ['status=500, reset', /only one of/],
    ['reset, timeout', /only one of/],
    ['status=500, status=502', /twice/],
    ['status=500,,after', /empty item/],
    ['explode', /unknown item/],
    ['status=500; after', /integer/]
  ]
  for (const [value, why] of cases) {
    const res = await api(app, { url: `/api/customers/${CUSTOMER}/messages`, body: MESSAGE, headers: { 'sandbox-fault': value } })
    t.equal(res.statusCode, 400, `'${value}' is a 400`)
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_VALIDATION')
    const error = res.json().errors[0]
    t.equal(error.field, 'Sandbox-Fault', 'names the header')
    t.match(error.defaultMessage, why, `'${value}': ${String(why)}`)
    t.notOk(res.headers['sandbox-fault-applied'], 'no fault applied')
  }
  t.equal(await messageCount(app), before, 'nothing was created')
})

t.test('no header, no fault: answers carry no Sandbox-Fault-Applied, and another partner is never touched', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/banks' })
  t.equal(res.statusCode, 200)
  t.notOk(res.headers['sandbox-fault-applied'])
  const b = await api(app, { url: '/api/customers/2001100000001/beneficiaries', agent: '2001', token: await tokenFor(app, PARTNER_B), body: BENEFICIARY_REQUEST })
  t.equal(b.statusCode, 200, "partner-b's create works while partner-a injects faults")
})
