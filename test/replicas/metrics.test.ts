import t from 'tap'
import { scrape, total, type MetricSample } from '../observability/scrape.js'
import { call, freePort, replicaSkip, startHaproxy, startRedis, startReplicas, token, type Replica } from './harness.js'

/*
 * Metrics of replicas (docs/observability.md): each replica serves its own on its management port, and a sum()
 * over the replicas is the whole sandbox. Two replicas on one Redis behind HAProxy (round robin).
 */

const skip = replicaSkip()
const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

/** The replica's management URL, from its banner. */
function managementOf (r: Replica): string {
  const m = /^ {2}metrics +(http:\/\/\S+)\/metrics /m.exec(r.log())
  if (m === null) throw new Error(`no metrics line in the banner:\n${r.log()}`)
  return m[1]
}

async function scrapeAll (replicas: Replica[]): Promise<MetricSample[][]> {
  return await Promise.all(replicas.map(async (r) => (await scrape(managementOf(r))).samples))
}

/** The metric summed over the replicas, as sum() in Prometheus. */
const sum = (all: MetricSample[][], name: string, labels: Record<string, string> = {}): number => all.reduce((s, samples) => s + total(samples, name, labels), 0)

t.test('two replicas: each serves its own metrics, and their sum is the whole sandbox', { skip }, async (t) => {
  const redis = await startRedis(t)
  const lbPort = await freePort()
  const publicUrl = `http://127.0.0.1:${lbPort}`
  const replicas = await startReplicas(t, 2, { redisUrl: redis.url, publicUrl })
  const lb = await startHaproxy(t, lbPort, replicas)
  t.not(managementOf(replicas[0]), managementOf(replicas[1]), 'a management port each')
  const before = await scrapeAll(replicas)

  const tokens = 4
  const toks: string[] = []
  for (let i = 0; i < tokens; i++) toks.push(await token(lb.base))
  const reads = 30
  const creates = 10
  for (let i = 0; i < reads; i++) t.equal((await call(lb.base, toks[i % tokens], 'GET', '/api/banks')).status, 200)
  for (let i = 0; i < creates; i++) {
    t.equal((await call(lb.base, toks[i % tokens], 'POST', '/api/customers/1001100000001/messages', { message: `HELLO ${i}`, fromDepartment: 'IT', fromPerson: 'CI' })).status, 200)
  }
  t.equal((await call(lb.base, toks[0], 'GET', '/api/banks', undefined, '1001')).status, 200)
  const faulted = await fetch(`${lb.base}/api/banks`, { headers: { authorization: `Bearer ${toks[0]}`, 'agent-id': '1001', 'sandbox-fault': 'status=503' } })
  t.equal(faulted.status, 503)

  const after = await scrapeAll(replicas)
  const delta = (name: string, labels: Record<string, string> = {}): number => sum(after, name, labels) - sum(before, name, labels)
  const banks = { api: 'bank', route: '/api/banks', status_code: '200', injected: 'false' }
  t.equal(delta('http_server_request_duration_seconds_count', banks), reads + 1, 'sum() over the replicas: every read, once')
  t.ok(after.every((samples, i) => total(samples, 'http_server_request_duration_seconds_count', banks) > total(before[i], 'http_server_request_duration_seconds_count', banks)), 'each replica served some of them (round robin)')
  t.equal(delta('http_server_request_duration_seconds_count', { api: 'bank', route: '/api/customers/{customerId}/messages', status_code: '200' }), creates, 'every create, once')
  t.equal(delta('http_server_request_duration_seconds_count', { api: 'bank', status_code: '503', injected: 'true' }), 1, 'the injected 503')
  t.equal(delta('sandbox_faults_injected_total'), 1)
  t.equal(delta('sandbox_tokens_issued_total', { grant_type: 'client_credentials' }), tokens, 'every token, once')

  for (const [i, samples] of after.entries()) {
    t.equal(total(samples, 'sandbox_redis_up'), 1, `replica ${i + 1}: Redis up`)
    t.equal(total(samples, 'sandbox_ready'), 1, `replica ${i + 1}: ready`)
    t.ok(total(samples, 'sandbox_redis_command_duration_seconds_count', { command: 'sandboxSync' }) > 0, `replica ${i + 1}: the partners' rounds (script sandboxSync) timed`)
    t.ok(total(samples, 'sandbox_redis_round_wait_seconds_count') > 0, `replica ${i + 1}: requests waited for their rounds`)
    t.ok(total(samples, 'sandbox_redis_partners_held') >= 1, `replica ${i + 1}: holds partner-a`)
    t.same([total(samples, 'sandbox_partners', { registered: 'false' }), total(samples, 'sandbox_partners', { registered: 'true' })], [2, 0], `replica ${i + 1}: the sandbox's partners (the same on each: max(), not sum())`)
  }

  await t.test('an advice code that appears is counted once, by the replica that commits it, whichever replicas saw the requests', async (t) => {
    // partner-b: its advice is its own (partner-a's calls above made it no finding of this code yet)
    const tok = await token(lb.base, 'partner-b')
    for (let i = 0; i < 4; i++) t.equal((await call(lb.base, tok, 'GET', '/4.0/api/banks', undefined, '2001')).status, 200)
    let codes: string[] = []
    for (let i = 0; i < 100 && !codes.includes('DEPRECATED_VERSION'); i++) {
      const advice = await call(replicas[i % 2].base, tok, 'GET', '/__sandbox/advice', undefined, '2001')
      codes = (advice.json as { findings: Array<{ code: string }> }).findings.map((f) => f.code)
      if (!codes.includes('DEPRECATED_VERSION')) await sleep(50)
    }
    t.ok(codes.includes('DEPRECATED_VERSION'), 'the finding is there')
    for (const r of replicas) await call(r.base, tok, 'GET', '/__sandbox/advice', undefined, '2001')
    const all = await scrapeAll(replicas)
    t.equal(sum(all, 'sandbox_advice_findings_total', { code: 'DEPRECATED_VERSION' }) - sum(before, 'sandbox_advice_findings_total', { code: 'DEPRECATED_VERSION' }), 1, 'sum() over the replicas: once')
  })

  await t.test('Redis down: sandbox_redis_up 0 and sandbox_ready 0 on every replica, errors counted; back when Redis is', async (t) => {
    await redis.stop()
    const until = async (check: (all: MetricSample[][]) => boolean): Promise<MetricSample[][]> => {
      for (let i = 0; i < 300; i++) {
        const all = await scrapeAll(replicas)
        if (check(all)) return all
        await sleep(100)
      }
      return await scrapeAll(replicas)
    }
    const down = await until((all) => all.every((s) => total(s, 'sandbox_redis_up') === 0 && total(s, 'sandbox_ready') === 0))
    t.same(down.map((s) => [total(s, 'sandbox_redis_up'), total(s, 'sandbox_ready')]), [[0, 0], [0, 0]], 'both replicas say so')
    t.equal((await fetch(`${managementOf(replicas[0])}/ready`)).status, 503, '/ready on the management port too')
    t.equal((await call(lb.base, toks[0], 'GET', '/api/banks')).status, 503, 'a request answers 503')
    const failed = await scrapeAll(replicas)
    t.ok(sum(failed, 'sandbox_redis_errors_total') > 0, 'failed commands counted')
    t.equal(sum(failed, 'http_server_request_duration_seconds_count', { status_code: '503', injected: 'false', api: 'bank' }), 1, 'a 503 that was not injected: what the availability SLO counts')

    await redis.start()
    const back = await until((all) => all.every((s) => total(s, 'sandbox_redis_up') === 1 && total(s, 'sandbox_ready') === 1))
    t.same(back.map((s) => [total(s, 'sandbox_redis_up'), total(s, 'sandbox_ready')]), [[1, 1], [1, 1]], 'up and ready again')
  })
})
