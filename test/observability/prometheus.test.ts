import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { parse } from 'yaml'
import { ROOT } from '../built.js'
import { PARTNER_A, PARTNER_B, SIGNING_KEY, TOKEN_PATH, freePort, listen, type Credentials } from '../helper.js'
import { startRedis } from '../replicas/harness.js'
import { prometheusSkip } from './scrape.js'

/*
 * The recording rules and the Grafana dashboard against a real Prometheus (Debian's prometheus): three sandboxes
 * (in memory, with a data dir, with Redis) scraped every second under a short load of every kind (reads,
 * creates, faults of every source, token errors, a lockout, rate limits, a deprecated version), then every
 * recording rule and every query of every dashboard panel asked over Prometheus' HTTP API: each must return
 * data, not only parse.
 */

const PROMETHEUS = join(ROOT, 'deploy', 'prometheus')
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'banking-sandbox.json')
const JOB = 'banking-agent-sandbox'
const redisMissing = spawnSync('sh', ['-c', 'command -v redis-server']).status === 0 ? false : 'needs redis-server (Debian: apt-get install redis-server)'
const skip = prometheusSkip() || redisMissing

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

interface Target { base: string, management: string }

async function sandbox (t: Test, overrides: Record<string, unknown>): Promise<Target> {
  const { app, base } = await listen(t, { metricsPartners: 1, lockoutFailures: 2, lockoutSeconds: 60, rateLimit: 20, ...overrides })
  const management = await app.management.start()
  return { base, management: management! }
}

