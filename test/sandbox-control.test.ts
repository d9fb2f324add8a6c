import t, { type Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { serialise } from '../src/store/serialise.js'
import type { StoredCustomer } from '../src/store/records.js'
import { api, build, tokenFor, userToken, withoutCredentials, PARTNER_B, TOKEN_PATH, type Credentials } from './helper.js'

const ADMIN = 'operator-secret-0123456789'

/** A partner's whole data as the data file would hold it (its credentials aside): the byte-exact way to compare states. */
function bytesOf (app: FastifyInstance, partnerId: string): string {
  return serialise(withoutCredentials(app.world.partner(partnerId)!.snapshot()))
}

function agentBytes (app: FastifyInstance, partnerId: string, agentId: string): string {
  const p = app.world.partner(partnerId)!
  return serialise(withoutCredentials({ ...p.snapshot(), agents: [p.agents.get(agentId)!.snapshot()] }))
}

const B = async (app: FastifyInstance) => ({ token: await tokenFor(app, PARTNER_B), agent: '2001' })

let n = 0
function customerBody (ref?: string): Record<string, unknown> {
  n += 1
  return {
    customerReference: ref ?? `CI-REF-${n}`,
    defaultCustomer: { entityTypeId: '1', name1: 'TESTER', name2: `RUN ${n}`, identifyingNumber: '8001015009087', taxNumber: '0001339050', kycStatus: true }
  }
}

/** Creates one record of every kind for an agent of partner-a (or of partner-b with opts). */
async function createEverything (t: Test, app: FastifyInstance, opts: { token?: string, agent?: string } = {}): Promise<string> {
  const customer = await api(app, { url: '/api/customers', body: customerBody(), ...opts })
  t.equal(customer.statusCode, 200, 'customer created')
  const id = customer.json().customerId
  const account = await api(app, { url: '/api/accounts', body: { customerId: id, productCode: 'NOTICE32' }, ...opts })
  t.equal(account.statusCode, 200, 'account created')
  const beneficiary = await api(app, {
    url: `/api/customers/${id}/beneficiaries`,
    body: { name: 'PAYEE', bankCode: '10', accountType: 'C', accountNumber: '123456789', beneficiaryReference: 'REF', clientReference: 'REF', accountCategory: '3RD PARTY' },
    ...opts
  })
  t.equal(beneficiary.statusCode, 200, 'beneficiary created')
  const message = await api(app, { url: `/api/customers/${id}/messages`, body: { message: 'HELLO', fromDepartment: 'CI', fromPerson: 'CI' }, ...opts })
  t.equal(message.statusCode, 200, 'message created')
  return id
}

/** Byte comparison of partner data without printing megabytes on failure. */
function same (t: Test, actual: string, expected: string, message?: string): void {
  t.ok(actual === expected, message ?? 'byte-identical', actual === expected ? {} : { diff: firstDifference(actual, expected) })
}

function differ (t: Test, actual: string, expected: string, message?: string): void {
  t.ok(actual !== expected, message ?? 'different')
}

function firstDifference (a: string, b: string): string {
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return `at ${i}: ${JSON.stringify(a.slice(Math.max(0, i - 80), i + 80))} vs ${JSON.stringify(b.slice(Math.max(0, i - 80), i + 80))}`
}

function isError (t: Test, res: LightMyRequestResponse, status: number, code: string, message?: RegExp): void {
  t.equal(res.statusCode, status, `${code} answers ${status}`)
  t.equal(res.headers['x-sandbox-error'], code)
  const body = res.json()
  t.match(body, { timestamp: String, status, error: String, message: String, path: String, errors: Array }, 'the error shape')
  if (message !== undefined) t.match(body.message, message)
}

t.test('POST /__sandbox/reset restores the scenario exactly', async (t) => {
  const app = await build(t)
  const fresh = bytesOf(app, 'partner-a')
  const id = await createEverything(t, app)
  await createEverything(t, app, { agent: '1002' })
  const g = await api(app, { url: '/__sandbox/guarantees', body: { state: 'INVALID' }, agent: null })
  t.equal(g.statusCode, 200)
  differ(t, bytesOf(app, 'partner-a'), fresh, 'the data changed')

  const res = await api(app, { url: '/__sandbox/reset', method: 'POST', agent: null })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { partnerId: 'partner-a', scenario: 'default', seed: 4100 })
  same(t, bytesOf(app, 'partner-a'), fresh, 'byte-identical to the data of the start')
  t.equal((await api(app, { url: `/api/customers/${id}` })).statusCode, 404, 'the created customer is gone')
  t.equal((await api(app, { url: `/api/guarantees/${g.json().guaranteeId}/state`, token: null, agent: null })).statusCode, 404, 'the created guarantee is gone')
  t.equal((await api(app, { url: '/api/guarantees/GTE-A-0001/state', token: null, agent: null })).json().state, 'VALID')

  // and a second app built from scratch has the same bytes
  const other = await build(t)
  same(t, bytesOf(other, 'partner-a'), bytesOf(app, 'partner-a'), 'equal to a freshly built sandbox')

  // an empty JSON body and {} mean the same as no body
  await createEverything(t, app)
  const withBody = await api(app, { url: '/__sandbox/reset', body: {}, agent: null })
  t.equal(withBody.statusCode, 200)
  same(t, bytesOf(app, 'partner-a'), fresh)
})

