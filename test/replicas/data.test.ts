import t, { type Test } from 'tap'
import { call, freePort, replicaSkip, startRedis, startReplicas, token, type Replica } from './harness.js'

/*
 * Partner data shared by three replicas over one Redis (issue 28): what one replica acknowledged, every other
 * shows at once; concurrent creates lose nothing and never share an id; resets, fresh agents, snapshots and
 * registered partners hold on every replica.
 */

const skip = replicaSkip()
const ADMIN = 'admin-token-for-the-replica-tests'

async function three (tt: Test): Promise<Replica[]> {
  const redis = await startRedis(tt)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  return await startReplicas(tt, 3, { redisUrl: redis.url, publicUrl, env: { SANDBOX_ADMIN_TOKEN: ADMIN } })
}

const MESSAGE = { message: 'HELLO FROM A REPLICA', fromDepartment: 'TESTS', fromPerson: 'REPLICA ONE' }

t.test('a create answered by one replica is read at once from the others, in lists and pages too', { skip }, async (t) => {
  const [r1, r2, r3] = await three(t)
  const tok = await token(r1.base)
  const first = await call(r2.base, tok, 'GET', '/api/customers?page=0&size=1')
  t.equal(first.status, 200, 'a token of replica 1 works on replica 2')
  const customerId = first.json.customers[0].customerId as string
  const before = (await call(r3.base, tok, 'GET', `/api/customers/${customerId}/messages?page=0&size=1`)).json.page.totalElements as number
  for (let i = 0; i < 20; i++) {
    const writer = [r1, r2, r3][i % 3]
    const reader = [r1, r2, r3][(i + 1) % 3]
    const created = await call(writer.base, tok, 'POST', `/api/customers/${customerId}/messages`, { ...MESSAGE, message: `MESSAGE ${i}` })
    t.equal(created.status, 200)
    const page = await call(reader.base, tok, 'GET', `/api/customers/${customerId}/messages?page=0&size=2000`)
    t.equal(page.json.page.totalElements, before + i + 1, `create ${i} on replica ${i % 3 + 1} counted on replica ${(i + 1) % 3 + 1}`)
    t.same(page.json.messages.at(-1), created.json, `and the newest message is the one created (${i})`)
  }
  const customer = await call(r1.base, tok, 'POST', '/api/customers', { defaultCustomer: { entityTypeId: '5', name1: 'REPLICA TRADING', identifyingNumber: '2015/123456/07', taxNumber: '9012345678' } })
  t.equal(customer.status, 200)
  for (const r of [r2, r3]) {
    t.same((await call(r.base, tok, 'GET', `/api/customers/${customer.json.customerId as string}`)).json, customer.json, `the new customer read from ${r.base}`)
    const accounts = await call(r.base, tok, 'GET', `/api/accounts?customerId=${customer.json.customerId as string}`)
    t.equal(accounts.json.accounts[0].number, customer.json.defaultAccountNumber, 'with its call account')
  }
})

