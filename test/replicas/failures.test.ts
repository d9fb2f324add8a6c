import t, { type Test } from 'tap'
import { call, freePort, replicaSkip, startHaproxy, startRedis, startReplicas, token, type Replica } from './harness.js'

/*
 * Faults of the parts (issue 28): a replica killed under load loses no acknowledged write and the others keep
 * serving; a rolling restart behind HAProxy fails no request; Redis unreachable turns requests into 503 with
 * Retry-After in bounded time, and service resumes when it is back, with nothing it acknowledged lost.
 */

const skip = replicaSkip()
const MESSAGE = { fromDepartment: 'FAILURES', fromPerson: 'TEST' }
const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

interface Load { acked: string[], failed: Array<{ status: number | string, body: string }>, requests: number }

/** Writers and readers through `base` until stop() resolves: every create answered 200 is acknowledged. */
function load (base: string, tok: string, customerId: string, writers: number, readers: number): { stop: () => Promise<Load> } {
  const out: Load = { acked: [], failed: [], requests: 0 }
  const state = { running: true }
  const one = async (write: boolean, n: number): Promise<void> => {
    for (let i = 0; state.running; i++) {
      out.requests += 1
      try {
        const res = write
          ? await call(base, tok, 'POST', `/api/customers/${customerId}/messages`, { ...MESSAGE, message: `LOAD ${n} ${i}` })
          : await call(base, tok, 'GET', `/api/customers/${customerId}/messages?page=0&size=5`)
        if (res.status !== 200) out.failed.push({ status: res.status, body: JSON.stringify(res.json).slice(0, 300) })
        else if (write) out.acked.push(res.json.id as string)
      } catch (err) {
        out.failed.push({ status: (err as Error & { cause?: { code?: string } }).cause?.code ?? String(err), body: '' })
      }
    }
  }
  const all = [...Array.from({ length: writers }, async (_, n) => await one(true, n)), ...Array.from({ length: readers }, async (_, n) => await one(false, n))]
  return { stop: async () => { state.running = false; await Promise.all(all); return out } }
}

async function messageIds (base: string, tok: string, customerId: string): Promise<Set<string>> {
  const res = await call(base, tok, 'GET', `/api/customers/${customerId}/messages?page=0&size=2000`)
  const ids = new Set((res.json.messages as Array<{ id: string }>).map((m) => m.id))
  // more than a page: the rest of the pages
  for (let page = 1; page < res.json.page.totalPages; page++) {
    for (const m of (await call(base, tok, 'GET', `/api/customers/${customerId}/messages?page=${page}&size=2000`)).json.messages as Array<{ id: string }>) ids.add(m.id)
  }
  return ids
}

/** Three replicas on one Redis behind HAProxy, a token of partner-a and one of its customers. */
async function threeBehindHaproxy (t: Test): Promise<{ replicas: Replica[], lb: { base: string }, tok: string, customerId: string }> {
  const redis = await startRedis(t)
  const lbPort = await freePort()
  const replicas = await startReplicas(t, 3, { redisUrl: redis.url, publicUrl: `http://127.0.0.1:${lbPort}` })
  const lb = await startHaproxy(t, lbPort, replicas)
  const tok = await token(lb.base)
  const customerId = (await call(lb.base, tok, 'GET', '/api/customers?page=0&size=1')).json.customers[0].customerId as string
  return { replicas, lb, tok, customerId }
}

t.test('a replica killed with SIGKILL under load loses no acknowledged write; the others keep serving; restarted, it serves everything at once', { skip }, async (t) => {
  const { replicas, lb, tok, customerId } = await threeBehindHaproxy(t)

  // the writers talk to the doomed replica directly, so that it has writes in flight when it dies
  const direct = load(replicas[1].base, tok, customerId, 8, 0)
  const balanced = load(lb.base, tok, customerId, 8, 4)
  await sleep(1500)
  await replicas[1].kill()
  const killedAt = Date.now()
  await sleep(1500)
  const fromVictim = await direct.stop()
  const afterKill = await balanced.stop()
  t.ok(fromVictim.acked.length > 0, `the killed replica had acknowledged ${fromVictim.acked.length} creates`)
  t.ok(afterKill.acked.length > 0, `the others went on: ${afterKill.acked.length} creates through the load balancer`)
  const lbFailures = afterKill.failed.filter((f) => f.status !== 200)
  t.ok(lbFailures.length <= 16, `through the load balancer at most the requests in flight on the killed replica failed (${lbFailures.length}: ${JSON.stringify(lbFailures.slice(0, 3))})`)

  const survivors = await messageIds(replicas[0].base, tok, customerId)
  const lost = [...fromVictim.acked, ...afterKill.acked].filter((id) => !survivors.has(id))
  t.same(lost, [], 'every create acknowledged by any replica, the killed one included, is there')

  const restarted = Date.now()
  await replicas[1].start()
  t.comment(`restarted and ready ${Date.now() - restarted} ms after its start (${restarted - killedAt} ms after the kill)`)
  const fromRestarted = await messageIds(replicas[1].base, tok, customerId)
  t.equal(fromRestarted.size, survivors.size, 'the restarted replica serves every record at once')
  t.ok([...survivors].every((id) => fromRestarted.has(id)), '(the same ones)')
})