t.test("a partner's reset leaves the other partner's data byte-identical", async (t) => {
  const app = await build(t)
  const b = await B(app)
  const bId = await createEverything(t, app, b)
  const before = bytesOf(app, 'partner-b')
  const partnerB = app.world.partner('partner-b')
  await createEverything(t, app)
  const res = await api(app, { url: '/__sandbox/reset', body: { scenario: 'edge-cases', seed: 3 }, agent: null })
  t.equal(res.statusCode, 200)
  same(t, bytesOf(app, 'partner-b'), before, 'partner-b byte-identical after a reset of partner-a to another scenario')
  t.equal(app.world.partner('partner-b'), partnerB, 'the very same partner-b object')
  t.equal((await api(app, { url: `/api/customers/${bId}`, ...b })).statusCode, 200, "partner-b's own customer is still there")
  await api(app, { url: '/__sandbox/reset', agent: null, method: 'POST' })
  same(t, bytesOf(app, 'partner-b'), before, 'and after a second reset')
  const state = await api(app, { url: '/__sandbox/state', token: b.token, agent: null })
  t.match(state.json(), { partnerId: 'partner-b', scenario: 'default', seed: 4100 })
})

t.test('a reset works while requests flow: no 5xx, every answer is either pre- or post-reset data', async (t) => {
  const app = await build(t)
  // as the API serialises them (schema order), so that answers compare as strings
  const base: StoredCustomer[] = (await api(app, { url: '/api/customers?size=2000' })).json().customers
  const b = await B(app)
  const bBase = app.world.partner('partner-b')!.agents.get('2001')!.customers.length
  await tokenFor(app) // cached before the burst
  // pre-reset changes, so that pre-reset data differs from post-reset data
  const early = await Promise.all(Array.from({ length: 5 }, () => api(app, { url: '/api/customers', body: customerBody('EARLY') })))
  t.ok(early.every((r) => r.statusCode === 200))

  const requests: Array<Promise<LightMyRequestResponse>> = []
  const kinds: string[] = []
  let reset: Promise<LightMyRequestResponse> | undefined
  const send = (i: number, kind: string): Promise<LightMyRequestResponse> => {
    switch (kind) {
      case 'create': return api(app, { url: '/api/customers', body: customerBody(`FLOW-${i}`) })
      case 'read': return api(app, { url: '/api/customers/1001100000001' })
      case 'list': return api(app, { url: '/api/customers?size=2000' })
      case 'create-b': return api(app, { url: '/api/customers', body: customerBody(`FLOW-B-${i}`), ...b })
      default: return api(app, { url: '/api/customers/2001100000001', ...b })
    }
  }
  for (let i = 0; i < 120; i++) {
    if (i === 60) {
      reset = api(app, { url: '/__sandbox/reset', method: 'POST', agent: null })
      requests.push(reset)
      kinds.push('reset')
    }
    const kind = ['create', 'read', 'list', 'create-b', 'read-b'][i % 5]
    kinds.push(kind)
    // the first half flows while the reset runs; the second half is sent as it answers
    requests.push(reset === undefined ? send(i, kind) : reset.then(async () => await send(i, kind)))
  }
  const answers = await Promise.all(requests)
  t.same(answers.filter((r) => r.statusCode >= 500).map((r) => r.body), [], 'no 5xx')
  t.same(answers.filter((r) => r.statusCode !== 200).map((r) => r.statusCode), [], 'every request answered 200')

  const created = new Map<string, StoredCustomer>()
  answers.forEach((r, i) => { if (kinds[i] === 'create') created.set(r.json().customerReference, r.json()) })
  const earlyRefs = new Set(early.map((r) => JSON.stringify(r.json())))
  let pre = 0
  let post = 0
  answers.forEach((r, i) => {
    if (kinds[i] === 'read') t.same(r.json(), base[0], 'a fixed record reads the same before and after')
    if (kinds[i] !== 'list') return
    const list = r.json().customers as StoredCustomer[]
    const head = list.slice(0, base.length)
    const tail = list.slice(base.length)
    if (JSON.stringify(head) !== JSON.stringify(base)) t.fail('a list does not start with the scenario customers')
    // pre-reset lists carry the early customers, post-reset lists never do
    const early = tail.filter((c) => earlyRefs.has(JSON.stringify(c))).length
    if (early === 5) pre++
    else if (early === 0) post++
    else t.fail(`a list mixes data from before and after the reset (${early} early customers)`)
    for (const c of tail) {
      if (!earlyRefs.has(JSON.stringify(c)) && JSON.stringify(created.get(c.customerReference!)) !== JSON.stringify(c)) t.fail(`unknown customer ${c.customerId}`)
    }
  })
  t.ok(pre + post === 24, `every list is pre-reset (${pre}) or post-reset (${post}) data`)
  t.ok(pre > 0 && post > 0, 'the reset happened amid the traffic')

  const final: StoredCustomer[] = (await api(app, { url: '/api/customers?size=2000' })).json().customers
  t.same(final.slice(0, base.length), base, 'the scenario customers stand after the burst')
  t.ok(final.slice(base.length).every((c) => c.customerReference?.startsWith('FLOW-')), 'no customer from before the reset survives it')
  const bCreated = answers.filter((_r, i) => kinds[i] === 'create-b').map((r) => r.json().customerId)
  const bFinal = app.world.partner('partner-b')!.agents.get('2001')!
  t.equal(bFinal.customers.length, bBase + 24, "partner-b's creates all stand: its data did not take part in the reset")
  t.ok(bCreated.every((id) => bFinal.customer(id) !== undefined))
})

