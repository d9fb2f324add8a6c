import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { api, build, PARTNER_B, tokenFor } from './helper.js'

/* State controls (issue 11): close/reopen, balances, KYC, each visible at once in the bank's reads. */

const ACCOUNT = '1001200000001' // open, 250 000.00 ZAR, holder 1001100000001
const CUSTOMER = '1001100000001' // individual, KYC verified
const TRUST = '1001100000002' // one other customer

const read = async (app: FastifyInstance, url: string) => (await api(app, { url })).json()

t.test('close and reopen an account: closedDate follows, in every read', async (t) => {
  const app = await build(t)
  const closed = await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close` })
  t.equal(closed.statusCode, 200)
  const today = (await api(app, { url: '/__sandbox/clock', agent: null })).json().today
  t.equal(closed.json().closedDate, today, "closedDate is the partner's today")
  t.equal((await read(app, `/api/accounts/${ACCOUNT}`)).closedDate, today, 'GET /api/accounts/{id} shows it')
  const listed = (await read(app, `/api/accounts?customerId=${CUSTOMER}`)).accounts.find((a: { id: string }) => a.id === ACCOUNT)
  t.equal(listed.closedDate, today, 'the list by customer shows it')
  const page = (await read(app, '/api/accounts?size=2000')).accounts.find((a: { id: string }) => a.id === ACCOUNT)
  t.equal(page.closedDate, today, 'the agent list shows it')
  const again = await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close`, body: { closedDate: '2030-01-01' } })
  t.equal(again.json().closedDate, today, 'closing a closed account changes nothing')
  const reopened = await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/reopen` })
  t.equal(reopened.statusCode, 200)
  t.notOk('closedDate' in reopened.json(), 'open again')
  t.notOk('closedDate' in await read(app, `/api/accounts/${ACCOUNT}`))
  const dated = await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close`, body: { closedDate: '2026-02-28' } })
  t.equal(dated.json().closedDate, '2026-02-28', 'on a date of choice')
  const early = await api(app, { method: 'POST', url: '/__sandbox/accounts/1001200000002/close', body: { closedDate: '1999-01-01' } })
  t.equal(early.statusCode, 400, 'not before openedDate')
  t.notOk('closedDate' in await read(app, '/api/accounts/1001200000002'), 'and nothing changed')
})

t.test('set, credit and debit a balance', async (t) => {
  const app = await build(t)
  const set = await api(app, { method: 'PUT', url: `/__sandbox/accounts/${ACCOUNT}/balance`, body: { amount: 1000.1 } })
  t.same(set.json().balance, { currency: 'ZAR', amount: 1000.1 })
  t.equal((await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/credit`, body: { amount: 0.2 } })).json().balance.amount, 1000.3, 'money arrives (no float drift)')
  t.equal((await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/debit`, body: { amount: 1500 } })).json().balance.amount, -499.7, 'a debit may go below zero')
  t.equal((await read(app, `/api/accounts/${ACCOUNT}`)).balance.amount, -499.7, 'the read shows it')
  for (const [url, body] of [
    ['balance', { amount: 1.001 }], ['balance', { amount: 'much' }], ['balance', {}], ['balance', { amount: 1e14 }],
    ['credit', { amount: 0 }], ['credit', { amount: -5 }], ['debit', { amount: 0.005 }], ['credit', { amount: 5, extra: 1 }]
  ] as Array<[string, unknown]>) {
    const res = await api(app, { method: url === 'balance' ? 'PUT' : 'POST', url: `/__sandbox/accounts/${ACCOUNT}/${url}`, body })
    t.equal(res.statusCode, 400, `${url} ${JSON.stringify(body)} is a 400`)
  }
  t.equal((await read(app, `/api/accounts/${ACCOUNT}`)).balance.amount, -499.7, 'bad input changed nothing')
  await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close` })
  const closed = await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/credit`, body: { amount: 5 } })
  t.equal(closed.statusCode, 409, 'a closed account takes no money')
  t.match(closed.json().message, /closed/)
})