t.test('a rolling restart (SIGTERM each replica in turn, under load, behind HAProxy) fails no request', { skip }, async (t) => {
  const { replicas, lb, tok, customerId } = await threeBehindHaproxy(t)
  const running = load(lb.base, tok, customerId, 6, 6)
  await sleep(500)
  for (const r of replicas) {
    await r.stop()
    await sleep(300)
    await r.start()
    await sleep(500)
  }
  const result = await running.stop()
  t.ok(result.requests > 200, `${result.requests} requests during the restarts`)
  t.same(result.failed, [], 'none failed')
  const ids = await messageIds(lb.base, tok, customerId)
  t.ok(result.acked.every((id) => ids.has(id)), `all ${result.acked.length} acknowledged creates are there`)
})

t.test('Redis unreachable: 503 with Retry-After in bounded time, /ready out of service; back, service resumes with nothing lost', { skip }, async (t) => {
  const redis = await startRedis(t)
  const lbPort = await freePort()
  const [r1, r2]: Replica[] = await startReplicas(t, 2, { redisUrl: redis.url, publicUrl: `http://127.0.0.1:${lbPort}`, env: { SANDBOX_REDIS_TIMEOUT: '1000' } })
  const lb = await startHaproxy(t, lbPort, [r1, r2])
  const tok = await token(r1.base)
  const customerId = (await call(r1.base, tok, 'GET', '/api/customers?page=0&size=1')).json.customers[0].customerId as string
  const before = await call(r2.base, tok, 'POST', `/api/customers/${customerId}/messages`, { ...MESSAGE, message: 'BEFORE THE OUTAGE' })
  t.equal(before.status, 200, 'a create before the outage')

  await redis.kill()
  for (const [what, r, method, path, body] of [
    ['a read', r1, 'GET', '/api/customers?page=0&size=1', undefined],
    ['a create', r2, 'POST', `/api/customers/${customerId}/messages`, { ...MESSAGE, message: 'DURING THE OUTAGE' }],
    ['a control call', r1, 'GET', '/__sandbox/state', undefined]
  ] as const) {
    const started = Date.now()
    const res = await call(r.base, tok, method, path, body)
    const ms = Date.now() - started
    t.equal(res.status, 503, `${what}: 503`)
    t.equal(res.headers.get('retry-after'), '1', `${what}: Retry-After`)
    t.equal(res.headers.get('x-sandbox-error'), 'SANDBOX_ERR_STORE_UNAVAILABLE', `${what}: the catalogue's code`)
    t.match(res.json, { status: 503, error: 'Service Unavailable', message: /Redis/, path: path.split('?')[0] }, `${what}: the error shape`)
    t.ok(ms < 3000, `${what}: answered in ${ms} ms`)
  }
  const tokenRes = await fetch(`${r2.base}/auth/realms/sandbox/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  t.equal(tokenRes.status, 503, 'a token request: 503 too, never a 500')
  for (const r of [r1, r2]) t.equal((await fetch(`${r.base}/ready`)).status, 503, `/ready of ${r.base} is 503`)
  await sleep(1000)
  const throughLb = await call(lb.base, tok, 'GET', '/api/customers?page=0&size=1')
  t.equal(throughLb.status, 503, 'behind HAProxy, with both replicas out of rotation: 503')
  t.equal(throughLb.headers.get('x-sandbox-error'), 'SANDBOX_ERR_STORE_UNAVAILABLE', "the sandbox's own (the replicas answer as backups), not HAProxy's page")
  t.equal(throughLb.headers.get('retry-after'), '1', 'with Retry-After')

  await redis.start()
  let back = -1
  for (let i = 0; i < 100 && back < 0; i++) {
    if ((await call(r1.base, tok, 'GET', '/api/customers?page=0&size=1')).status === 200) back = i
    else await sleep(100)
  }
  t.ok(back >= 0, 'service resumes without a restart')
  // each replica's client reconnects on its own backoff (at most 1 s apart, store/redis/connection.ts): the
  // other may be ready a moment after the one just asked (seen in CI: r1 200, r2 still 503 at once)
  for (const r of [r1, r2]) {
    let status = 0
    const until = Date.now() + 3000
    while ((status = (await fetch(`${r.base}/ready`)).status) !== 200 && Date.now() < until) await sleep(100)
    t.equal(status, 200, `/ready of ${r.base} is 200 again within 3 s`)
  }
  const ids = await messageIds(r1.base, tok, customerId)
  t.ok(ids.has(before.json.id as string), 'the create Redis acknowledged before the outage is there')
  const after = await call(r2.base, tok, 'POST', `/api/customers/${customerId}/messages`, { ...MESSAGE, message: 'AFTER THE OUTAGE' })
  t.equal(after.status, 200, 'and creates work again')
  t.ok((await messageIds(r1.base, tok, customerId)).has(after.json.id as string), 'seen by the other replica')
})