t.test('a reset to another scenario and seed equals a sandbox started with them', async (t) => {
  const app = await build(t)
  const start = bytesOf(app, 'partner-a')
  const reference = await build(t, { scenario: 'edge-cases', seed: 9 })
  const res = await api(app, { url: '/__sandbox/reset', body: { scenario: 'edge-cases', seed: 9 }, agent: null })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { scenario: 'edge-cases', seed: 9, agents: [{ agentId: '1001', scenario: 'edge-cases', seed: 9 }, { agentId: '1002' }] })
  same(t, bytesOf(app, 'partner-a'), bytesOf(reference, 'partner-a'), 'byte-identical to a sandbox started with edge-cases and seed 9')
  t.equal((await api(app, { url: '/api/customers/1001100000001' })).json().defaultCustomer.name1.length, 255)

  await createEverything(t, app)
  t.equal((await api(app, { url: '/__sandbox/reset', method: 'POST', agent: null })).json().scenario, 'edge-cases', 'no body: back to the current scenario')
  same(t, bytesOf(app, 'partner-a'), bytesOf(reference, 'partner-a'), 'and its seed')

  const other = await api(app, { url: '/__sandbox/reset', body: { scenario: 'edge-cases' }, agent: null })
  t.equal(other.json().seed, 4100, "a scenario without a seed: the scenario's own seed")
  differ(t, bytesOf(app, 'partner-a'), bytesOf(reference, 'partner-a'))
  const back = await api(app, { url: '/__sandbox/reset', body: { scenario: 'default' }, agent: null })
  t.match(back.json(), { scenario: 'default', seed: 4100 })
  same(t, bytesOf(app, 'partner-a'), start, 'back to default: the start again')

  const empty = await api(app, { url: '/__sandbox/reset', body: { scenario: 'empty' }, agent: null })
  t.same(empty.json().agents.map((a: { customers: number }) => a.customers), [0, 0])
  t.same((await api(app, { url: '/api/customers' })).json().customers, [])

  const unknown = await api(app, { url: '/__sandbox/reset', body: { scenario: 'nope' }, agent: null })
  isError(t, unknown, 400, 'SANDBOX_ERR_VALIDATION')
  t.match(unknown.json().errors, [{ field: 'scenario', rejectedValue: 'nope' }])
  t.match(unknown.json().errors[0].defaultMessage, /default, edge-cases, empty, large/)
  t.equal((await api(app, { url: '/__sandbox/state', agent: null })).json().scenario, 'empty', 'a refused reset changes nothing')
  const badSeed = await api(app, { url: '/__sandbox/reset', body: { seed: -1 }, agent: null })
  isError(t, badSeed, 400, 'SANDBOX_ERR_VALIDATION')
})

t.test('GET /__sandbox/scenarios and /__sandbox/state describe the scenarios and the partner', async (t) => {
  const app = await build(t)
  const scenarios = await api(app, { url: '/__sandbox/scenarios', agent: null })
  t.same(scenarios.json().scenarios.map((s: { name: string }) => s.name), ['default', 'edge-cases', 'empty', 'large'])
  const state = await api(app, { url: '/__sandbox/state', agent: null })
  t.match(state.json(), { partnerId: 'partner-a', scenario: 'default', users: ['alice'], agents: [{ agentId: '1001', fresh: false }, { agentId: '1002', fresh: false }] })
  t.equal((await api(app, { url: '/__sandbox/state', agent: null, token: null })).statusCode, 401, 'the control API needs a token')
})

t.test('a fresh agent is seeded like the partner\'s first scenario agent, with its ids re-prefixed', async (t) => {
  const app = await build(t)
  const token = await tokenFor(app) // issued before the agent exists
  const res = await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { agentId: '1003', fresh: true, like: '1001', scenario: 'default', seed: 4100 })
  const a = app.world.partner('partner-a')!
  const original = a.agents.get('1001')!
  const fresh = a.agents.get('1003')!
  t.equal(fresh.customers.length, original.customers.length)
  const renamed = fresh.customers.map((c) => ({ ...c, customerId: c.customerId.replace(/^1003/, '1001'), defaultAccountNumber: c.defaultAccountNumber?.replace(/^1003/, '1001') }))
  t.same(renamed, original.customers, 'the same customers, ids re-prefixed')
  t.same(fresh.accounts.map((x) => ({ ...x, id: x.id.replace(/^1003/, '1001'), number: x.number.replace(/^1003/, '1001'), agentId: 1001, customers: x.customers.map((h) => ({ ...h, customerId: h.customerId.replace(/^1003/, '1001') })) })), original.accounts)
  t.equal(fresh.beneficiaries.length, original.beneficiaries.length)
  t.equal(fresh.messages.length, original.messages.length)

  const read = await api(app, { url: '/api/customers/1003100000001', agent: '1003', token })
  t.equal(read.statusCode, 200, 'a token issued before the agent existed works for it')
  t.equal(read.json().defaultCustomer.name1, 'MOKOENA')
  t.equal((await api(app, { url: '/api/accounts/1003200000001', agent: '1003', token })).json().agentId, 1003)

  const named = await api(app, { url: '/__sandbox/agents', body: { name: 'CI RUN 42', scenario: 'edge-cases', like: '1001', seed: 5 }, agent: null })
  t.match(named.json(), { agentId: '1004', name: 'CI RUN 42', like: '1001', scenario: 'edge-cases', seed: 5 })
  const edge = await build(t, { scenario: 'edge-cases', seed: 5 })
  t.same(a.agents.get('1004')!.customers.map((c) => c.defaultCustomer), edge.world.partner('partner-a')!.agents.get('1001')!.customers.map((c) => c.defaultCustomer),
    'built as agent 1001 of edge-cases with seed 5')
  const b = await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null, token: await tokenFor(app, PARTNER_B) })
  t.match(b.json(), { agentId: '2002', like: '2001' }, "partner-b's fresh agents carry its own number")
})

