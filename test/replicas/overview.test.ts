import t from 'tap'
import { call } from '../calls.js'
import { freePort, replicaSkip, startHaproxy, startRedis, startReplica, startReplicas, token, type Replica } from './harness.js'

/*
 * The operator's overview with two replicas behind HAProxy over one Redis (issue 45): a partner's traffic served
 * by both (injected 5xx, a deprecated call, a create refused while Redis is full: a 5xx of the sandbox's own)
 * makes one row, the same numbers read from either replica and through the load balancer; a partner registered
 * on one is listed by the other with its name; deleted on one, it is gone from both. The operator console's
 * session opened on one replica holds on the other, and ends where the operator token is another.
 */

const skip = replicaSkip()
const ADMIN = 'operator-secret-0123456789'
const MESSAGES = '/api/customers/1001100000001/messages'
const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

interface Row { clientId: string, name: string, registered: boolean, lastRequestAt: string | null, requests24h: number, serverErrors24h: number, findings: string[], readiness: { passed: number, failed: number, notTried: number } }
interface Overview { totals: Record<string, number>, partners: Row[] }

t.test("one row per partner, the same numbers from every replica, whichever served the partner's requests", { skip }, async (t) => {
  const redis = await startRedis(t)
  const lbPort = await freePort()
  const publicUrl = `http://127.0.0.1:${lbPort}`
  const replicas = await startReplicas(t, 2, { redisUrl: redis.url, publicUrl, env: { SANDBOX_ADMIN_TOKEN: ADMIN } })
  const [r1, r2] = replicas
  const lb = await startHaproxy(t, lbPort, replicas)
  const overview = async (base: string, query = ''): Promise<Overview> => {
    const res = await fetch(`${base}/__sandbox/admin/overview${query}`, { headers: { authorization: `Bearer ${ADMIN}` } })
    if (res.status !== 200) throw new Error(`overview of ${base}: ${res.status} ${await res.text()}`)
    return await res.json() as Overview
  }
  const row = (o: Overview, clientId: string): Row | undefined => o.partners.find((p) => p.clientId === clientId)
  /** r's overview once the partner's requests reach n (a replica counts after its answer), or after 5 s. */
  const overviewWith = async (r: Replica, clientId: string, n: number): Promise<Overview> => {
    let o = await overview(r.base)
    for (let i = 0; i < 50 && (row(o, clientId)?.requests24h ?? 0) < n; i++) {
      await sleep(100)
      o = await overview(r.base)
    }
    return o
  }

  const registered = await fetch(`${r2.base}/__sandbox/admin/partners`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ clientId: 'acme-conveyancing', name: 'ACME Conveyancing' })
  })
  t.equal(registered.status, 200, 'a partner registered on replica 2')
  t.match(row(await overview(r1.base), 'acme-conveyancing'), { name: 'ACME Conveyancing', registered: true, requests24h: 0, lastRequestAt: null }, 'listed by replica 1, which has never loaded it')

  // partner-a's client through the load balancer: its requests alternate between the replicas
  const bearer = await token(lb.base)
  const statuses = [
    (await call(lb.base, bearer, '/api/banks')).status,
    (await call(lb.base, bearer, '/api/banks', { headers: { 'sandbox-fault': 'status=502' } })).status,
    (await call(lb.base, bearer, '/4.0/api/banks')).status,
    (await call(lb.base, bearer, '/api/accounts', { body: { customerId: '1001100000001', productCode: 'SANDBOX-FAULT-500' } })).status
  ]
  t.same(statuses, [200, 502, 200, 500])
  // Redis full: a create cannot be stored, and the sandbox answers 507 of its own (issue 50's clear answer for a full
  // store, counted once Redis takes writes again)
  redis.cli('config', 'set', 'maxmemory', '1')
  const refused = await call(r2.base, bearer, MESSAGES, { body: { message: 'FULL', fromDepartment: 'CI', fromPerson: 'CI' } })
  redis.cli('config', 'set', 'maxmemory', '0')
  t.equal(refused.status, 507)
  t.equal(refused.headers.get('x-sandbox-error'), 'SANDBOX_ERR_STORE_FULL')
  const sent = 1 + statuses.length + 1

  const first = await overviewWith(r1, 'partner-a', sent)
  const a = row(first, 'partner-a')!
  t.match(a, { requests24h: sent, serverErrors24h: 1, findings: ['DEPRECATED_VERSION'] }, "every request counted; the sandbox's own 507, not the injected 502 and 500")
  t.equal(a.readiness.failed, 1, 'USES_CURRENT_VERSION failed')
  t.not(a.lastRequestAt, null)
  for (const [name, base] of [['replica 2', r2.base], ['the load balancer', lb.base], ['replica 1 again', r1.base]]) {
    const o = await overview(base)
    t.same(o.partners, first.partners, `${name}: the same rows`)
    t.same(o.totals, first.totals, `${name}: the same totals`)
  }
  t.same((await overview(r2.base, '?sort=requests24h,desc&size=1')).partners.map((p) => p.clientId), ['partner-a'], 'sorted by the same numbers')

  t.equal((await fetch(`${r1.base}/__sandbox/admin/partners/acme-conveyancing`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })).status, 204, 'deleted on replica 1')
  for (const r of replicas) t.equal(row(await overview(r.base), 'acme-conveyancing'), undefined, `gone from ${r.base}`)

  const signedIn = await fetch(`${r1.base}/console/operator/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: ADMIN }) })
  const cookie = String(signedIn.headers.get('set-cookie')).split(';')[0]
  t.equal((await fetch(`${r2.base}/__sandbox/admin/overview`, { headers: { cookie } })).status, 200, 'an operator console session opened on replica 1 holds on replica 2')
  t.equal((await fetch(`${r2.base}/__sandbox/state`, { headers: { cookie: cookie.replace('sandbox_operator', 'sandbox_console') } })).status, 401, "and is no partner console's session there")
  // a replica deployed with a new operator token: sessions opened with the old one end
  const rotated = await startReplica(t, { redisUrl: redis.url, publicUrl, env: { SANDBOX_ADMIN_TOKEN: 'operator-secret-rotated-0123' } })
  t.equal((await fetch(`${rotated.base}/__sandbox/admin/overview`, { headers: { cookie } })).status, 401, 'a session of the old operator token is refused')
  t.equal((await fetch(`${rotated.base}/__sandbox/admin/overview`, { headers: { authorization: 'Bearer operator-secret-rotated-0123' } })).status, 200, 'the new token works')
})
