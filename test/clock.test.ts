import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { advanceBy, parseInstant, todaySast } from '../src/clock.js'
import { api, build, PARTNER_B, tokenFor } from './helper.js'

/* The sandbox clock of a partner (issue 11): the dates its data gets follow it, nobody else's. */

const clock = async (app: FastifyInstance, method: 'GET' | 'PUT' | 'DELETE', body?: unknown, token?: string) =>
  await api(app, { method, url: '/__sandbox/clock', body, agent: null, token })

const MESSAGE = { message: 'TICK', fromDepartment: 'CI', fromPerson: 'CI' }

t.test('real time until set', async (t) => {
  const app = await build(t)
  const res = (await clock(app, 'GET')).json()
  t.equal(res.mode, 'real')
  t.equal(res.today, todaySast())
  t.ok(Math.abs(Date.parse(res.now) - Date.now()) < 5000)
  t.equal(res.offsetMs, 0)
})

t.test('set now: every date written for the partner follows; other partners and tokens stay on real time', async (t) => {
  const app = await build(t)
  const set = await clock(app, 'PUT', { now: '2030-06-15T10:00:00+02:00' })
  t.equal(set.statusCode, 200)
  t.match(set.json(), { mode: 'offset', today: '2030-06-15' })
  t.match(set.json().localDateTime, /^2030-06-15T10:00/)
  const customer = await api(app, { url: '/api/customers', body: { defaultCustomer: { entityTypeId: '3', name1: 'CLOCK TRUST', identifyingNumber: 'IT 2/2020', taxNumber: '9001339050' } } })
  const [account] = (await api(app, { url: `/api/accounts?customerId=${customer.json().customerId as string}` })).json().accounts
  t.equal(account.openedDate, '2030-06-15', "the new customer's call account opens on the partner's today")
  const opened = await api(app, { url: '/api/accounts', body: { customerId: '1001100000001' } })
  t.equal(opened.json().openedDate, '2030-06-15', 'POST /api/accounts too')
  const message = await api(app, { url: '/api/customers/1001100000001/messages', body: MESSAGE })
  t.match(message.json().dateCreated, /^2030-06-15T10:0/, 'message dateCreated')
  const closed = await api(app, { method: 'POST', url: `/__sandbox/accounts/${opened.json().id as string}/close` })
  t.equal(closed.json().closedDate, '2030-06-15', 'closedDate of the state control')
  const error = await api(app, { url: '/api/accounts/1001299999999' })
  t.match(error.json().timestamp, /^2030-06-15T/, 'error timestamps')
  const b = await tokenFor(app, PARTNER_B)
  const other = await api(app, { url: '/api/customers/2001100000001/messages', body: MESSAGE, token: b, agent: '2001' })
  t.match(other.json().dateCreated, new RegExp(`^${todaySast()}`), 'partner-b stays on real time')
  t.equal((await clock(app, 'GET', undefined, b)).json().mode, 'real')
  const later = await api(app, { method: 'POST', url: '/api/customers/1001100000001/messages', body: MESSAGE })
  t.equal(later.statusCode, 200, 'tokens issued before still work (their exp is real time)')
  const fresh = await app.inject({ method: 'POST', url: '/auth/realms/sandbox/protocol/openid-connect/token', headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' })
  const claims = JSON.parse(Buffer.from(fresh.json().access_token.split('.')[1], 'base64url').toString())
  t.ok(Math.abs(claims.iat * 1000 - Date.now()) < 10000, 'a new token has a real-time iat')
})

t.test("the partner's today judges a company's registration year, in the schema's answer too, and a snapshot of that world restores", async (t) => {
  const app = await build(t)
  const realYear = Number(todaySast().slice(0, 4))
  const future = realYear + 4
  const company = (year: number, extra: Record<string, unknown> = {}) => ({
    defaultCustomer: { entityTypeId: '5', name1: 'TOMORROW (PTY) LTD', identifyingNumber: `${year}/000001/07`, taxNumber: '9001339050', ...extra }
  })
  const before = await api(app, { url: '/api/customers', body: company(future) })
  t.equal(before.statusCode, 400, 'on real time a company registered in a later year is refused')
  t.match(before.json().errors, [{ field: 'defaultCustomer.identifyingNumber', code: 'CompanyRegistrationNumber' }])

  await clock(app, 'PUT', { now: `${future}-03-01` })
  const created = await api(app, { url: '/api/customers', body: company(future) })
  t.equal(created.statusCode, 200, "the same company is valid once the partner's clock is in that year")
  const mixed = await api(app, { url: '/api/customers', body: company(future, { name1: '' }) })
  t.equal(mixed.statusCode, 400)
  t.same([...new Set(mixed.json().errors.map((e: { field: string }) => e.field))], ['defaultCustomer.name1'], 'with a schema error in the body, the rules still judge by the partner\'s today')
  t.match((await api(app, { url: '/api/customers', body: company(future + 1) })).json().errors, [{ code: 'CompanyRegistrationNumber', defaultMessage: new RegExp(`to ${future}$`) }],
    "a year past the partner's today is still refused, and the message names the partner's year")
  const b = await tokenFor(app, PARTNER_B)
  t.equal((await api(app, { url: '/api/customers', body: company(future), token: b, agent: '2001' })).statusCode, 400, 'another partner stays on real time')

  const snapshot = (await api(app, { method: 'GET', url: '/__sandbox/snapshot', agent: null })).json()
  await clock(app, 'DELETE')
  const restored = await api(app, { method: 'PUT', url: '/__sandbox/snapshot', body: snapshot, agent: null })
  t.equal(restored.statusCode, 200, 'a snapshot taken with the clock ahead restores on real time (its own clock comes back with it)')
  t.equal((await api(app, { url: `/api/customers/${created.json().customerId as string}`, method: 'GET' })).statusCode, 200)
})

t.test('advance by a duration, freeze, and back to real time', async (t) => {
  const app = await build(t)
  await clock(app, 'PUT', { now: '2027-01-31', frozen: true })
  const frozen = (await clock(app, 'GET')).json()
  t.match(frozen, { mode: 'frozen', today: '2027-01-31', localDateTime: '2027-01-31T00:00:00.000' })
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal((await clock(app, 'GET')).json().localDateTime, '2027-01-31T00:00:00.000', 'a frozen clock does not move')
  const month = await clock(app, 'PUT', { advance: 'P1M' })
  t.match(month.json(), { mode: 'frozen', today: '2027-02-28' }, 'P1M from 31 January is 28 February; the clock stays frozen')
  t.equal((await clock(app, 'PUT', { advance: 'P30DT12H' })).json().localDateTime, '2027-03-30T12:00:00.000')
  const running = await clock(app, 'PUT', { advance: 'PT1H', frozen: false })
  t.equal(running.json().mode, 'offset', 'frozen: false lets it run on')
  const real = await clock(app, 'DELETE')
  t.match(real.json(), { mode: 'real', offsetMs: 0, today: todaySast() })
})

t.test('a reset returns the clock to real time', async (t) => {
  const app = await build(t)
  await clock(app, 'PUT', { now: '2031-01-01' })
  await api(app, { method: 'POST', url: '/__sandbox/reset', agent: null })
  t.equal((await clock(app, 'GET')).json().mode, 'real')
})

t.test('bad clock requests are 400s naming the field, and change nothing', async (t) => {
  const app = await build(t)
  await clock(app, 'PUT', { now: '2029-05-05T12:00:00Z', frozen: true })
  for (const body of [{}, { now: '2029-02-30' }, { now: 'tomorrow' }, { now: '1969-12-31' }, { now: '2029-01-01T25:00' }, { advance: 'P' }, { advance: '30D' },
    { advance: '-P1D' }, { advance: 'P9999Y' }, { now: '2029-01-01', advance: 'P1D' }, { now: '2029-01-01', later: true }, { frozen: true }]) {
    const res = await clock(app, 'PUT', body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_VALIDATION')
  }
  t.equal((await clock(app, 'GET')).json().now, '2029-05-05T12:00:00.000Z', 'still where it was')
  t.equal((await api(app, { method: 'PUT', url: '/__sandbox/clock', body: { advance: 'P1D' }, agent: null, token: null })).statusCode, 401)
})

t.test('instants and durations are read as ISO 8601 says', async (t) => {
  t.equal(parseInstant('2027-01-01'), Date.parse('2026-12-31T22:00:00Z'), 'a date is midnight in South Africa')
  t.equal(parseInstant('2027-01-01T08:30'), Date.parse('2027-01-01T06:30:00Z'), 'a local date-time is South African time')
  t.equal(parseInstant('2027-01-01T08:30:00.5-05:00'), Date.parse('2027-01-01T13:30:00.500Z'))
  t.equal(parseInstant('2024-02-29'), Date.parse('2024-02-28T22:00:00Z'), 'a leap day')
  t.equal(parseInstant('2023-02-29'), undefined)
  const from = Date.parse('2027-01-31T10:00:00Z')
  t.equal(advanceBy(from, 'P1Y'), Date.parse('2028-01-31T10:00:00Z'))
  t.equal(advanceBy(Date.parse('2024-02-29T10:00:00Z'), 'P1Y'), Date.parse('2025-02-28T10:00:00Z'), '29 February + P1Y is 28 February')
  t.equal(advanceBy(from, 'P2W'), from + 14 * 86400000)
  t.equal(advanceBy(from, 'PT1.5S'), from + 1500)
  t.equal(advanceBy(from, 'PT'), undefined, 'T needs a part')
})