t.test("a fresh agent cannot be a copy of another partner's agent: 404 like an unknown one, and nothing is made", async (t) => {
  const app = await build(t)
  const before = [...app.world.partner('partner-a')!.agents.keys()]
  for (const like of ['2001', '9999']) {
    const res = await api(app, { url: '/__sandbox/agents', body: { like }, agent: null })
    isError(t, res, 404, 'SANDBOX_ERR_NOT_FOUND')
    t.equal(res.json().message, `Agent ${like} not found`, 'the same answer whether the agent exists elsewhere or not')
    t.notMatch(res.body, /VAN DER MERWE|8801235111088/, 'no record of the other partner')
  }
  t.same([...app.world.partner('partner-a')!.agents.keys()], before, 'no agent was made')
  t.equal((await api(app, { url: '/api/customers/1003100000001', agent: '1003' })).statusCode, 403, 'agent 1003 does not exist')
  const own = await api(app, { url: '/__sandbox/agents', body: { like: '1002' }, agent: null })
  t.match(own.json(), { agentId: '1003', like: '1002' }, "the partner's own scenario agents can be the model")
})

t.test('a fresh agent is invisible to the other agents and partners', async (t) => {
  const app = await build(t)
  const id = (await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null })).json().agentId
  const customerId = await createEverything(t, app, { agent: id })
  t.equal((await api(app, { url: `/api/customers/${customerId}`, agent: id })).statusCode, 200)
  t.equal((await api(app, { url: `/api/customers/${customerId}` })).statusCode, 404, 'agent 1001 cannot read it')
  t.equal((await api(app, { url: '/api/customers/1003100000001' })).statusCode, 404)
  const b = await B(app)
  isError(t, await api(app, { url: '/api/customers', agent: id, token: b.token }), 403, 'SANDBOX_ERR_AGENT_FORBIDDEN')
  t.equal((await api(app, { url: `/api/customers/${customerId}`, ...b })).statusCode, 404, 'partner-b cannot read it')
  t.notOk((await api(app, { url: '/__sandbox/state', agent: null, token: b.token })).json().agents.some((a: { agentId: string }) => a.agentId === id))
  t.equal((await api(app, { url: `/__sandbox/agents/${id}`, method: 'DELETE', agent: null, token: b.token })).statusCode, 404, 'partner-b cannot delete it')
  t.equal((await api(app, { url: `/__sandbox/agents/${id}/reset`, method: 'POST', agent: null, token: b.token })).statusCode, 404, 'nor reset it')
  const alice = await userToken(app, 'alice', 'alice-password')
  isError(t, await api(app, { url: '/api/customers', agent: id, token: alice }), 403, 'SANDBOX_ERR_AGENT_FORBIDDEN')
})

t.test('a reset of one agent leaves the partner\'s other agents untouched; a partner reset keeps fresh agents', async (t) => {
  const app = await build(t)
  const id = (await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null })).json().agentId
  const freshStart = agentBytes(app, 'partner-a', id)
  await createEverything(t, app, { agent: id })
  await createEverything(t, app)
  await createEverything(t, app, { agent: '1002' })
  const a1001 = agentBytes(app, 'partner-a', '1001')
  const a1002 = agentBytes(app, 'partner-a', '1002')
  const partnerB = bytesOf(app, 'partner-b')

  const res = await api(app, { url: `/__sandbox/agents/${id}/reset`, method: 'POST', agent: null })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { agentId: id, fresh: true, like: '1001' })
  same(t, agentBytes(app, 'partner-a', id), freshStart, 'the fresh agent is back to its start')
  same(t, agentBytes(app, 'partner-a', '1001'), a1001, '1001 untouched')
  same(t, agentBytes(app, 'partner-a', '1002'), a1002, '1002 untouched')
  same(t, bytesOf(app, 'partner-b'), partnerB, 'partner-b untouched')

  await createEverything(t, app, { agent: id })
  const freshChanged = agentBytes(app, 'partner-a', id)
  const one = await api(app, { url: '/__sandbox/agents/1001/reset', body: { scenario: 'empty' }, agent: null })
  t.match(one.json(), { agentId: '1001', scenario: 'empty', customers: 0 })
  same(t, agentBytes(app, 'partner-a', '1002'), a1002, 'resetting 1001 leaves 1002 untouched')
  same(t, agentBytes(app, 'partner-a', id), freshChanged, 'and the fresh agent')

  await api(app, { url: '/__sandbox/reset', method: 'POST', agent: null })
  same(t, agentBytes(app, 'partner-a', id), freshChanged, 'a partner reset keeps fresh agents as they are')
  t.equal(app.world.partner('partner-a')!.agents.get('1001')!.scenario, 'default')
  t.equal((await api(app, { url: '/__sandbox/agents/1999/reset', method: 'POST', agent: null })).statusCode, 404, 'an unknown agent is a 404')
})

