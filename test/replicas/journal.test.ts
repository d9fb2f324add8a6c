import { request as httpRequest } from 'node:http'
import { performance } from 'node:perf_hooks'
import t from 'tap'
import type { JournalSummary } from '../../src/schemas/journal.js'
import { freePort, replicaSkip, startRedis, startRedisCluster, startReplicas, token, type Replica } from './harness.js'

/*
 * The request journal shared by replicas over one Redis (issue 28): one journal per partner whichever replica
 * served the request, read from any replica (list, filters, count, HAR, by id), bounded by SANDBOX_JOURNAL_SIZE,
 * emptied for all by one DELETE; the live tail of one replica shows what another served within a second;
 * reads answer 503 while Redis is away and recover when it is back.
 */

const skip = replicaSkip()
const ADMIN = 'admin-token-for-the-journal-tests'
const SIZE = 30
const TAIL_BOUND_MS = 1000
const MESSAGE = { message: 'NEEDLE IN THE SHARED JOURNAL', fromDepartment: 'TESTS', fromPerson: 'REPLICA TWO' }

interface Answer { status: number, json: any, headers: Headers }

/** A request with its own X-Request-Id (the journal is looked up by it). */
async function send (base: string, tok: string, path: string, opts: { method?: string, body?: unknown, requestId?: string, agentId?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${tok}`, 'agent-id': opts.agentId ?? '1001' }
  if (opts.requestId !== undefined) headers['x-request-id'] = opts.requestId
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${base}${path}`, { method: opts.method ?? 'GET', headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) })
  const text = await res.text()
  return { status: res.status, json: text === '' ? null : JSON.parse(text), headers: res.headers }
}

async function list (r: Replica, tok: string, query = ''): Promise<{ requests: JournalSummary[], total: number }> {
  const res = await send(r.base, tok, `/__sandbox/requests?limit=1000${query}`)
  if (res.status !== 200) throw new Error(`journal of ${r.base}: ${res.status} ${JSON.stringify(res.json)}`)
  return res.json
}

/**
 * The journal read from r once `until` holds of it (at most 3 s): a replica files a request in the journal
 * right after its answer, so a read sent the moment the answer arrived may come before the entry on a busy
 * machine (CI: a reset's own entry was not yet there).
 */
async function listOnce (r: Replica, tok: string, until: (journal: { requests: JournalSummary[], total: number }) => boolean): Promise<{ requests: JournalSummary[], total: number }> {
  let journal = await list(r, tok)
  for (let i = 0; i < 30 && !until(journal); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    journal = await list(r, tok)
  }
  return journal
}

const count = async (r: Replica, tok: string, filter?: object): Promise<number> => (await send(r.base, tok, '/__sandbox/requests/count', { method: 'POST', body: filter })).json.count

interface TailEvent { id: string, data: JournalSummary, at: number }

interface Tail {
  /** The event of the entry with that X-Request-Id, once it arrives (rejects after ms). */
  next: (requestId: string, ms?: number) => Promise<TailEvent>
  events: TailEvent[]
  /** Resolves when the server ends the stream. */
  ended: Promise<void>
  close: () => void
}

