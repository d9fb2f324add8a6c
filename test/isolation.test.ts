import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { api, BENEFICIARY_REQUEST, build, PARTNER_A, PARTNER_B, tokenFor, userToken } from './helper.js'

const BENEFICIARY = BENEFICIARY_REQUEST
const MESSAGE = { message: 'Please call the client back', fromDepartment: 'CONVEYANCING', fromPerson: 'A. Attacker' }

interface Ids { customers: string[], accounts: string[], beneficiaries: Array<[string, string]>, messages: Array<[string, string]> }

async function ok (res: Promise<LightMyRequestResponse>): Promise<any> {
  const r = await res
  if (r.statusCode !== 200) throw new Error(`expected 200, got ${r.statusCode}: ${r.body}`)
  return r.json()
}

/** Everything partner-b has, read with partner-b's own token: the picture that must not change. */
async function snapshotB (app: FastifyInstance): Promise<{ ids: Ids, data: unknown }> {
  const token = await tokenFor(app, PARTNER_B)
  const as = { token, agent: '2001' }
  const state = await ok(api(app, { url: '/__sandbox/state', token, agent: null }))
  const guarantees = await ok(api(app, { url: '/__sandbox/guarantees', token, agent: null }))
  const customers = (await ok(api(app, { url: '/api/customers?size=2000', ...as }))).customers as Array<{ customerId: string }>
  const accounts = (await ok(api(app, { url: '/api/accounts?size=2000', ...as }))).accounts as Array<{ id: string }>
  const bob = (await ok(api(app, { url: '/api/users/current/customers?size=2000', token: await userToken(app, 'bob', 'bob-password', PARTNER_B), agent: '2001' }))).customers
  const ids: Ids = { customers: customers.map((c) => c.customerId), accounts: accounts.map((a) => a.id), beneficiaries: [], messages: [] }
  const perCustomer: Record<string, unknown> = {}
  for (const { customerId } of customers) {
    const bens = (await ok(api(app, { url: `/api/customers/${customerId}/beneficiaries?size=2000`, ...as }))).beneficiaries as Array<{ beneficiaryId: string }>
    const msgs = (await ok(api(app, { url: `/api/customers/${customerId}/messages?size=2000`, ...as }))).messages as Array<{ id: string }>
    const one = await ok(api(app, { url: `/api/customers/${customerId}`, ...as }))
    for (const b of bens) ids.beneficiaries.push([customerId, b.beneficiaryId])
    for (const m of msgs) ids.messages.push([customerId, String(m.id)])
    perCustomer[customerId] = { one, bens, msgs }
  }
  const guaranteeStates: Record<string, unknown> = {}
  for (const g of guarantees.guarantees as Array<{ guaranteeId: string }>) {
    guaranteeStates[g.guaranteeId] = (await ok(api(app, { url: `/api/guarantees/${g.guaranteeId}/state`, token: null, agent: null }))).state
  }
  return { ids, data: { state, guarantees, guaranteeStates, customers, accounts, bob, perCustomer } }
}

/** Every id-bearing value of partner-b in a response body (ids are prefixed with the agent id). */
function leaks (body: string, ids: Ids): string[] {
  const all = [...ids.customers, ...ids.accounts, ...ids.beneficiaries.map(([, b]) => b), ...ids.messages.map(([, m]) => m)]
  return all.filter((id) => body.includes(`"${id}"`))
}