t.test('DELETE /__sandbox/agents/{id} removes a fresh agent; scenario agents cannot be deleted', async (t) => {
  const app = await build(t)
  const token = await tokenFor(app)
  const id = (await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null })).json().agentId
  await createEverything(t, app, { agent: id })
  const others = bytesOf(app, 'partner-b')
  const del = await api(app, { url: `/__sandbox/agents/${id}`, method: 'DELETE', agent: null })
  t.equal(del.statusCode, 204)
  t.equal(del.body, '')
  isError(t, await api(app, { url: '/api/customers', agent: id, token }), 403, 'SANDBOX_ERR_AGENT_FORBIDDEN')
  t.notOk(app.world.ownerOfAgent(id), 'the agent id is free again')
  same(t, bytesOf(app, 'partner-b'), others)
  t.equal((await api(app, { url: `/__sandbox/agents/${id}`, method: 'DELETE', agent: null })).statusCode, 404, 'deleting it again is a 404')
  const scenarioAgent = await api(app, { url: '/__sandbox/agents/1001', method: 'DELETE', agent: null })
  isError(t, scenarioAgent, 409, 'SANDBOX_ERR_CONFLICT', /scenario/)
  t.ok(app.world.partner('partner-a')!.agents.has('1001'))
  const again = await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null })
  t.equal(again.json().agentId, id, 'the freed id is used again')
  t.equal(again.json().customers, app.world.partner('partner-a')!.agents.get('1001')!.customers.length, 'with fresh data, not the deleted data')
})

t.test('guarantees created and updated through the control API answer on GET /api/guarantees/{id}/state', async (t) => {
  const app = await build(t)
  const state = async (id: string) => {
    const res = await api(app, { url: `/api/guarantees/${encodeURIComponent(id)}/state`, token: null, agent: null })
    return res.statusCode === 200 ? res.json().state : res.statusCode
  }
  const created = await api(app, { url: '/__sandbox/guarantees', body: { state: 'VALID' }, agent: null })
  t.equal(created.statusCode, 200)
  const id = created.json().guaranteeId
  t.match(id, /^1\d{9}$/, 'an assigned id: partner number and a sequence')
  t.equal(await state(id), 'VALID')
  const put = await api(app, { url: `/__sandbox/guarantees/${id}`, method: 'PUT', body: { state: 'INVALID' }, agent: null })
  t.same(put.json(), { guaranteeId: id, state: 'INVALID' })
  t.equal(await state(id), 'INVALID')
  const long = 'CI-'.padEnd(255, 'X')
  t.equal((await api(app, { url: '/__sandbox/guarantees', body: { guaranteeId: long, state: 'INVALID' }, agent: null })).statusCode, 200)
  t.equal(await state(long), 'INVALID', 'a 255-character id answers too')
  t.equal((await api(app, { url: '/__sandbox/guarantees/CI-NEW', method: 'PUT', body: { state: 'VALID' }, agent: null })).statusCode, 200, 'PUT creates')
  t.equal(await state('CI-NEW'), 'VALID')
  const list = await api(app, { url: '/__sandbox/guarantees', agent: null })
  t.ok(list.json().guarantees.some((g: { guaranteeId: string }) => g.guaranteeId === 'CI-NEW'))

  const b = await tokenFor(app, PARTNER_B)
  isError(t, await api(app, { url: '/__sandbox/guarantees/CI-NEW', method: 'PUT', body: { state: 'INVALID' }, agent: null, token: b }), 409, 'SANDBOX_ERR_CONFLICT')
  isError(t, await api(app, { url: '/__sandbox/guarantees', body: { guaranteeId: 'GTE-A-0001', state: 'INVALID' }, agent: null, token: b }), 409, 'SANDBOX_ERR_CONFLICT')
  t.equal(await state('CI-NEW'), 'VALID', "another partner cannot change a partner's guarantee")
  isError(t, await api(app, { url: '/__sandbox/guarantees', body: { guaranteeId: 'VALID-X', state: 'INVALID' }, agent: null }), 409, 'SANDBOX_ERR_CONFLICT', /reserved/)
  isError(t, await api(app, { url: '/__sandbox/guarantees', body: { state: 'MAYBE' }, agent: null }), 400, 'SANDBOX_ERR_VALIDATION')
  isError(t, await api(app, { url: '/__sandbox/guarantees', body: { guaranteeId: ''.padEnd(256, 'X'), state: 'VALID' }, agent: null }), 400, 'SANDBOX_ERR_VALIDATION')
  t.equal(await state(''.padEnd(256, 'X')), 400, 'a 256-character id is a 400 (spec: size 1-255)')
})

t.test('operator endpoints without SANDBOX_ADMIN_TOKEN answer 403 saying how to enable them', async (t) => {
  const app = await build(t)
  for (const [method, url] of [['POST', '/__sandbox/admin/reset'], ['GET', '/__sandbox/admin/partners'], ['POST', '/__sandbox/admin/partners']] as const) {
    for (const token of [null, ADMIN, await tokenFor(app)]) {
      const res = await api(app, { url, method, token, agent: null })
      isError(t, res, 403, 'SANDBOX_ERR_ADMIN_DISABLED', /SANDBOX_ADMIN_TOKEN/)
    }
  }
  t.equal(app.world.partners.size, 2, 'nothing registered')
})

