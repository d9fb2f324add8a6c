import t from 'tap'
import { callWithId as call } from '../calls.js'
import { freePort, replicaSkip, startRedis, startReplicas, token, type Replica } from './harness.js'

/*
 * The readiness checklist across two replicas over one Redis (issue 29): a case played half on each replica
 * passes once, read the same from both; DELETE /__sandbox/advice on one clears it for both.
 */

const skip = replicaSkip()

interface Case { case: string, status: string, requestIds: string[] }

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

t.test('a case played on both replicas passes once, read the same from both; a DELETE on one clears both; a list paged across both is walked to its end', { skip }, async (t) => {
  const redis = await startRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const [r1, r2] = await startReplicas(t, 2, { redisUrl: redis.url, publicUrl })
  const bearer = await token(r1.base)
  /** The case as r reads it for a partner (a token of it), once it is no longer not-tried (a replica files after its answer), or after 3 s. */
  const caseOf = async (r: Replica, name: string, not = 'not-tried', as = bearer): Promise<Case> => {
    for (let i = 0; ; i++) {
      const res = await fetch(`${r.base}/__sandbox/readiness`, { headers: { authorization: `Bearer ${as}` } })
      const found = (await res.json() as { cases: Case[] }).cases.find((c) => c.case === name)!
      if (found.status !== not || i === 30) return found
      await sleep(100)
    }
  }

  t.equal((await call(r1.base, bearer, '/__sandbox/faults', { body: { match: { method: 'GET', path: '/api/banks' }, fault: 'status=500', times: 1 }, headers: { 'agent-id': '' } })).status, 200)
  const failed = await call(r1.base, bearer, '/api/banks')
  t.equal(failed.status, 500, 'a 500 on replica 1')
  await sleep(250)
  const retried = await call(r2.base, bearer, '/api/banks')
  t.equal(retried.status, 200, 'the retry on replica 2')
  for (const r of [r1, r2]) {
    t.match(await caseOf(r, 'RETRIES_SERVER_ERROR'), { status: 'passed', requestIds: [failed.requestId, retried.requestId] }, `passed, read from ${r.base}`)
  }
  t.equal((await fetch(`${r2.base}/__sandbox/advice`, { method: 'DELETE', headers: { authorization: `Bearer ${bearer}` } })).status, 204)
  t.equal((await caseOf(r1, 'RETRIES_SERVER_ERROR', 'passed')).status, 'not-tried', 'cleared on replica 1 by a DELETE on replica 2')
  const junit = await fetch(`${r1.base}/__sandbox/readiness?format=junit`, { headers: { authorization: `Bearer ${bearer}` } })
  t.match(await junit.text(), /<testsuites [^>]*tests="8" failures="0" errors="0" skipped="\d+">/, 'JUnit from a replica')

  // issue 44's client: partner-b pages through its customers (GET /api/customers?page=N&size=10) to page.last,
  // each page served by the other replica, so the pages' digests meet in Redis
  const b = await token(r2.base, 'partner-b')
  const pages: string[] = []
  for (let page = 0; ; page++) {
    const sent = await fetch(`${[r1, r2][page % 2].base}/api/customers?page=${page}&size=10`, { headers: { authorization: `Bearer ${b}`, 'agent-id': '2001' } })
    t.equal(sent.status, 200)
    pages.push(String(sent.headers.get('x-request-id')))
    if ((await sent.json() as { page: { last: boolean } }).page.last) break
  }
  t.equal(pages.length, 4, 'four pages, two from each replica')
  for (const r of [r1, r2]) {
    t.match(await caseOf(r, 'PAGES_TO_THE_END', 'not-tried', b), { status: 'passed', requestIds: pages }, `PAGES_TO_THE_END passed, read from ${r.base}`)
  }
})