t.test('partner-a cannot read or write any of partner-b\'s data through the API', async (t) => {
  const app = await build(t)
  const tokenB = await tokenFor(app, PARTNER_B)
  // partner-b writes something first: a reset of partner-b would make it disappear
  const customerB = '2001100000001'
  const made = await ok(api(app, { url: `/api/customers/${customerB}/messages`, token: tokenB, agent: '2001', body: { ...MESSAGE, fromPerson: 'B. Owner' } }))
  t.type(made.id, 'string')
  const before = await snapshotB(app)
  const { ids } = before
  t.ok(ids.customers.length > 0 && ids.accounts.length > 0 && ids.beneficiaries.length > 0 && ids.messages.length > 0, 'partner-b has data of every kind to try')
  t.ok(ids.customers.every((id) => id.startsWith('2001')), "partner-b's ids are its agent's")
  const total = new Set([...ids.customers, ...ids.accounts, ...ids.beneficiaries.map(([, b]) => b), ...ids.messages.map(([, m]) => m)]).size
  t.equal(leaks(JSON.stringify(before.data), ids).length, total, 'the leak detector finds every id in partner-b\'s own answers')

  const callers: Array<[string, string, string]> = [
    ['partner-a (client) as 1001', await tokenFor(app, PARTNER_A), '1001'],
    ['partner-a (client) as 1002', await tokenFor(app, PARTNER_A), '1002'],
    ['alice as 1001', await userToken(app, 'alice', 'alice-password'), '1001']
  ]
  const ownCustomer = '1001100000001'

  for (const [who, token, agent] of callers) {
    const as = { token, agent }
    await t.test(`${who}: reads by id are 404`, async (t) => {
      const reads: string[] = [
        ...ids.customers.map((c) => `/api/customers/${c}`),
        ...ids.customers.map((c) => `/api/customers/${c}/beneficiaries`),
        ...ids.customers.map((c) => `/api/customers/${c}/messages`),
        ...ids.accounts.map((a) => `/api/accounts/${a}`),
        ...ids.beneficiaries.map(([c, b]) => `/api/customers/${c}/beneficiaries/${b}`),
        // one of partner-a's customers with partner-b's beneficiary
        ...ids.beneficiaries.map(([, b]) => `/api/customers/${ownCustomer}/beneficiaries/${b}`),
        // an older API version serves the same handlers
        `/4.0/api/customers/${ids.customers[0]}`,
        `/1.3/api/accounts/${ids.accounts[0]}`
      ]
      for (const url of reads) {
        const res = await api(app, { url, ...as })
        t.equal(res.statusCode, 404, url)
        t.same(leaks(res.body, ids), [], `${url}: no id of partner-b in the answer`)
      }
    })

    await t.test(`${who}: writes under partner-b's ids are refused`, async (t) => {
      for (const c of ids.customers) {
        const ben = await api(app, { url: `/api/customers/${c}/beneficiaries`, body: BENEFICIARY, ...as })
        t.equal(ben.statusCode, 404, `POST beneficiary under ${c}`)
        const msg = await api(app, { url: `/api/customers/${c}/messages`, body: MESSAGE, ...as })
        t.equal(msg.statusCode, 404, `POST message under ${c}`)
        const acc = await api(app, { url: '/api/accounts', body: { customerId: c }, ...as })
        t.equal(acc.statusCode, 400, `POST /api/accounts for ${c}`)
        t.match(acc.json().errors, [{ field: 'customerId' }])
        t.same(leaks(ben.body + msg.body, ids).filter((id) => id !== c), [], 'nothing of partner-b in the answers')
      }
    })

    await t.test(`${who}: lists never contain partner-b records`, async (t) => {
      const lists = [
        '/api/customers?size=2000',
        '/api/accounts?size=2000',
        '/api/users/current/customers?size=2000',
        `/api/customers/${ownCustomer}/beneficiaries?size=2000`,
        `/api/customers/${ownCustomer}/messages?size=2000`
      ]
      for (const url of lists) {
        const res = await api(app, { url, ...as })
        if (agent === '1002' && url.includes(ownCustomer)) {
          t.equal(res.statusCode, 404, `${url}: another agent's customer`)
        } else {
          t.equal(res.statusCode, 200, url)
        }
        t.same(leaks(res.body, ids), [], url)
      }
      for (const c of ids.customers) {
        const res = await api(app, { url: `/api/accounts?customerId=${c}`, ...as })
        t.equal(res.statusCode, 200)
        t.same(res.json().accounts, [], `accounts filtered by partner-b's customer ${c}: an empty page, as documented`)
        t.equal(res.json().page.totalElements, 0)
      }
    })
  }

  t.same((await snapshotB(app)).data, before.data, "partner-b's data is exactly as before")
})

t.test("partner-a's control API leaves partner-b untouched", async (t) => {
  const app = await build(t)
  const tokenA = await tokenFor(app, PARTNER_A)
  const tokenB = await tokenFor(app, PARTNER_B)
  await ok(api(app, { url: '/api/customers/2001100000001/messages', token: tokenB, agent: '2001', body: { ...MESSAGE, fromPerson: 'B. Owner' } }))
  const before = await snapshotB(app)
  const asA = { token: tokenA, agent: null }

  const state = await ok(api(app, { url: '/__sandbox/state', ...asA }))
  t.notMatch(JSON.stringify(state), /"2001"|bob|partner-b|GTE-B/, "partner-a's state names nothing of partner-b")
  const guarantees = await ok(api(app, { url: '/__sandbox/guarantees', ...asA }))
  t.notOk(guarantees.guarantees.some((g: { guaranteeId: string }) => g.guaranteeId.startsWith('GTE-B')), "partner-b's guarantees are not listed")

  t.equal((await api(app, { method: 'POST', url: '/__sandbox/reset', ...asA })).statusCode, 200, 'partner-a resets its data')
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/reset', ...asA, body: { scenario: 'empty' } })).statusCode, 200, 'to another scenario')
  const fresh = await ok(api(app, { method: 'POST', url: '/__sandbox/agents', ...asA, body: {} }))
  t.not(fresh.agentId, '2001')
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/agents/2001/reset', ...asA, body: {} })).statusCode, 404, "partner-b's agent is unknown to partner-a's reset")
  t.equal((await api(app, { method: 'DELETE', url: '/__sandbox/agents/2001', ...asA })).statusCode, 404, "partner-b's agent cannot be deleted by partner-a")
  const put = await api(app, { method: 'PUT', url: '/__sandbox/guarantees/GTE-B-0001', ...asA, body: { state: 'INVALID' } })
  t.ok(put.statusCode >= 400 && put.statusCode < 500, `partner-a cannot set partner-b's guarantee (${put.statusCode})`)
  const post = await api(app, { method: 'POST', url: '/__sandbox/guarantees', ...asA, body: { guaranteeId: 'GTE-B-0001', state: 'INVALID' } })
  t.ok(post.statusCode >= 400 && post.statusCode < 500, `nor create one with its id (${post.statusCode})`)
  t.equal((await api(app, { method: 'DELETE', url: `/__sandbox/agents/${String(fresh.agentId)}`, ...asA })).statusCode, 204)

  t.same((await snapshotB(app)).data, before.data, "partner-b's data, agents, guarantees and users are exactly as before")
})