t.test('operator endpoints with SANDBOX_ADMIN_TOKEN refuse a missing or wrong token with 401', async (t) => {
  const app = await build(t, { adminToken: ADMIN })
  const before = bytesOf(app, 'partner-a')
  await createEverything(t, app)
  const changed = bytesOf(app, 'partner-a')
  t.not(changed, before)
  const wrong: Array<[string | null, Record<string, string>]> = [
    [null, {}],
    [`${ADMIN}x`, {}],
    [ADMIN.slice(0, -1), {}],
    ['x', {}],
    [await tokenFor(app), {}],
    [null, { authorization: ADMIN }],
    [null, { authorization: `Basic ${Buffer.from(`admin:${ADMIN}`).toString('base64')}` }]
  ]
  for (const [token, headers] of wrong) {
    for (const [method, url] of [['POST', '/__sandbox/admin/reset'], ['GET', '/__sandbox/admin/partners'], ['POST', '/__sandbox/admin/partners']] as const) {
      const res = await api(app, { url, method, token, headers, agent: null })
      isError(t, res, 401, 'SANDBOX_ERR_ADMIN_TOKEN')
      t.match(res.headers['www-authenticate'], /^Bearer/)
    }
  }
  same(t, bytesOf(app, 'partner-a'), changed, 'no reset happened')
  t.equal(app.world.partners.size, 2, 'no partner registered')
})