async function startPrometheus (t: Test, targets: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-prometheus-'))
  const port = await freePort()
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify({
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    rule_files: [join(PROMETHEUS, 'recording-rules.yaml'), join(PROMETHEUS, 'alerts.yaml')],
    scrape_configs: [{ job_name: JOB, static_configs: [{ targets: targets.map((m) => new URL(m).host) }] }]
  }))
  const child: ChildProcess = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr!.on('data', (d: Buffer) => { log += d.toString() })
  t.teardown(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}):\n${log}`)
    if (await fetch(`${url}/-/ready`).then((r) => r.status === 200, () => false)) return url
    if (i > 600) throw new Error(`prometheus did not get ready:\n${log}`)
    await sleep(50)
  }
}

async function query (prometheus: string, expr: string): Promise<unknown[]> {
  const res = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`)
  const body = await res.json() as { status: string, error?: string, data?: { result: unknown[] } }
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error ?? res.status}`)
  return body.data!.result
}

/** The query's result once it has one, asked again while it is empty (a busy machine scrapes and evaluates late); bounded. */
async function eventually (prometheus: string, expr: string): Promise<unknown[]> {
  let result = await query(prometheus, expr)
  for (let i = 0; i < 60 && result.length === 0; i++) {
    await sleep(500)
    result = await query(prometheus, expr)
  }
  return result
}

const basic = (who: Credentials): string => `Basic ${Buffer.from(`${who.client}:${who.secret}`).toString('base64')}`

/** One round of load on a sandbox: what every panel shows something of. */
async function load (s: Target, round: number): Promise<void> {
  const send = async (path: string, init: RequestInit = {}): Promise<void> => {
    await fetch(`${s.base}${path}`, init).then(async (r) => { await r.arrayBuffer() }, () => {})
  }
  const tokenRes = await fetch(`${s.base}${TOKEN_PATH}`, { method: 'POST', headers: { authorization: basic(PARTNER_A), 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
  const { access_token: tok } = await tokenRes.json() as { access_token: string }
  const headers = { authorization: `Bearer ${tok}`, 'agent-id': '1001' }
  const json = { ...headers, 'content-type': 'application/json' }
  const message = (text: string): string => JSON.stringify({ message: text, fromDepartment: 'IT', fromPerson: 'CI' })
  // a wrong secret now and then (partner-b gets locked out: its tokens are not needed)
  await send(TOKEN_PATH, { method: 'POST', headers: { authorization: basic({ ...PARTNER_B, secret: 'wrong' }), 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
  for (let i = 0; i < 10; i++) await send('/api/banks?page=0&size=10', { headers })
  await send('/api/customers/1001100000001/messages', { method: 'POST', headers: json, body: message(`HELLO ${round}`) })
  await send('/4.0/api/banks', { headers })
  await send(`/api/customers/1001${String(round).padStart(9, '0')}`, { headers })
  await send(`/no/such/path/${round}`)
  await send('/api/banks', { headers: { ...headers, 'sandbox-fault': 'status=503' } })
  await send('/api/banks', { headers: { ...headers, prefer: 'code=500' } })
  await send('/api/banks', { headers: { ...headers, 'sandbox-fault': 'reset' } })
  await send('/api/customers/1001100000001/messages', { method: 'POST', headers: json, body: message('SANDBOX-FAULT-503') })
  await send('/__sandbox/faults', { method: 'POST', headers: json, body: JSON.stringify({ match: { method: 'GET', path: '/api/investment-types' }, fault: 'latency=5', times: 1 }) })
  await send('/api/investment-types', { headers })
  // a burst over SANDBOX_RATE_LIMIT (20 a second)
  await Promise.all(Array.from({ length: 25 }, async () => await send('/api/products', { headers })))
}

t.test('every recording rule and every dashboard query returns data from a real Prometheus scraping sandboxes under load', { skip }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-metrics-data-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const redis = await startRedis(t)
  const sandboxes = [
    await sandbox(t, {}),
    await sandbox(t, { dataDir: dir }),
    await sandbox(t, { redisUrl: redis.url, signingKey: SIGNING_KEY })
  ]
  const prometheus = await startPrometheus(t, sandboxes.map((s) => s.management))

  const until = Date.now() + 8000
  for (let round = 0; Date.now() < until; round++) await Promise.all(sandboxes.map(async (s) => await load(s, round)))
  // a few more scrapes and rule evaluations after the last requests
  await sleep(3000)

  // (a scrape may time out on a busy machine now and then: each target scraped and parsed is what matters)
  const scraped = await eventually(prometheus, `max_over_time(up{job="${JOB}"}[5m]) == 1`)
  t.equal(scraped.length, sandboxes.length, 'every management port scraped and parsed (as OpenMetrics: Prometheus asks for it)')

  const rules = ['recording-rules.yaml', 'alerts.yaml'].flatMap((f) => (parse(readFileSync(join(PROMETHEUS, f), 'utf8')) as { groups: Array<{ rules: Array<{ record?: string, alert?: string, expr: string }> }> }).groups.flatMap((g) => g.rules))
  const records = rules.filter((r) => r.record !== undefined).map((r) => r.record!)
  t.ok(records.length >= 10, `${records.length} recording rules`)
  for (const record of records) {
    const result = await eventually(prometheus, record)
    t.ok(result.length > 0, `recording rule ${record}: ${JSON.stringify(result).slice(0, 200)}`)
  }
  // the alerts' expressions run against this data (whether one fires depends on how busy the machine is: promtool's
  // unit tests, tests/*.yaml, say when each fires)
  for (const rule of rules.filter((r) => r.alert !== undefined)) {
    t.ok(Array.isArray(await query(prometheus, rule.expr)), `alert ${rule.alert!}: its expression runs`)
  }

  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ title: string, type: string, targets?: Array<{ expr: string }> }> }
  const grafana = (expr: string): string => expr.replaceAll('$job', '.*').replaceAll('$instance', '.*').replaceAll('$__rate_interval', '30s').replaceAll('$__range', '5m')
  let queries = 0
  for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
    for (const target of panel.targets ?? []) {
      queries++
      const result = await eventually(prometheus, grafana(target.expr))
      t.ok(result.length > 0, `panel "${panel.title}": ${target.expr}`)
    }
  }
  t.ok(queries >= 30, `${queries} dashboard queries`)
})
