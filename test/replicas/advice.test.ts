import t from 'tap'
import { callWithId as call } from '../calls.js'
import { freePort, replicaSkip, startRedis, startRedisCluster, startReplicas, token, type Replica } from './harness.js'

/*
 * The advisor across two replicas over one Redis (issue 29): a bad client's requests served by both replicas
 * make one set of findings, the same read from either; DELETE on one clears it for both, a reset too; and
 * under concurrent traffic with both replicas folding at once (reads of the advice on each, and the
 * fold at 256 pending digests), every request is counted once.
 */

const skip = replicaSkip()
const MESSAGES = '/api/customers/1001100000001/messages'
const RETRY_WINDOW_MS = 5000

interface Finding { code: string, count: number, examples: string[] }
interface Advice { observing: boolean, requests: number, findings: Finding[] }
const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

t.test('findings from traffic served by both replicas', { skip }, async (t) => {
  const redis = await startRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  // a retry is "without backoff" within SANDBOX_ADVICE_RETRY_WINDOW of its failure (100 ms by default); a
  // retry sent to the other replica on a new connection of a loaded CI machine took longer than that, so the
  // window here is wide: this file tests what two replicas make of the traffic, not the rule's timing
  // (test/advice.test.ts and the unit tests of src/advisor/ do)
  const env = { SANDBOX_ADVICE_RETRY_WINDOW: String(RETRY_WINDOW_MS) }
  const [r1, r2] = await startReplicas(t, 2, { redisUrl: redis.url, publicUrl, env })
  const both = [r1, r2]
  // the harness's token for the control API (its token request is judged too: counted below)
  let harness = await token(r1.base)
  const advice = async (r: Replica): Promise<Advice> => {
    const res = await fetch(`${r.base}/__sandbox/advice`, { headers: { authorization: `Bearer ${harness}` } })
    if (res.status !== 200) throw new Error(`advice of ${r.base}: ${res.status} ${await res.text()}`)
    return await res.json() as Advice
  }
  /** The advice read from r once it has code (a replica files after its answer). */
  const adviceWith = async (r: Replica, code: string): Promise<Advice> => {
    let a = await advice(r)
    for (let i = 0; i < 30 && !a.findings.some((f) => f.code === code); i++) {
      await sleep(100)
      a = await advice(r)
    }
    return a
  }
  const codes = (a: Advice): string[] => a.findings.map((f) => f.code).sort()
  const clear = async (r: Replica): Promise<number> => (await fetch(`${r.base}/__sandbox/advice`, { method: 'DELETE', headers: { authorization: `Bearer ${harness}` } })).status

  await t.test('retries without backoff, alternating between the replicas', async (t) => {
    const bearer = await token(r1.base)
    const sent: Array<{ status: number, requestId: string | null }> = []
    for (let i = 0; i < 4; i++) sent.push(await call(both[i % 2].base, bearer, MESSAGES, { body: { message: 'RETRIED', fromDepartment: 'CI', fromPerson: 'CI' }, headers: { 'sandbox-fault': 'status=500' } }))
    t.same(sent.map((s) => s.status), [500, 500, 500, 500])
    const a = await adviceWith(r1, 'RETRY_WITHOUT_BACKOFF')
    t.same(codes(a), ['RETRY_WITHOUT_BACKOFF'])
    t.same(a.findings[0].examples, [sent[3].requestId], 'the fourth request, served by replica 2, is the example')
    t.same(await advice(r2), a, 'replica 2 reads the same advice')
  })

  await t.test('Retry-After ignored: the 503 from replica 1, the next request to replica 2', async (t) => {
    t.equal(await clear(r2), 204)
    t.same((await advice(r1)).findings, [], 'cleared on replica 2, gone on replica 1')
    const bearer = await token(r2.base)
    t.equal((await call(r1.base, bearer, '/api/banks', { headers: { 'sandbox-fault': 'status=503' } })).status, 503)
    t.equal((await call(r2.base, bearer, '/api/banks')).status, 200)
    t.same(codes(await adviceWith(r2, 'RETRY_AFTER_IGNORED')), ['RETRY_AFTER_IGNORED'])
  })

  await t.test('a duplicate create: made on replica 1 behind a reset connection, made again on replica 2', async (t) => {
    t.equal(await clear(r1), 204)
    const bearer = await token(r1.base)
    const body = { message: `DUPLICATED ACROSS REPLICAS ${Date.now()}`, fromDepartment: 'CI', fromPerson: 'CI' }
    t.equal((await call(r1.base, bearer, MESSAGES, { body, headers: { 'sandbox-fault': 'after, reset' } })).status, 0)
    await sleep(200)
    t.equal((await call(r2.base, bearer, MESSAGES, { body })).status, 200)
    t.same(codes(await adviceWith(r1, 'DUPLICATE_CREATE')), ['DUPLICATE_CREATE'])
  })

  await t.test('a refused token sent again: refused by replica 2, sent again to replica 1', async (t) => {
    t.equal(await clear(r1), 204)
    const bearer = await token(r1.base)
    t.equal((await fetch(`${r1.base}/__sandbox/tokens/expire`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` } })).status, 200)
    harness = await token(r2.base)
    t.equal((await call(r2.base, bearer, '/api/banks')).status, 401)
    t.equal((await call(r1.base, bearer, '/api/banks')).status, 401)
    const a = await adviceWith(r2, 'REJECTED_TOKEN_REUSED')
    t.same(codes(a), ['REJECTED_TOKEN_REUSED'])
    t.equal(a.findings[0].count, 1)
  })

  await t.test('concurrent traffic on both replicas while both fold: every request counted once', async (t) => {
    t.equal(await clear(r2), 204)
    const before = (await advice(r1)).requests
    const bearer = await token(r1.base)
    const traffic = { running: true }
    // both replicas read (and so fold and commit) the advice all along
    const readers = both.map(async (r) => { while (traffic.running) await advice(r) })
    const N = 600
    let next = 0
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < N) {
        const i = next++
        t.equal((await call(both[i % 2].base, bearer, `/api/banks?page=${i % 7}`)).status, 200)
      }
    }))
    traffic.running = false
    await Promise.all(readers)
    let a = await advice(r2)
    for (let i = 0; i < 20 && a.requests < before + 1 + N; i++) {
      await sleep(100)
      a = await advice(r2)
    }
    t.equal(a.requests, before + 1 + N, `the token request and the ${N} calls, each counted once`)
    t.same(codes(a), [], 'and nothing wrong in them')
    t.same(await advice(r1), a, 'replica 1 reads the same')
  })

  await t.test('a reset on replica 1 clears them for both', async (t) => {
    const bearer = await token(r2.base)
    for (let i = 0; i < 5; i++) await call(both[i % 2].base, bearer, MESSAGES, { body: { fromDepartment: 'CI' } })
    t.same(codes(await adviceWith(r2, 'REPEATED_CLIENT_ERROR')), ['REPEATED_CLIENT_ERROR'])
    t.equal((await fetch(`${r1.base}/__sandbox/reset`, { method: 'POST', headers: { authorization: `Bearer ${harness}` } })).status, 200)
    t.same(await advice(r2), { observing: true, requests: 0, findings: [] })
  })
})

t.test('on a Redis Cluster: one partner\'s advice from both replicas, cleared from either', { skip }, async (t) => {
  const cluster = await startRedisCluster(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const [r1, r2] = await startReplicas(t, 2, { redisUrl: cluster.url, publicUrl, env: { SANDBOX_REDIS_CLUSTER: '1', SANDBOX_ADVICE_RETRY_WINDOW: String(RETRY_WINDOW_MS) } })
  const harness = await token(r1.base)
  const advice = async (r: Replica): Promise<Advice> => await (await fetch(`${r.base}/__sandbox/advice`, { headers: { authorization: `Bearer ${harness}` } })).json() as Advice
  const bearer = await token(r2.base)
  for (let i = 0; i < 4; i++) t.equal((await call([r1, r2][i % 2].base, bearer, '/4.0/api/banks', { headers: { 'sandbox-fault': 'status=500' } })).status, 500)
  let a = await advice(r1)
  for (let i = 0; i < 30 && a.findings.length < 2; i++) {
    await sleep(100)
    a = await advice(r1)
  }
  t.same(a.findings.map((f) => [f.code, f.count]), [['RETRY_WITHOUT_BACKOFF', 1], ['DEPRECATED_VERSION', 4]])
  t.same(await advice(r2), a, 'the same from replica 2')
  t.equal((await fetch(`${r2.base}/__sandbox/advice`, { method: 'DELETE', headers: { authorization: `Bearer ${harness}` } })).status, 204)
  t.same((await advice(r1)).findings, [])
})