t.test('operator endpoints with the right token reset everything and register partners that work at once', async (t) => {
  const app = await build(t, { adminToken: ADMIN })
  const startA = bytesOf(app, 'partner-a')
  const startB = bytesOf(app, 'partner-b')
  await createEverything(t, app)
  await createEverything(t, app, await B(app))
  const fresh = (await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null })).json().agentId
  await api(app, { url: '/__sandbox/reset', body: { scenario: 'empty' }, agent: null, token: await tokenFor(app, PARTNER_B) })

  const list = await api(app, { url: '/__sandbox/admin/partners', token: ADMIN, agent: null })
  t.equal(list.statusCode, 200)
  t.same(list.json().partners.map((p: { partnerId: string }) => p.partnerId), ['partner-a', 'partner-b'])

  const reset = await api(app, { url: '/__sandbox/admin/reset', method: 'POST', token: ADMIN, agent: null })
  t.equal(reset.statusCode, 200)
  t.same(reset.json().partners.map((p: { scenario: string }) => p.scenario), ['default', 'default'])
  same(t, bytesOf(app, 'partner-a'), startA, 'partner-a back to the start')
  same(t, bytesOf(app, 'partner-b'), startB, 'partner-b back to the start')
  t.notOk(app.world.partner('partner-a')!.agents.has(fresh), 'fresh agents are removed')

  const registered = await api(app, { url: '/__sandbox/admin/partners', body: { clientId: 'partner-c', name: 'Partner C', agents: 2 }, token: ADMIN, agent: null })
  t.equal(registered.statusCode, 200)
  const reg = registered.json()
  t.match(reg, { clientId: 'partner-c', clientSecret: String, agentIds: ['3001', '3002'], tokenUrl: /\/auth\/realms\/sandbox\/protocol\/openid-connect\/token$/ })
  t.match(reg.summary, { partnerId: 'partner-c', scenario: 'default', agents: [{ agentId: '3001', fresh: false }, { agentId: '3002' }] })
  const c: Credentials = { client: reg.clientId, secret: reg.clientSecret }
  const token = await tokenFor(app, c)
  const customers = await api(app, { url: '/api/customers', agent: '3001', token })
  t.equal(customers.statusCode, 200, 'the new client gets a token at once and its agent ids work')
  t.ok(customers.json().page.totalElements > 0, 'filled from the scenario')
  t.equal((await api(app, { url: '/api/customers', agent: '3002', token })).statusCode, 200)
  isError(t, await api(app, { url: '/api/customers', agent: '1001', token }), 403, 'SANDBOX_ERR_AGENT_FORBIDDEN')
  isError(t, await api(app, { url: '/api/customers', agent: '3001' }), 403, 'SANDBOX_ERR_AGENT_FORBIDDEN')
  t.match((await api(app, { url: '/__sandbox/state', agent: null, token })).json(), { partnerId: 'partner-c', agents: [{ agentId: '3001' }, { agentId: '3002' }] })
  const badSecret = await app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers: { authorization: `Basic ${Buffer.from('partner-c:wrong').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials'
  })
  t.equal(badSecret.statusCode, 401, 'a wrong secret gets no token')

  // its own reset and fresh agents work like any partner's
  const own = await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null, token })
  t.match(own.json(), { agentId: '3003', like: '3001' })
  t.equal((await api(app, { url: '/__sandbox/reset', method: 'POST', agent: null, token })).statusCode, 200)

  isError(t, await api(app, { url: '/__sandbox/admin/partners', body: { clientId: 'partner-c' }, token: ADMIN, agent: null }), 409, 'SANDBOX_ERR_CONFLICT')
  isError(t, await api(app, { url: '/__sandbox/admin/partners', body: { clientId: 'partner-a' }, token: ADMIN, agent: null }), 409, 'SANDBOX_ERR_CONFLICT')
  const generated = await api(app, { url: '/__sandbox/admin/partners', body: { scenario: 'empty' }, token: ADMIN, agent: null })
  t.match(generated.json(), { clientId: /^partner-[0-9a-f]{8}$/, agentIds: ['4001'], summary: { scenario: 'empty' } })

  // a reset of everything keeps registered partners, their credentials and agents
  const all = await api(app, { url: '/__sandbox/admin/reset', body: { scenario: 'empty' }, token: ADMIN, agent: null })
  t.same(all.json().partners.map((p: { partnerId: string }) => p.partnerId), ['partner-a', 'partner-b', 'partner-c', generated.json().clientId])
  t.ok(all.json().partners.every((p: { scenario: string }) => p.scenario === 'empty'))
  t.equal((await api(app, { url: '/api/customers', agent: '3001', token })).json().page.totalElements, 0, "partner-c's token still works, on empty data")
  t.same(app.world.partner('partner-c')!.agents.size, 2, "partner-c's fresh agent went, its registered agents stayed")
})

t.test('an operator deletes a registered partner with everything it has; registered again under its id, the old tokens stay refused', async (t) => {
  const app = await build(t, { adminToken: ADMIN })
  const register = async (): Promise<Credentials & { agent: string }> => {
    const res = await api(app, { url: '/__sandbox/admin/partners', body: { clientId: 'partner-gone', scenario: 'empty' }, token: ADMIN, agent: null })
    t.equal(res.statusCode, 200)
    return { client: 'partner-gone', secret: res.json().clientSecret, agent: res.json().agentIds[0] }
  }
  const first = await register()
  const oldToken = await tokenFor(app, first)
  t.equal((await api(app, { url: '/__sandbox/snapshots', body: { name: 'kept' }, agent: null, token: oldToken })).statusCode, 200)
  const deleted = await api(app, { method: 'DELETE', url: '/__sandbox/admin/partners/partner-gone', token: ADMIN, agent: null })
  t.equal(deleted.statusCode, 204)
  isError(t, await api(app, { url: '/api/customers', agent: first.agent, token: oldToken }), 401, 'SANDBOX_ERR_TOKEN_INVALID')
  isError(t, await api(app, { method: 'DELETE', url: '/__sandbox/admin/partners/partner-gone', token: ADMIN, agent: null }), 404, 'SANDBOX_ERR_NOT_FOUND')
  isError(t, await api(app, { method: 'DELETE', url: '/__sandbox/admin/partners/partner-a', token: ADMIN, agent: null }), 409, 'SANDBOX_ERR_CONFLICT')
  t.same((await api(app, { url: '/__sandbox/admin/partners', token: ADMIN, agent: null })).json().partners.map((p: { partnerId: string }) => p.partnerId), ['partner-a', 'partner-b'])

  // (a second later: a token's iat has whole seconds, as Keycloak's not-before counts them)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  const second = await register()
  isError(t, await api(app, { url: '/api/customers', agent: second.agent, token: oldToken }), 401, 'SANDBOX_ERR_TOKEN_INVALID')
  const newToken = await tokenFor(app, second)
  t.equal((await api(app, { url: '/api/customers', agent: second.agent, token: newToken })).statusCode, 200, 'its new tokens work')
  t.same((await api(app, { url: '/__sandbox/snapshots', agent: null, token: newToken })).json().snapshots, [], 'none of the deleted partner\'s named snapshots')
})

t.test('partner limits give a clear 4xx in the error shape and change nothing', async (t) => {
  await t.test('maxRecords', async (t) => {
    const app = await build(t, { scenario: 'empty', maxRecords: 100 })
    // each customer is two records: the customer and its call account
    for (let i = 0; i < 50; i++) t.equal((await api(app, { url: '/api/customers', body: customerBody() })).statusCode, 200)
    t.equal(app.world.partner('partner-a')!.recordCount, 100)
    const before = bytesOf(app, 'partner-a')
    const customer = app.world.partner('partner-a')!.agents.get('1001')!.customers[0].customerId
    const refused = [
      await api(app, { url: '/api/customers', body: customerBody() }),
      await api(app, { url: '/api/customers', body: customerBody(), agent: '1002' }),
      await api(app, { url: '/api/accounts', body: { customerId: customer } }),
      await api(app, { url: `/api/customers/${customer}/messages`, body: { message: 'X', fromDepartment: 'X', fromPerson: 'X' } }),
      await api(app, { url: '/__sandbox/guarantees', body: { state: 'VALID' }, agent: null })
    ]
    for (const res of refused) isError(t, res, 403, 'SANDBOX_ERR_LIMIT', /limit is 100/)
    t.match(refused[0].json().message, /POST \/__sandbox\/reset/, 'the message says how to make room')
    same(t, bytesOf(app, 'partner-a'), before, 'nothing changed')
    t.equal((await api(app, { url: '/api/customers', body: customerBody(), agent: '2001', token: await tokenFor(app, PARTNER_B) })).statusCode, 200, 'the limit is per partner')

    const agent = await api(app, { url: '/__sandbox/agents', body: { scenario: 'default' }, agent: null })
    isError(t, agent, 403, 'SANDBOX_ERR_LIMIT')
    const reset = await api(app, { url: '/__sandbox/reset', body: { scenario: 'default' }, agent: null })
    isError(t, reset, 403, 'SANDBOX_ERR_LIMIT', /limit is 100/)
    const agentReset = await api(app, { url: '/__sandbox/agents/1002/reset', body: { scenario: 'default' }, agent: null })
    isError(t, agentReset, 403, 'SANDBOX_ERR_LIMIT')
    same(t, bytesOf(app, 'partner-a'), before, 'a fresh agent or reset past the limit changes nothing')
    t.equal((await api(app, { url: '/__sandbox/reset', method: 'POST', agent: null })).statusCode, 200, 'a reset that makes room is allowed')
    t.equal(app.world.partner('partner-a')!.recordCount, 0)
  })

  await t.test('maxRecords counts guarantees too: a partner cannot pile them up past the limit', async (t) => {
    const app = await build(t, { scenario: 'empty', maxRecords: 100 })
    for (let i = 0; i < 100; i++) t.equal((await api(app, { url: '/__sandbox/guarantees', body: { state: 'VALID' }, agent: null })).statusCode, 200)
    t.equal(app.world.partner('partner-a')!.recordCount, 100)
    const before = bytesOf(app, 'partner-a')
    isError(t, await api(app, { url: '/__sandbox/guarantees', body: { state: 'VALID' }, agent: null }), 403, 'SANDBOX_ERR_LIMIT', /limit is 100/)
    isError(t, await api(app, { url: '/api/customers', body: customerBody() }), 403, 'SANDBOX_ERR_LIMIT', /limit is 100/)
    same(t, bytesOf(app, 'partner-a'), before, 'nothing changed')
  })

  await t.test('maxAgents', async (t) => {
    const app = await build(t, { maxAgents: 3 })
    t.equal((await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null })).statusCode, 200, 'a third agent')
    const before = bytesOf(app, 'partner-a')
    const res = await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null })
    isError(t, res, 403, 'SANDBOX_ERR_LIMIT', /limit is 3/)
    same(t, bytesOf(app, 'partner-a'), before, 'nothing changed')
    t.equal(app.world.partner('partner-a')!.agents.size, 3)
    t.equal((await api(app, { url: '/__sandbox/agents', method: 'POST', agent: null, token: await tokenFor(app, PARTNER_B) })).statusCode, 200, 'partner-b has room of its own')
  })

  await t.test('bodyLimit', async (t) => {
    const app = await build(t, { bodyLimit: 1024 })
    const before = bytesOf(app, 'partner-a')
    const body = customerBody()
    ;(body.defaultCustomer as Record<string, unknown>).address = 'X'.repeat(2000)
    isError(t, await api(app, { url: '/api/customers', body }), 413, 'SANDBOX_ERR_BODY_TOO_LARGE')
    isError(t, await api(app, { url: '/__sandbox/agents', body: { name: 'X'.repeat(2000) }, agent: null }), 413, 'SANDBOX_ERR_BODY_TOO_LARGE')
    isError(t, await api(app, { url: '/__sandbox/reset', body: 'scenario=empty', headers: { 'content-type': 'text/plain' }, agent: null }), 415, 'SANDBOX_ERR_MEDIA_TYPE')
    same(t, bytesOf(app, 'partner-a'), before, 'nothing changed')
  })
})

t.test('a reset to the large scenario does not hold up other partners: their requests are answered while it builds', async (t) => {
  const app = await build(t)
  const b = await B(app)
  let resetDone = false
  const reset = api(app, { url: '/__sandbox/reset', method: 'POST', agent: null, body: { scenario: 'large' } }).then((r) => { resetDone = true; return r })
  const during = await api(app, { url: '/api/customers/2001100000001', ...b })
  t.equal(during.statusCode, 200)
  t.notOk(resetDone, "partner-b's request was answered before partner-a's reset to 100,000 customers had finished")
  const done = await reset
  t.equal(done.statusCode, 200)
  t.equal(done.json().agents.find((a: { agentId: string }) => a.agentId === '1001').customers, 100000)
  t.equal((await api(app, { url: '/api/customers?page=4999&size=20' })).json().customers.length, 20, 'the large data serves at once')
})

t.test('a body nested deeper than Jackson allows is a 400 parse error on every control route with a body, and changes nothing', async (t) => {
  const app = await build(t, { adminToken: ADMIN })
  const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`
  const routes: Array<[string, string, string, string | null]> = [
    ['POST', '/__sandbox/guarantees', `{"state":"VALID","guaranteeId":"GTE-DEEP","x":${deep}}`, null],
    ['PUT', '/__sandbox/guarantees/GTE-DEEP', `{"state":"VALID","x":${deep}}`, null],
    ['POST', '/__sandbox/reset', `{"x":${deep}}`, null],
    ['POST', '/__sandbox/agents', `{"name":"DEEP","x":${deep}}`, null],
    ['POST', '/__sandbox/agents/1001/reset', `{"x":${deep}}`, null],
    ['POST', '/__sandbox/admin/reset', `{"x":${deep}}`, ADMIN],
    ['POST', '/__sandbox/admin/partners', `{"clientId":"deep-partner","x":${deep}}`, ADMIN]
  ]
  const before = bytesOf(app, 'partner-a')
  for (const [method, url, payload, admin] of routes) {
    const res = await api(app, { method: method as 'POST', url, body: payload, agent: null, headers: { 'content-type': 'application/json' }, ...(admin === null ? {} : { token: admin }) })
    isError(t, res, 400, 'SANDBOX_ERR_MALFORMED_JSON', /nesting depth exceeds the maximum allowed \(1000\)/)
    t.notMatch(res.body, /FST_|stack|Maximum call stack/, `${method} ${url}: no internals`)
  }
  t.equal(bytesOf(app, 'partner-a'), before, "the partner's data is unchanged")
  t.equal(app.world.partner('deep-partner'), undefined, 'no partner was registered')
  t.equal((await app.inject({ url: '/api/guarantees/GTE-DEEP/state' })).statusCode, 404, 'no guarantee was made')
  const shallow = await api(app, { url: '/__sandbox/guarantees', body: { state: 'VALID', guaranteeId: 'GTE-SHALLOW', x: { a: { b: null } } }, agent: null })
  t.equal(shallow.statusCode, 200, 'a body within the limit with unknown properties is still accepted')
})