t.test('concurrent creates of one partner on three replicas: none lost, no id given twice', { skip }, async (t) => {
  const replicas = await three(t)
  const tok = await token(replicas[0].base)
  const customerId = (await call(replicas[0].base, tok, 'GET', '/api/customers?page=0&size=1')).json.customers[0].customerId as string
  const base = (await call(replicas[0].base, tok, 'GET', `/api/customers/${customerId}/messages?page=0&size=1`)).json.page.totalElements as number
  const PER_REPLICA = 150
  const ids: string[] = []
  await Promise.all(replicas.flatMap((r) => Array.from({ length: 10 }, async (_, w) => {
    for (let i = 0; i < PER_REPLICA / 10; i++) {
      const res = await call(r.base, tok, 'POST', `/api/customers/${customerId}/messages`, { ...MESSAGE, message: `CONCURRENT ${r.port} ${w} ${i}` })
      if (res.status !== 200) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.json)}`)
      ids.push(res.json.id as string)
    }
  })))
  t.equal(ids.length, 3 * PER_REPLICA, 'every create answered 200')
  t.equal(new Set(ids).size, ids.length, 'no two creates got one id')
  for (const r of replicas) {
    const all = await call(r.base, tok, 'GET', `/api/customers/${customerId}/messages?page=0&size=2000`)
    t.equal(all.json.page.totalElements, base + ids.length, `replica ${r.port} counts every create`)
    const seen = new Set((all.json.messages as Array<{ id: string }>).map((m) => m.id))
    t.ok(ids.every((id) => seen.has(id)), `replica ${r.port} lists every acknowledged create`)
  }
})

t.test('resets, fresh agents, state controls and snapshots made on one replica hold on the others', { skip }, async (t) => {
  const [r1, r2, r3] = await three(t)
  const tok = await token(r1.base)
  const customerId = (await call(r1.base, tok, 'GET', '/api/customers?page=0&size=1')).json.customers[0].customerId as string
  const count = async (r: Replica): Promise<number> => (await call(r.base, tok, 'GET', `/api/customers/${customerId}/messages?page=0&size=1`)).json.page.totalElements
  const start = await count(r1)
  await call(r1.base, tok, 'POST', `/api/customers/${customerId}/messages`, MESSAGE)
  t.equal((await call(r2.base, tok, 'POST', '/__sandbox/reset')).status, 200, 'a reset on replica 2')
  t.equal(await count(r3), start, 'replica 3 reads the data the reset brought back')

  const fresh = await call(r2.base, tok, 'POST', '/__sandbox/agents', {})
  t.equal(fresh.status, 200, 'a fresh agent made on replica 2')
  const agentId = fresh.json.agentId as string
  const list = await call(r3.base, tok, 'GET', '/api/customers?page=0&size=1', undefined, agentId)
  t.equal(list.status, 200, 'the same token works for it on replica 3 at once')
  t.equal(list.json.page.totalElements, fresh.json.customers, 'with its records')

  const accountId = (await call(r1.base, tok, 'GET', '/api/accounts?page=0&size=1')).json.accounts[0].id as string
  t.equal((await call(r1.base, tok, 'POST', `/__sandbox/accounts/${accountId}/close`, {}, '1001')).status, 200, 'an account closed on replica 1')
  t.ok((await call(r2.base, tok, 'GET', `/api/accounts/${accountId}`)).json.closedDate, 'is closed on replica 2')

  t.equal((await call(r1.base, tok, 'POST', '/__sandbox/snapshots', { name: 'closed' })).status, 200, 'a named snapshot saved on replica 1')
  t.same((await call(r3.base, tok, 'GET', '/__sandbox/snapshots')).json.snapshots.map((s: { name: string }) => s.name), ['closed'], 'listed on replica 3')
  await call(r2.base, tok, 'POST', `/__sandbox/accounts/${accountId}/reopen`)
  t.notOk((await call(r3.base, tok, 'GET', `/api/accounts/${accountId}`)).json.closedDate, 'reopened on replica 2, open on replica 3')
  t.equal((await call(r3.base, tok, 'POST', '/__sandbox/reset', { snapshot: 'closed' })).status, 200, 'the snapshot restored on replica 3')
  t.ok((await call(r1.base, tok, 'GET', `/api/accounts/${accountId}`)).json.closedDate, 'closed again on replica 1')

  t.equal((await call(r1.base, tok, 'DELETE', `/__sandbox/agents/${agentId}`)).status, 204, 'the fresh agent deleted on replica 1')
  t.equal((await call(r2.base, tok, 'GET', '/api/customers?page=0&size=1', undefined, agentId)).status, 403, 'gone on replica 2')
})

t.test('fault rules count across replicas, and a clock set on one dates the records of another', { skip }, async (t) => {
  const [r1, r2, r3] = await three(t)
  const tok = await token(r1.base)
  const rule = await call(r1.base, tok, 'POST', '/__sandbox/faults', { match: { method: 'GET', path: '/api/banks' }, fault: 'status=503', times: 3 })
  t.equal(rule.status, 200, 'a rule with times: 3 made on replica 1')
  const statuses: number[] = []
  for (let i = 0; i < 9; i++) statuses.push((await call([r1, r2, r3][i % 3].base, tok, 'GET', '/api/banks')).status)
  t.same(statuses.filter((s) => s === 503).length, 3, 'fires exactly 3 times over the three replicas')
  t.same(statuses.slice(0, 3), [503, 503, 503], 'on the first three requests, whichever replica served them')

  await call(r2.base, tok, 'DELETE', '/__sandbox/faults')
  await call(r2.base, tok, 'POST', '/__sandbox/faults', { match: { path: '/api/banks' }, fault: 'status=500', probability: 0.5, seed: 42 })
  const seeded = async (order: Replica[]): Promise<string> => {
    const out: number[] = []
    for (let i = 0; i < 16; i++) out.push((await call(order[i % order.length].base, tok, 'GET', '/api/banks')).status)
    return out.join(',')
  }
  const once = await seeded([r1, r2, r3])
  await call(r1.base, tok, 'DELETE', '/__sandbox/faults')
  await call(r3.base, tok, 'POST', '/__sandbox/faults', { match: { path: '/api/banks' }, fault: 'status=500', probability: 0.5, seed: 42 })
  t.equal(await seeded([r3, r1, r2, r2]), once, 'a seeded rule faults the same request numbers whichever replicas serve them')
  t.match(once, /500/, '(some of them)')
  t.match(once, /200/, '(not all)')
  await call(r1.base, tok, 'DELETE', '/__sandbox/faults')

  t.equal((await call(r1.base, tok, 'PUT', '/__sandbox/clock', { now: '2031-05-04T10:00:00+02:00', frozen: true })).status, 200, 'the clock set on replica 1')
  const customerId = (await call(r2.base, tok, 'GET', '/api/customers?page=0&size=1')).json.customers[0].customerId as string
  const message = await call(r2.base, tok, 'POST', `/api/customers/${customerId}/messages`, MESSAGE)
  t.equal(message.json.dateCreated, '2031-05-04T10:00:00.000', 'a message created on replica 2 is dated by it')
  const account = await call(r3.base, tok, 'POST', '/api/accounts', { customerId })
  t.equal(account.json.openedDate, '2031-05-04', 'an account opened on replica 3 too')
})

t.test('a partner registered on one replica works on every other at once; deleted, it is gone everywhere', { skip }, async (t) => {
  const [r1, r2, r3] = await three(t)
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
  const res = await fetch(`${r1.base}/__sandbox/admin/partners`, { method: 'POST', headers: admin, body: JSON.stringify({ clientId: 'acme-replicas', agents: 2 }) })
  t.equal(res.status, 200, 'registered on replica 1')
  const registered = await res.json() as { clientId: string, clientSecret: string, agentIds: string[] }
  const tok = await token(r2.base, registered.clientId, registered.clientSecret)
  const list = await call(r3.base, tok, 'GET', '/api/customers?page=0&size=1', undefined, registered.agentIds[1])
  t.equal(list.status, 200, 'its token from replica 2 works on replica 3 for its second agent')
  const listed = await (await fetch(`${r3.base}/__sandbox/admin/partners`, { headers: admin })).json() as { partners: Array<{ partnerId: string }> }
  t.ok(listed.partners.some((p) => p.partnerId === 'acme-replicas'), 'replica 3 lists it')
  const twice = await fetch(`${r2.base}/__sandbox/admin/partners`, { method: 'POST', headers: admin, body: JSON.stringify({ clientId: 'acme-replicas' }) })
  t.equal(twice.status, 409, 'its client id cannot be registered again on replica 2')

  t.equal((await fetch(`${r2.base}/__sandbox/admin/partners/acme-replicas`, { method: 'DELETE', headers: { authorization: admin.authorization } })).status, 204, 'deleted on replica 2')
  for (const r of [r1, r2, r3]) {
    t.equal((await call(r.base, tok, 'GET', '/api/customers?page=0&size=1', undefined, registered.agentIds[0])).status, 401, `its token is refused on ${r.base}`)
    const again = await fetch(`${r.base}/auth/realms/sandbox/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${registered.clientId}:${registered.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials'
    })
    t.equal(again.status, 401, `and it gets no new token from ${r.base}`)
  }
  t.equal((await fetch(`${r3.base}/__sandbox/admin/partners/partner-a`, { method: 'DELETE', headers: { authorization: admin.authorization } })).status, 409, "a scenario's partner cannot be deleted")
})