/** A live tail (server-sent events), resolved once the server says it is connected. */
async function openTail (base: string, tok: string): Promise<Tail> {
  return await new Promise((resolve, reject) => {
    const events: TailEvent[] = []
    const waiting = new Set<() => void>()
    let end!: () => void
    const ended = new Promise<void>((resolve) => { end = resolve })
    const req = httpRequest(`${base}/__sandbox/requests/stream`, { headers: { authorization: `Bearer ${tok}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`tail of ${base}: ${res.statusCode}`))
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          if (block.endsWith(': connected')) resolve(tail)
          const m = /^id: (\d+)\nevent: request\ndata: (.*)$/.exec(block)
          if (m === null) continue
          events.push({ id: m[1], data: JSON.parse(m[2]) as JournalSummary, at: performance.now() })
          for (const check of waiting) check()
        }
      })
      res.on('close', end)
    })
    req.on('error', () => end())
    req.end()
    const tail: Tail = {
      events,
      ended,
      close: () => req.destroy(),
      next: async (requestId, ms = 5000) => await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(check)
          reject(new Error(`no event for ${requestId} within ${ms} ms`))
        }, ms)
        const check = (): void => {
          const found = events.find((e) => e.data.requestId === requestId)
          if (found === undefined) return
          waiting.delete(check)
          clearTimeout(timer)
          resolve(found)
        }
        waiting.add(check)
        check()
      })
    }
  })
}

/** Milliseconds from sending a request to one replica to its event on another replica's tail. */
async function tailLag (tail: Tail, served: Replica, tok: string, requestId: string): Promise<number> {
  const sent = performance.now()
  const res = await send(served.base, tok, '/api/banks?page=0&size=1', { requestId })
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.json)}`)
  return (await tail.next(requestId)).at - sent
}

const within = async <T>(ms: number, what: Promise<T>): Promise<T | 'timeout'> =>
  await Promise.race([what, new Promise<'timeout'>((resolve) => setTimeout(resolve, ms, 'timeout'))])

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

t.test('one journal per partner across three replicas: read from any, bounded, emptied for all, tailed live, 503 while Redis is away', { skip }, async (t) => {
  const redis = await startRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const [r1, r2, r3] = await startReplicas(t, 3, { redisUrl: redis.url, publicUrl, env: { SANDBOX_ADMIN_TOKEN: ADMIN, SANDBOX_JOURNAL_SIZE: String(SIZE) } })
  const replicas = [r1, r2, r3]
  const tok = await token(r1.base)
  const customerId = (await send(r2.base, tok, '/api/customers?page=0&size=1')).json.customers[0].customerId as string

  // the live tail of replica 1 shows what replicas 3 and 2 served, within a second
  const tail = await openTail(r1.base, tok)
  const lags: number[] = []
  for (let i = 0; i < 5; i++) lags.push(await tailLag(tail, [r3, r2][i % 2], tok, `tailed-${i}`))
  t.comment(`live tail on replica 1, request sent to replica 3 or 2 until its event: ${lags.map((ms) => ms.toFixed(0)).join(', ')} ms`)
  t.ok(Math.max(...lags) < TAIL_BOUND_MS, `every request served elsewhere reached the tail within ${TAIL_BOUND_MS} ms (most ${Math.max(...lags).toFixed(0)} ms)`)
  t.ok(await tailLag(tail, r1, tok, 'tailed-own') < TAIL_BOUND_MS, "and the replica's own request too")
  const tailedIds = tail.events.map((e) => Number(e.id))
  t.same(tailedIds, [...tailedIds].sort((a, b) => a - b), 'the tail delivers entries in the order of their ids')
  t.same(tail.events.map((e) => e.id), tail.events.map((e) => e.data.id), 'the event id is the entry id')

  // requests served by each replica, all in one journal read from any replica
  t.equal((await send(r2.base, tok, '/__sandbox/requests', { method: 'DELETE' })).status, 204, 'emptied on replica 2')
  const sent: string[] = []
  for (let i = 0; i < 9; i++) {
    sent.push(`round-${i}`)
    t.equal((await send(replicas[i % 3].base, tok, `/api/customers/${customerId}`, { requestId: `round-${i}` })).status, 200)
  }
  sent.push('needle')
  t.equal((await send(r2.base, tok, `/api/customers/${customerId}/messages`, { method: 'POST', body: MESSAGE, requestId: 'needle' })).status, 200)
  const seen = await Promise.all(replicas.map(async (r) => await listOnce(r, tok, (j) => j.total >= sent.length)))
  for (const [i, journal] of seen.entries()) {
    t.same(journal.requests.map((e) => e.requestId).sort(), [...sent].sort(), `replica ${i + 1} lists every replica's requests, each once`)
    t.same(journal.requests.map((e) => e.id), seen[0].requests.map((e) => e.id), `in the same order, with the same ids on replica ${i + 1}`)
  }
  // listed in the order the entries reached Redis (docs/replicas.md): each replica files right after its
  // answer, so one starved of CPU for a moment files later than the next replica; the times say when each
  // request arrived, in the order they were sent
  const ids = seen[0].requests.map((e) => Number(e.id)).reverse()
  t.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]), `newest first, by ids that increase: ${ids.join(' ')}`)
  const time = new Map(seen[0].requests.map((e) => [e.requestId, Date.parse(e.time)]))
  t.ok(sent.every((r, i) => i === 0 || time.get(r)! >= time.get(sent[i - 1])!), 'the times of arrival follow the order the requests were sent')
  t.ok(ids[0] > Math.max(...tailedIds), 'and go on from the ids before the journal was emptied')

  t.equal(await count(r3, tok), 10, 'count without a filter, on replica 3')
  t.equal(await count(r3, tok, { method: 'GET', route: '/api/customers/{customerId}' }), 9, 'count by method and route')
  t.equal(await count(r1, tok, { bodyContains: 'NEEDLE IN THE SHARED' }), 1, "count by body text, on replica 1, of replica 2's create")
  t.equal((await list(r3, tok, '&method=POST&status=2xx')).total, 1, 'list filters')
  const har = await send(r1.base, tok, '/__sandbox/requests.har?method=POST')
  t.equal(har.status, 200)
  t.equal(har.json.log.entries.length, 1, 'the HAR of replica 1 with a filter')
  t.same(JSON.parse(har.json.log.entries[0].request.postData.text), MESSAGE, "holds replica 2's request body")
  t.equal((await send(r3.base, tok, '/__sandbox/requests.har')).json.log.entries.length, 10, 'the whole journal as HAR on replica 3')
  const byId = await send(r2.base, tok, `/__sandbox/requests/${seen[0].requests.find((e) => e.requestId === 'round-8')!.id}`)
  t.match(byId.json, { requestId: 'round-8', route: '/api/customers/{customerId}', response: { headers: { 'x-request-id': 'round-8' } } }, "replica 2 reads replica 3's entry by id")
  t.match((await send(r3.base, tok, '/__sandbox/requests/needle')).json, { method: 'POST', request: { body: JSON.stringify(MESSAGE) } }, "replica 3 reads replica 2's entry by X-Request-Id")

  // bounded to SANDBOX_JOURNAL_SIZE across replicas, under concurrent requests (small answers: the bound by
  // bytes, SANDBOX_JOURNAL_SIZE x 4 KiB, is not reached)
  await Promise.all(replicas.map(async (r, i) => {
    await Promise.all(Array.from({ length: 15 }, async (_, k) => {
      const res = await send(r.base, tok, `/api/banks?page=0&size=1&replica=${i + 1}&k=${k}`)
      if (res.status !== 200) throw new Error(`${res.status}`)
    }))
  }))
  for (const r of replicas) {
    const kept = await listOnce(r, tok, (j) => Number(j.requests[0]?.id) >= ids.at(-1)! + 45)
    t.equal(kept.total, SIZE, `${SIZE} entries kept, read on ${r.base}`)
    const keptIds = kept.requests.map((e) => Number(e.id))
    t.ok(keptIds.every((id, i) => i === 0 || id === keptIds[i - 1] - 1), 'the newest ones: consecutive ids, none given twice')
    t.equal(keptIds[0], ids.at(-1)! + 45, 'ending with the 45th request after the needle')
  }
  t.same([redis.cli('xlen', 'sbx:{partner-a}:journal'), redis.cli('llen', 'sbx:{partner-a}:journal-sizes')], [String(SIZE), String(SIZE)], 'the stream holds no more')

  // emptied on one replica, for all; a reset keeps it
  t.equal((await send(r1.base, tok, '/__sandbox/requests', { method: 'DELETE' })).status, 204)
  t.same([(await list(r2, tok)).total, (await list(r3, tok)).total], [0, 0], 'emptied on replica 1: empty on 2 and 3')
  t.equal((await send(r2.base, tok, '/__sandbox/reset', { method: 'POST' })).status, 200)
  const afterReset = await listOnce(r3, tok, (j) => j.total > 0)
  t.same(afterReset.requests.map((e) => e.url), ['/__sandbox/reset'], 'a reset does not empty the journal (it is in it)')
  t.equal(Number(afterReset.requests[0].id), ids.at(-1)! + 46, 'ids go on after the journal was emptied')

  // a deleted partner's journal goes with it, and its tails on other replicas end
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
  const registered = await (await fetch(`${r1.base}/__sandbox/admin/partners`, { method: 'POST', headers: admin, body: JSON.stringify({ clientId: 'journal-gone', scenario: 'empty' }) })).json() as { clientId: string, clientSecret: string, agentIds: string[] }
  const goneToken = await token(r2.base, registered.clientId, registered.clientSecret)
  const goneTail = await openTail(r3.base, goneToken)
  await send(r2.base, goneToken, '/api/banks', { agentId: registered.agentIds[0], requestId: 'gone-1' })
  t.equal((await goneTail.next('gone-1')).data.agentId, registered.agentIds[0], "the partner's tail on replica 3 shows its request on replica 2")
  const goneKeys = ['sbx:{journal-gone}:journal', 'sbx:{journal-gone}:journal-head', 'sbx:{journal-gone}:journal-sizes']
  t.equal(redis.cli('exists', ...goneKeys), '3', 'its journal is in Redis')
  t.equal((await fetch(`${r1.base}/__sandbox/admin/partners/journal-gone`, { method: 'DELETE', headers: { authorization: admin.authorization } })).status, 204)
  t.not(await within(3000, goneTail.ended), 'timeout', 'its tail on replica 3 ended')
  t.equal(redis.cli('exists', ...goneKeys), '0', 'its journal is gone from Redis')

  // Redis away: reads answer 503 with Retry-After, requests are not journaled (logged once); back: all resumes
  await redis.stop()
  for (const [method, path] of [['GET', '/__sandbox/requests'], ['POST', '/__sandbox/requests/count'], ['GET', '/__sandbox/requests.har'], ['GET', '/__sandbox/requests/1'], ['DELETE', '/__sandbox/requests'], ['GET', '/__sandbox/requests/stream']]) {
    const res = await send(r2.base, tok, path, { method })
    t.equal(res.status, 503, `${method} ${path}: 503 while Redis is away`)
    t.equal(res.headers.get('retry-after'), '1')
    t.equal(res.headers.get('x-sandbox-error'), 'SANDBOX_ERR_STORE_UNAVAILABLE')
  }
  // (API calls answer 503 before they reach a partner; the token endpoint files its requests: their entries are lost)
  for (let i = 0; i < 5; i++) {
    await fetch(`${r3.base}/auth/realms/sandbox/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': `outage-${i}` },
      body: 'grant_type=client_credentials'
    })
  }
  await redis.start()
  const until = Date.now() + 15_000
  const back = async (r: Replica): Promise<boolean> => (await send(r.base, tok, '/__sandbox/requests')).status === 200
  for (const r of replicas) while (!await back(r) && Date.now() < until) await sleep(100)
  for (const r of replicas) t.ok(await back(r), `reads recover on ${r.base} once Redis is back, without a restart`)
  const lag = await tailLag(tail, r3, tok, 'after-outage')
  t.ok(lag < TAIL_BOUND_MS, `the tail opened before the outage shows a request of replica 3 again (${lag.toFixed(0)} ms)`)
  t.same((await list(r1, tok)).requests.map((e) => e.requestId), ['after-outage', afterReset.requests[0].requestId], 'filing resumes; what came while Redis was away is not in the journal')
  await token(r2.base)
  const stored = redis.cli('xrange', 'sbx:{partner-a}:journal', '-', '+')
  t.match(stored, /openid-connect\/token/, "a token request is in the partner's stream")
  t.notOk(stored.includes(tok) || stored.includes(Buffer.from('partner-a:partner-a-secret').toString('base64')), 'with no token and no client secret in Redis')
  t.equal((await list(r3, tok)).requests.filter((e) => e.url.includes('/token')).length, 1, 'read on replica 3')
  const outages = (r: Replica): number => r.log().split('the request journal cannot reach Redis').length - 1
  t.equal(outages(r3), 1, 'replica 3 logged the outage once, not for each request it could not journal')
  t.equal(outages(r1), 1, "replica 1 (its tail's reads failed) logged it once too")
  tail.close()
})

t.test("an expired token of a partner a replica has not served yet: its 401 is in the partner's journal", { skip }, async (t) => {
  const redis = await startRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const TTL_S = 10
  const [r1, r2] = await startReplicas(t, 2, { redisUrl: redis.url, publicUrl, env: { SANDBOX_ADMIN_TOKEN: ADMIN, SANDBOX_TOKEN_TTL: String(TTL_S) } })
  // registered on replica 1 after both started: replica 2 holds it only once a request brings it there
  // (the situation of every registered partner on every replica after a deploy)
  const res = await fetch(`${r1.base}/__sandbox/admin/partners`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ clientId: 'acme-expiry' }) })
  t.equal(res.status, 200, 'registered on replica 1')
  const registered = await res.json() as { clientId: string, clientSecret: string, agentIds: string[] }
  const expiring = await token(r1.base, registered.clientId, registered.clientSecret)
  await sleep(TTL_S * 1000 + 1500)
  const refused = await send(r2.base, expiring, '/api/customers?page=0&size=1', { agentId: registered.agentIds[0], requestId: 'expired-elsewhere' })
  t.equal(refused.status, 401, 'the expired token is refused by replica 2')
  const fresh = await token(r1.base, registered.clientId, registered.clientSecret)
  const journal = await listOnce(r1, fresh, (j) => j.requests.some((e) => e.requestId === 'expired-elsewhere'))
  const entry = journal.requests.find((e) => e.requestId === 'expired-elsewhere')
  t.equal(entry?.status, 401, "replica 2 filed the 401 in the partner's journal, read on replica 1")
})

t.test('on a Redis Cluster: the tail of one replica shows what another served, every replica reads one journal', { skip }, async (t) => {
  const cluster = await startRedisCluster(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const [r1, r2] = await startReplicas(t, 2, { redisUrl: cluster.url, publicUrl, env: { SANDBOX_REDIS_CLUSTER: '1' } })
  const tok = await token(r1.base)
  const partnerB = await token(r2.base, 'partner-b')
  await send(r1.base, tok, '/__sandbox/requests', { method: 'DELETE' })
  const tail = await openTail(r1.base, tok)
  const lag = await tailLag(tail, r2, tok, 'cluster-1')
  t.ok(lag < TAIL_BOUND_MS, `replica 2's request on replica 1's tail within ${TAIL_BOUND_MS} ms (${lag.toFixed(0)} ms)`)
  await send(r2.base, partnerB, '/api/banks', { agentId: '2001', requestId: 'cluster-b' })
  await send(r1.base, tok, '/api/banks', { requestId: 'cluster-2' })
  await tail.next('cluster-2')
  t.notOk(tail.events.some((e) => e.data.requestId === 'cluster-b'), "another partner's request (another slot) is not on the tail")
  for (const r of [r1, r2]) t.same((await list(r, tok)).requests.map((e) => e.requestId), ['cluster-2', 'cluster-1'], `one journal read on ${r.base}`)
  t.same((await list(r1, partnerB)).requests.map((e) => e.requestId).slice(0, 1), ['cluster-b'], "partner-b's own journal")
  tail.close()
})
