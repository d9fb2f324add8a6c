import t from 'tap'
import { api, build, PARTNER_B, tokenFor } from '../helper.js'
import { todaySast } from '../../src/clock.js'

// spec 2.2: every field of an Account, all present on a seeded open account
const ACCOUNT_FIELDS = ['id', 'number', 'agentId', 'bankId', 'branchCode', 'accountType', 'customers', 'label', 'type', 'balance', 'swiftBic', 'openedDate']

t.test('GET /api/accounts/{accountId} answers a seeded account of the agent with every field of spec 2.2', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts/1001200000001' })
  t.equal(res.statusCode, 200)
  const account = res.json()
  for (const field of ACCOUNT_FIELDS) t.ok(account[field] !== undefined, `${field} is present`)
  t.match(account, {
    id: '1001200000001',
    number: '10010000001',
    agentId: 1001,
    accountType: 'CALL',
    balance: { currency: 'ZAR', amount: 250000 },
    openedDate: '2025-03-14',
    customers: [{ customerId: '1001100000001', displayName: String, provider: String }]
  })
  t.equal(account.closedDate, undefined, 'an open account has no closedDate')
  t.notOk('productCode' in account, 'internal fields do not leak')
})

t.test('GET /api/accounts/{accountId} shows closedDate on a closed account', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts/1001200000005' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().closedDate, '2024-02-01')
})

t.test("GET /api/accounts/{accountId} is a 404 for another agent's account, another partner's account and an unknown id", async (t) => {
  const app = await build(t)
  const other = await api(app, { url: '/api/accounts/1001200000001', agent: '1002' })
  t.equal(other.statusCode, 404, "agent 1002 cannot read agent 1001's account")
  t.equal(other.json().status, 404)
  const b = await api(app, { url: '/api/accounts/1001200000001', agent: '2001', token: await tokenFor(app, PARTNER_B) })
  t.equal(b.statusCode, 404, "partner-b cannot read partner-a's account")
  const unknown = await api(app, { url: '/api/accounts/1001299999999' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.headers['x-sandbox-error'], 'SANDBOX_ERR_NOT_FOUND')
})

t.test('GET /api/accounts/{accountId} rejects an id over 16 digits or not numeric with 400 naming accountId', async (t) => {
  const app = await build(t)
  const ok16 = await api(app, { url: '/api/accounts/1234567890123456' })
  t.equal(ok16.statusCode, 404, '16 digits pass the rule (and are simply unknown)')
  for (const bad of ['12345678901234567', 'abc', '12.5']) {
    const res = await api(app, { url: `/api/accounts/${bad}` })
    t.equal(res.statusCode, 400, `${bad} is refused`)
    t.match(res.json().errors, [{ field: 'accountId', rejectedValue: bad, code: 'Digits' }])
    t.match(res.json().message, /^accountId: numeric value out of bounds/)
  }
})

t.test("GET /api/accounts lists the agent's accounts, paged", async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts?size=2000' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.ok(body.accounts.length > 5)
  t.equal(body.page.totalElements, body.accounts.length)
  t.ok(body.accounts.every((a: { agentId: number }) => a.agentId === 1001), 'only agent 1001 accounts')
  t.same(body.sortResponses, [])
  const first = await api(app, { url: '/api/accounts?page=0&size=3' })
  const second = await api(app, { url: '/api/accounts?page=1&size=3' })
  t.same(first.json().accounts, body.accounts.slice(0, 3))
  t.same(second.json().accounts, body.accounts.slice(3, 6))
  t.match(second.json().page, { page: 1, pageSize: 3, numberOfElements: 3, totalElements: body.accounts.length, first: false })
})

t.test('GET /api/accounts?customerId= lists the accounts of that customer only', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts?customerId=1001100000001' })
  t.equal(res.statusCode, 200)
  t.same(res.json().accounts.map((a: { id: string }) => a.id), ['1001200000001', '1001200000002'])
  t.equal(res.json().page.totalElements, 2)
  const other = await api(app, { url: '/api/accounts?customerId=1002100000001' })
  t.equal(other.statusCode, 200, "another agent's customer is not an error...")
  t.same(other.json().accounts, [], '...but an empty page')
  t.match(other.json().page, { totalElements: 0, totalPages: 0, first: true, last: true })
  const bad = await api(app, { url: '/api/accounts?customerId=12345678901234567890' })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().errors, [{ field: 'customerId', code: 'Digits' }])
})

t.test('agent 1002 never sees the accounts of agent 1001', async (t) => {
  const app = await build(t)
  const mine = (await api(app, { url: '/api/accounts?size=2000' })).json().accounts.map((a: { id: string }) => a.id)
  const theirs = (await api(app, { url: '/api/accounts?size=2000', agent: '1002' })).json()
  t.ok(theirs.accounts.length > 0)
  t.ok(theirs.accounts.every((a: { agentId: number, id: string }) => a.agentId === 1002 && !mine.includes(a.id)))
  const byCustomer = await api(app, { url: '/api/accounts?customerId=1001100000001', agent: '1002' })
  t.same(byCustomer.json().accounts, [])
})