t.test("set a customer's KYC status, of the default customer or of another one", async (t) => {
  const app = await build(t)
  const off = await api(app, { method: 'PUT', url: `/__sandbox/customers/${CUSTOMER}/kyc`, body: { kycStatus: false } })
  t.equal(off.statusCode, 200)
  t.equal(off.json().defaultCustomer.kycStatus, false)
  t.equal((await read(app, `/api/customers/${CUSTOMER}`)).defaultCustomer.kycStatus, false, 'the read shows it')
  const listed = (await read(app, '/api/customers?size=5')).customers.find((c: { customerId: string }) => c.customerId === CUSTOMER)
  t.equal(listed.defaultCustomer.kycStatus, false, 'the list shows it')
  const other = await api(app, { method: 'PUT', url: `/__sandbox/customers/${TRUST}/kyc`, body: { kycStatus: true, otherCustomer: 0 } })
  t.equal(other.json().otherCustomers[0].kycStatus, true, 'another customer of the record')
  const past = await api(app, { method: 'PUT', url: `/__sandbox/customers/${TRUST}/kyc`, body: { kycStatus: true, otherCustomer: 5 } })
  t.equal(past.statusCode, 400, 'an index past otherCustomers is a 400')
  t.equal(past.json().errors[0].field, 'otherCustomer')
  t.equal((await api(app, { method: 'PUT', url: `/__sandbox/customers/${CUSTOMER}/kyc`, body: {} })).statusCode, 400, 'kycStatus is required')
})

t.test("another agent's or partner's record is a 404; a foreign Agent-Id a 403; no token a 401", async (t) => {
  const app = await build(t)
  const b = await tokenFor(app, PARTNER_B)
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/accounts/2001200000001/close' })).statusCode, 404, "partner-b's account")
  t.equal((await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close`, agent: '1002' })).statusCode, 404, "agent 1002 acting on 1001's account")
  t.equal((await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close`, token: b, agent: '2001' })).statusCode, 404, "partner-b acting on partner-a's")
  t.equal((await api(app, { method: 'PUT', url: `/__sandbox/customers/${CUSTOMER}/kyc`, token: b, agent: '2001', body: { kycStatus: false } })).statusCode, 404)
  t.equal((await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close`, agent: '2001' })).statusCode, 403, "an Agent-Id that is not partner-a's")
  t.equal((await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close`, agent: null })).statusCode, 400, 'Agent-Id is required')
  t.equal((await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close`, token: null })).statusCode, 401)
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/accounts/12x/close' })).statusCode, 400, 'a malformed id')
  t.notOk('closedDate' in await read(app, `/api/accounts/${ACCOUNT}`), 'nothing was closed')
  t.equal((await api(app, { url: '/api/accounts/2001200000001', token: b, agent: '2001' })).json().closedDate, undefined, "partner-b's account untouched")
})

t.test('a reset undoes the state changes', async (t) => {
  const app = await build(t)
  await api(app, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close` })
  await api(app, { method: 'PUT', url: `/__sandbox/customers/${CUSTOMER}/kyc`, body: { kycStatus: false } })
  await api(app, { method: 'POST', url: '/__sandbox/reset', agent: null })
  t.notOk('closedDate' in await read(app, `/api/accounts/${ACCOUNT}`))
  t.equal((await read(app, `/api/customers/${CUSTOMER}`)).defaultCustomer.kycStatus, true)
})

t.test('with a data dir the state changes survive a restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-state-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const first = await build(t, { dataDir: dir })
  await api(first, { method: 'POST', url: `/__sandbox/accounts/${ACCOUNT}/close`, body: { closedDate: '2026-03-01' } })
  await api(first, { method: 'PUT', url: '/__sandbox/accounts/1001200000002/balance', body: { amount: 42.42 } })
  await api(first, { method: 'PUT', url: `/__sandbox/customers/${CUSTOMER}/kyc`, body: { kycStatus: false } })
  await first.close()
  const second = await build(t, { dataDir: dir })
  t.equal((await read(second, `/api/accounts/${ACCOUNT}`)).closedDate, '2026-03-01')
  t.equal((await read(second, '/api/accounts/1001200000002')).balance.amount, 42.42)
  t.equal((await read(second, `/api/customers/${CUSTOMER}`)).defaultCustomer.kycStatus, false)
  const listed = (await read(second, `/api/accounts?customerId=${CUSTOMER}`)).accounts.find((a: { id: string }) => a.id === ACCOUNT)
  t.equal(listed.closedDate, '2026-03-01', 'the per-customer list holds the changed record too')
})
