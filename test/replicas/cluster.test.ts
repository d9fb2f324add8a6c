import t from 'tap'
import { call, freePort, replicaSkip, startRedisCluster, startReplicas, token } from './harness.js'

/*
 * The same code on a Redis Cluster (SANDBOX_REDIS_CLUSTER=1, the URL a seed node): three masters started by
 * the test, three replicas. Each partner's keys carry its id as a hash tag, so a partner's scripts run on the
 * one master that holds its slot; the sandbox-wide keys share their own tag.
 */

const skip = replicaSkip()
const ADMIN = 'admin-token-for-the-cluster-test'
const MESSAGE = { message: 'ON A CLUSTER', fromDepartment: 'CLUSTER', fromPerson: 'TEST' }

t.test('three replicas on a three-master Redis Cluster are one sandbox', { skip }, async (t) => {
  const cluster = await startRedisCluster(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const replicas = await startReplicas(t, 3, { redisUrl: cluster.url, publicUrl, env: { SANDBOX_REDIS_CLUSTER: '1', SANDBOX_ADMIN_TOKEN: ADMIN } })
  const [r1, r2, r3] = replicas

  // partners whose keys land on different masters: the scenario's two, and registered ones
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
  const partners: Array<{ id: string, secret: string, agent: string }> = [{ id: 'partner-a', secret: 'partner-a-secret', agent: '1001' }, { id: 'partner-b', secret: 'partner-b-secret', agent: '2001' }]
  for (const clientId of ['cluster-one', 'cluster-two', 'cluster-three']) {
    const res = await fetch(`${r1.base}/__sandbox/admin/partners`, { method: 'POST', headers: admin, body: JSON.stringify({ clientId }) })
    t.equal(res.status, 200, `${clientId} registered`)
    const body = await res.json() as { clientSecret: string, agentIds: string[] }
    partners.push({ id: clientId, secret: body.clientSecret, agent: body.agentIds[0] })
  }

  for (const p of partners) {
    const tok = await token(r2.base, p.id, p.secret)
    const customerId = (await call(r3.base, tok, 'GET', '/api/customers?page=0&size=1', undefined, p.agent)).json.customers[0].customerId as string
    const ids = await Promise.all(replicas.flatMap((r) => Array.from({ length: 10 }, async (_, i) => {
      const res = await call(r.base, tok, 'POST', `/api/customers/${customerId}/messages`, { ...MESSAGE, message: `CLUSTER ${r.port} ${i}` }, p.agent)
      if (res.status !== 200) throw new Error(`${p.id}: create answered ${res.status} ${JSON.stringify(res.json)}`)
      return res.json.id as string
    })))
    t.equal(new Set(ids).size, 30, `${p.id}: 30 concurrent creates on three replicas, 30 ids`)
    for (const r of replicas) {
      const listed = await call(r.base, tok, 'GET', `/api/customers/${customerId}/messages?page=0&size=2000`, undefined, p.agent)
      const seen = new Set((listed.json.messages as Array<{ id: string }>).map((m) => m.id))
      t.ok(ids.every((id) => seen.has(id)), `${p.id}: every create listed by ${r.base}`)
    }
    t.equal((await call(r1.base, tok, 'POST', '/__sandbox/snapshots', { name: 'on-cluster' }, p.agent)).status, 200, `${p.id}: a named snapshot`)
    t.equal((await call(r2.base, tok, 'POST', '/__sandbox/reset', { snapshot: 'on-cluster' }, p.agent)).status, 200, `${p.id}: restored on another replica`)
    t.equal((await call(r3.base, tok, 'POST', '/__sandbox/guarantees', { state: 'VALID', guaranteeId: `GTE-${p.id}` }, p.agent)).status, 200, `${p.id}: a guarantee`)
    const state = await fetch(`${r1.base}/api/guarantees/GTE-${p.id}/state`)
    t.same(await state.json(), { state: 'VALID' }, `${p.id}: its public state read on another replica`)
  }
  const keys = new Set<string>()
  for (const port of cluster.ports) {
    const { spawnSync } = await import('node:child_process')
    const out = spawnSync('redis-cli', ['-p', String(port), '--scan', '--pattern', 'sbx:*'], { encoding: 'utf8' }).stdout.trim()
    if (out !== '') keys.add(String(port))
  }
  t.ok(keys.size >= 2, `the sandbox's keys are spread over ${keys.size} masters`)
})