t.test('POST /api/accounts without productCode opens a call account of today with a zero ZAR balance', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts', body: { customerId: '1001100000001' } })
  t.equal(res.statusCode, 200)
  const account = res.json()
  t.match(account, {
    id: /^1001\d{9}$/,
    number: /^\d+$/,
    agentId: 1001,
    accountType: 'CALL',
    openedDate: todaySast(),
    balance: { currency: 'ZAR', amount: 0 },
    customers: [{ customerId: '1001100000001', displayName: String, provider: String }]
  })
  t.equal(account.customers.length, 1)
  t.ok(account.id.length <= 16, 'the id keeps within the 16 digits of accountId')
  t.equal(account.closedDate, undefined)
})

t.test('the South African date is a day ahead of UTC between 22:00 and midnight UTC', async (t) => {
  t.equal(todaySast(Date.parse('2026-03-31T22:30:00Z')), '2026-04-01')
  t.equal(todaySast(Date.parse('2026-03-31T21:59:59Z')), '2026-03-31')
})

t.test('POST /api/accounts with productCode NOTICE32 opens a notice account', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts', body: { customerId: '1001100000002', productCode: 'NOTICE32' } })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { accountType: 'NOTICE', type: 'TRUST 32-DAY NOTICE ACCOUNT', customers: [{ customerId: '1001100000002' }] })
})

t.test('POST /api/accounts refuses an unknown productCode, naming productCode', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts', body: { customerId: '1001100000001', productCode: 'GOLD' } })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { message: "Validation failed for object='accountCreateRequest'. Error count: 1", errors: [{ field: 'productCode', rejectedValue: 'GOLD', code: 'KnownProduct' }] })
})

t.test("POST /api/accounts refuses a customer that is not the agent's, naming customerId", async (t) => {
  const app = await build(t)
  for (const customerId of ['1002100000001', '2001100000001', '1001199999999']) {
    const res = await api(app, { url: '/api/accounts', body: { customerId } })
    t.equal(res.statusCode, 400, customerId)
    t.match(res.json().errors, [{ field: 'customerId', rejectedValue: customerId, code: 'CustomerOfAgent' }])
  }
})

t.test('POST /api/accounts checks the sizes of customerId and productCode', async (t) => {
  const app = await build(t)
  const long = await api(app, { url: '/api/accounts', body: { customerId: '12345678901234567890' } })
  t.equal(long.statusCode, 400)
  t.match(long.json().errors, [{ field: 'customerId', code: 'Digits', defaultMessage: 'numeric value out of bounds (<19 digits>.<0 digits> expected)' }])
  const code = await api(app, { url: '/api/accounts', body: { customerId: '1001100000001', productCode: 'X'.repeat(257) } })
  t.equal(code.statusCode, 400)
  t.match(code.json().errors, [{ field: 'productCode', code: 'Size', defaultMessage: 'size must be between 1 and 256' }])
  t.equal(code.json().errors.length, 1, 'the size error alone, not also KnownProduct')
  const empty = await api(app, { url: '/api/accounts', body: { customerId: '1001100000001', productCode: '' } })
  t.equal(empty.statusCode, 400)
  t.match(empty.json().errors, [{ field: 'productCode', code: 'Size' }])
  const missing = await api(app, { url: '/api/accounts', body: {} })
  t.equal(missing.statusCode, 400)
  t.match(missing.json().errors, [{ field: 'customerId', code: 'NotNull', defaultMessage: 'must not be null' }])
})

t.test('a new account is readable at once, by id and in the lists', async (t) => {
  const app = await build(t)
  const created = (await api(app, { url: '/api/accounts', body: { customerId: '1001100000003', productCode: 'FIXED12' } })).json()
  const read = await api(app, { url: `/api/accounts/${created.id as string}` })
  t.equal(read.statusCode, 200)
  t.same(read.json(), created)
  const ofCustomer = (await api(app, { url: '/api/accounts?customerId=1001100000003' })).json()
  t.same(ofCustomer.accounts.at(-1), created, 'last of the customer\'s accounts')
  const all = (await api(app, { url: '/api/accounts?size=2000' })).json()
  t.ok(all.accounts.some((a: { id: string }) => a.id === created.id))
  const theirs = await api(app, { url: `/api/accounts/${created.id as string}`, agent: '1002' })
  t.equal(theirs.statusCode, 404)
})

t.test('POST /api/accounts ignores id and agentId in the body', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts', body: { customerId: '1001100000001', id: '1001200000001', agentId: 1002, number: '1', balance: { currency: 'USD', amount: 5 } } })
  t.equal(res.statusCode, 200)
  const account = res.json()
  t.not(account.id, '1001200000001')
  t.equal(account.agentId, 1001)
  t.not(account.number, '1')
  t.same(account.balance, { currency: 'ZAR', amount: 0 })
  const original = await api(app, { url: '/api/accounts/1001200000001' })
  t.equal(original.json().balance.amount, 250000, 'the seeded account is untouched')
})
