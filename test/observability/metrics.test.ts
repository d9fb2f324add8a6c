import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { PARTNER_A, PARTNER_B, TOKEN_PATH, listen, type Credentials } from '../helper.js'
import { prometheusSkip, promtool, scrape, select, seriesOf, total, type MetricSample } from './scrape.js'

/*
 * Metrics over real HTTP (docs/observability.md): the sandbox on a port, its management port beside it, requests
 * as partners send them, and what GET /metrics says about them afterwards.
 */

const REQUESTS = 'http_server_request_duration_seconds_count'

interface Running { app: FastifyInstance, base: string, management: string }

async function start (t: Test, overrides: Record<string, unknown> = {}): Promise<Running> {
  const { app, base } = await listen(t, overrides)
  const management = await app.management.start()
  if (management === undefined) throw new Error('no management port')
  return { app, base, management }
}

const basic = (who: Credentials): string => `Basic ${Buffer.from(`${who.client}:${who.secret}`).toString('base64')}`

async function tokenRequest (base: string, who: Credentials, form: Record<string, string>): Promise<Response> {
  return await fetch(`${base}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { authorization: basic(who), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString()
  })
}

async function token (base: string, who: Credentials = PARTNER_A): Promise<string> {
  const res = await tokenRequest(base, who, { grant_type: 'client_credentials' })
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

/** A request as a partner sends it (agent 1001 unless told); the answer's status (0 when the connection was dropped). */
async function call (base: string, tok: string, path: string, init: { method?: string, body?: unknown, headers?: Record<string, string> } = {}): Promise<number> {
  try {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${tok}`, 'agent-id': '1001', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body)
    })
    await res.arrayBuffer()
    return res.status
  } catch {
    return 0
  }
}

const count = (samples: MetricSample[], labels: Record<string, string>): number => total(samples, REQUESTS, labels)
const CUSTOMER = '1001100000001'
const MESSAGE = { message: 'HELLO', fromDepartment: 'IT', fromPerson: 'CI' }

t.test('the management port serves /metrics, /health and /ready; the main port never serves /metrics', async (t) => {
  const { base, management } = await start(t)
  t.not(new URL(management).port, new URL(base).port, 'a port of its own')
  t.equal((await fetch(`${base}/metrics`)).status, 404, 'the main port: partners reach it, and metrics name partners')
  const health = await fetch(`${management}/health`)
  t.same([health.status, await health.json()], [200, { status: 'UP' }], 'liveness')
  const ready = await fetch(`${management}/ready`)
  t.same([ready.status, await ready.json()], [200, { status: 'UP' }], 'readiness, as the main port answers it')
  const { contentType, samples } = await scrape(management)
  t.equal(contentType, 'text/plain; version=0.0.4; charset=utf-8', "Prometheus' text format by default")
  t.equal(total(samples, 'sandbox_ready'), 1, 'sandbox_ready says what /ready says')
  t.ok(total(samples, 'process_resident_memory_bytes') > 0, "Node's process metrics")
  t.ok(select(samples, 'nodejs_heap_size_used_bytes').length === 1 && select(samples, 'nodejs_eventloop_lag_p99_seconds').length === 1, 'heap and event-loop lag')
  t.ok(total(samples, 'sandbox_memory_limit_bytes') > 0, 'the memory limit the memory alert compares with')
  t.same(select(samples, 'sandbox_partners').map((s) => [s.labels.registered, s.value]), [['true', 0], ['false', 2]], "the default scenario's two partners")

  const unknown = await fetch(`${management}/nope`)
  t.equal(unknown.status, 404, 'anything else is a 404')
  t.match(await unknown.json(), { status: 404, error: 'Not Found', path: '/nope' }, 'in the error shape of every 4xx')
  const post = await fetch(`${management}/metrics`, { method: 'POST' })
  t.same([post.status, post.headers.get('allow')], [405, 'GET, HEAD'], 'read-only')
})

t.test('the exposition passes promtool check metrics; OpenMetrics is served when asked for and leaves the 0.0.4 names alone', { skip: prometheusSkip() }, async (t) => {
  const { base, management } = await start(t, { dataDir: undefined, metricsPartners: 1 })
  const tok = await token(base)
  await call(base, tok, '/api/banks')
  await call(base, tok, '/api/banks', { headers: { 'sandbox-fault': 'status=503' } })
  const { text } = await scrape(management)
  const checked = await promtool(['check', 'metrics'], text)
  t.same(checked, { code: 0, output: '' }, 'promtool check metrics: no problem at all')

  const om = await scrape(management, 'application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5')
  t.equal(om.contentType, 'application/openmetrics-text; version=1.0.0; charset=utf-8', 'OpenMetrics when asked for')
  t.ok(om.text.endsWith('# EOF\n'), 'ended as OpenMetrics ends')
  t.match(om.text, /^# TYPE sandbox_tokens_issued counter$/m, "a counter's family without _total")
  t.match(om.text, /^sandbox_tokens_issued_total\{grant_type="client_credentials"\} 1$/m, 'its samples with _total')
  const again = await scrape(management)
  t.match(again.text, /^# TYPE sandbox_tokens_issued_total counter$/m, 'the text format afterwards still names counters with _total')
  t.match(again.text, /^# TYPE process_cpu_seconds_total counter$/m, "prom-client's own counters too")
  t.same(await promtool(['check', 'metrics'], again.text), { code: 0, output: '' }, 'and passes promtool again')
  t.notOk(/^(nodejs_active_handles_total|nodejs_active_requests_total|nodejs_active_resources_total) /m.test(again.text), 'no gauge named *_total (promtool refuses them)')
})

t.test('every request is counted once by method, route template, status, api, and whether the sandbox injected its answer', async (t) => {
  const { base, management } = await start(t)
  const tok = await token(base)
  const before = (await scrape(management)).samples
  t.equal(count(before, {}), 1, 'only the token request so far')

  t.equal(await call(base, tok, '/api/banks?page=0&size=10'), 200)
  t.equal(await call(base, tok, '/4.0/api/customers/1001199999999'), 404, 'a versioned path, an id that does not exist')
  t.equal(await call(base, tok, `/api/customers/${CUSTOMER}/messages`, { body: MESSAGE }), 200)
  t.equal(await call(base, tok, '/no/such/path'), 404)
  t.equal(await call(base, tok, '/api/no-such-resource'), 404)
  t.equal((await fetch(`${base}/auth/realms/sandbox/.well-known/openid-configuration`)).status, 200)
  t.equal((await fetch(`${base}/auth/realms/sandbox/no-such-endpoint`)).status, 404)
  t.equal(await call(base, tok, '/__sandbox/state'), 200)
  t.equal((await fetch(`${base}/console`)).status, 200)
  t.equal((await fetch(`${base}/api/docs/apidocs/openapi.json`)).status, 200)
  t.equal((await fetch(`${base}/health`)).status, 200)

  // faults the sandbox injects on purpose, from each source
  t.equal(await call(base, tok, '/api/banks', { headers: { 'sandbox-fault': 'status=503' } }), 503, 'Sandbox-Fault')
  t.equal(await call(base, tok, '/api/banks', { headers: { prefer: 'code=429' } }), 429, 'Prefer')
  t.equal(await call(base, tok, '/__sandbox/faults', { body: { match: { method: 'GET', path: '/api/investment-types' }, fault: 'latency=20', times: 1 } }), 200)
  t.equal(await call(base, tok, '/api/investment-types'), 200, 'a fault rule delays a real answer')
  t.equal(await call(base, tok, `/api/customers/${CUSTOMER}/messages`, { body: { ...MESSAGE, message: 'SANDBOX-AFTER-502' } }), 502, 'a magic value: created, then 502')
  t.equal(await call(base, tok, '/api/banks', { headers: { 'sandbox-fault': 'reset' } }), 0, 'the connection dropped')
  t.equal((await tokenRequest(base, PARTNER_A, { grant_type: 'client_credentials' }).then(async (r) => r.status)), 200)

  const { samples } = await scrape(management)
  const bank = { api: 'bank', injected: 'false' }
  t.equal(count(samples, { ...bank, method: 'GET', route: '/api/banks', status_code: '200' }), 1, 'GET /api/banks 200')
  t.equal(count(samples, { ...bank, method: 'GET', route: '/api/customers/{customerId}', status_code: '404' }), 1, 'the route template, whatever the id and the version')
  t.equal(count(samples, { ...bank, method: 'POST', route: '/api/customers/{customerId}/messages', status_code: '200' }), 1)
  t.equal(count(samples, { method: 'GET', route: 'unmatched', status_code: '404', api: 'other' }), 1, 'an unknown path: the one unmatched route')
  t.equal(count(samples, { method: 'GET', route: 'unmatched', status_code: '404', api: 'bank' }), 1, 'under /api: unmatched, counted for the bank API')
  t.equal(count(samples, { api: 'identity', route: '/auth/realms/sandbox/.well-known/openid-configuration' }), 1, "the identity provider's routes by their template")
  t.equal(count(samples, { api: 'identity', route: 'unmatched', status_code: '404' }), 1, 'its unknown paths unmatched')
  t.equal(count(samples, { api: 'identity', method: 'POST', route: TOKEN_PATH, status_code: '200', injected: 'false' }), 2, 'the token endpoint')
  t.equal(count(samples, { api: 'control', route: '/__sandbox/state', status_code: '200' }), 1, 'the control API')
  t.equal(count(samples, { api: 'console', route: '/console' }), 1, 'the console')
  t.equal(count(samples, { api: 'docs', route: '/api/docs/apidocs/openapi.json' }), 1, 'the documents')
  t.equal(count(samples, { api: 'other', route: '/health' }), 1, 'health')
  t.notOk(samples.some((s) => s.name === REQUESTS && /\d{6}/.test(s.labels.route)), 'no raw path (no id) in any route label')

  const injected = { api: 'bank', injected: 'true' }
  t.equal(count(samples, { ...injected, route: '/api/banks', status_code: '503' }), 1, 'an injected 503')
  t.equal(count(samples, { ...injected, route: '/api/banks', status_code: '429' }), 1, 'an injected 429')
  t.equal(count(samples, { ...injected, route: '/api/investment-types', status_code: '200' }), 1, 'a real status delayed on purpose is injected')
  t.equal(count(samples, { ...injected, route: '/api/customers/{customerId}/messages', status_code: '502' }), 1, 'after, status=502')
  t.equal(count(samples, { ...injected, route: '/api/banks', status_code: '0' }), 1, 'a dropped connection: status 0')
  t.equal(count(samples, { injected: 'false', status_code: '503' }) + count(samples, { injected: 'false', status_code: '502' }), 0, 'no 5xx that was not injected')

  const faults = (source: string, kind: string): number => total(samples, 'sandbox_faults_injected_total', { source, kind })
  t.same([faults('header', 'status'), faults('prefer', 'status'), faults('rule', 'latency'), faults('magic', 'after'), faults('header', 'reset')], [1, 1, 1, 1, 1], 'each fault once, by source and kind')
  t.equal(total(samples, 'sandbox_faults_injected_total'), 5, 'and nothing else')
  t.equal(select(samples, 'sandbox_faults_injected_total').length, 20, 'every source and kind shown from the start (at 0)')
  t.equal(total(samples, 'http_server_active_requests'), 0, 'nothing in flight once everything was answered or dropped')
  t.equal(count(samples, {}) - count(before, {}), 18, 'one count per request')
})

t.test('tokens issued and refused by grant type and OAuth error code; lockouts and rate limits', async (t) => {
  const { base, management } = await start(t, { lockoutFailures: 2, lockoutSeconds: 60, rateLimit: 2, tokenRateLimit: 3 })
  t.equal((await tokenRequest(base, PARTNER_A, { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'openid' })).status, 200)
  const refresh = await tokenRequest(base, PARTNER_A, { grant_type: 'client_credentials' })
  t.equal(refresh.status, 200)
  t.equal((await tokenRequest(base, PARTNER_A, { grant_type: 'password', username: 'alice', password: 'wrong' })).status, 401, 'a wrong password')
  t.equal((await tokenRequest(base, PARTNER_B, { grant_type: 'no-such-grant' })).status, 400, 'an unknown grant type')
  // (before partner-b is locked out below: a lockout refuses even its right secret)
  const tok = await token(base, PARTNER_B)
  const wrong = { client: 'partner-b', secret: 'not-its-secret' }
  t.equal((await tokenRequest(base, wrong, { grant_type: 'client_credentials' })).status, 401)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  t.equal((await tokenRequest(base, wrong, { grant_type: 'client_credentials' })).status, 401, 'the second wrong secret in a row: locked out')

  // at once, after a pause: a new window of the limit, which the eight share (or two windows: six at most pass)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  const statuses = await Promise.all(Array.from({ length: 8 }, async () => (await tokenRequest(base, PARTNER_A, { grant_type: 'client_credentials' })).status))
  const tokenRefused = statuses.filter((s) => s === 429).length
  t.ok(tokenRefused > 0, `token requests over 3 a second refused (${statuses.join(', ')})`)
  const apiStatuses = await Promise.all(Array.from({ length: 8 }, async () => await call(base, tok, '/api/banks', { headers: { 'agent-id': '2001' } })))
  const apiRefused = apiStatuses.filter((s) => s === 429).length
  t.ok(apiRefused > 0, `API requests over 2 a second refused (${apiStatuses.join(', ')})`)

  const { samples } = await scrape(management)
  const issued = (grant: string): number => total(samples, 'sandbox_tokens_issued_total', { grant_type: grant })
  t.equal(issued('password'), 1, 'password')
  t.equal(issued('client_credentials'), 2 + statuses.filter((s) => s === 200).length, 'client credentials')
  const failed = (grant: string, error: string): number => total(samples, 'sandbox_token_errors_total', { grant_type: grant, error })
  t.equal(failed('password', 'invalid_grant'), 1, 'a wrong password: invalid_grant')
  t.equal(failed('other', 'unsupported_grant_type'), 1, 'an unknown grant type is counted as other')
  t.equal(failed('client_credentials', 'invalid_client'), 2, 'wrong secrets: invalid_client')
  t.equal(total(samples, 'sandbox_lockouts_total'), 1, 'one lockout')
  t.equal(total(samples, 'sandbox_rate_limited_total', { limit: 'token' }), tokenRefused, 'token requests refused by the limit')
  t.equal(total(samples, 'sandbox_rate_limited_total', { limit: 'api' }), apiRefused, 'API requests refused by the limit')
  t.equal(count(samples, { status_code: '429', injected: 'false' }), tokenRefused + apiRefused, 'their 429s are not injected')
})

t.test('bounded: 10,000 requests to random ids and unknown paths add no series', async (t) => {
  const { base, management } = await start(t, { metricsPartners: 1 })
  const tok = await token(base)
  const random = (): string => String(Math.floor(Math.random() * 1e12))
  const paths = (): string[] => [`/api/customers/1001${random()}`, `/api/accounts/${random()}`, `/x/${random()}/${random()}`, `/api/${random()}`, `/auth/realms/sandbox/${random()}`]
  // every route and status once: the series exist from here on
  for (const path of paths()) await call(base, tok, path)
  // the sandbox's own metrics (Node's, such as a GC kind seen for the first time, do not follow requests)
  const ours = (samples: MetricSample[]): MetricSample[] => samples.filter((s) => s.name.startsWith('http_') || s.name.startsWith('sandbox_'))
  const seen = seriesOf(ours((await scrape(management)).samples))
  let sent = 0
  const worker = async (): Promise<void> => {
    while (sent < 10_000) {
      const batch = paths()
      sent += batch.length
      for (const path of batch) await call(base, tok, path)
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  const after = (await scrape(management)).samples
  const added = [...seriesOf(ours(after))].filter((s) => !seen.has(s))
  t.same(added, [], `${sent} requests later, no series added`)
  t.ok(count(after, { route: '/api/customers/{customerId}' }) >= 2000, 'they were counted')
})

t.test('per partner only when asked for: SANDBOX_METRICS_PARTNERS=1, the first SANDBOX_METRICS_PARTNERS_MAX partners by name, the others as other', async (t) => {
  const off = await start(t)
  await call(off.base, await token(off.base), '/api/banks')
  t.same(select((await scrape(off.management)).samples, 'sandbox_partner_requests_total'), [], 'off by default')

  const { base, management } = await start(t, { metricsPartners: 1, metricsPartnersMax: 1 })
  const a = await token(base, PARTNER_A)
  const b = await token(base, PARTNER_B)
  await call(base, a, '/api/banks')
  await call(base, a, '/api/customers/1001199999999')
  await call(base, b, '/api/banks', { headers: { 'agent-id': '2001' } })
  await call(base, b, '/__sandbox/state')
  const { samples } = await scrape(management)
  const partner = (labels: Record<string, string>): number => total(samples, 'sandbox_partner_requests_total', labels)
  t.equal(partner({ partner: 'partner-a', api: 'bank', status_class: '2xx' }), 1)
  t.equal(partner({ partner: 'partner-a', api: 'bank', status_class: '4xx' }), 1)
  t.equal(partner({ partner: 'partner-a', api: 'identity', status_class: '2xx' }), 1, 'its token request')
  t.equal(partner({ partner: 'other', api: 'bank' }), 1, 'partner-b: beyond the first partner')
  t.equal(partner({ partner: 'other', api: 'control' }), 1)
  t.equal(partner({ partner: 'other', api: 'identity' }), 1)
  t.same([...new Set(select(samples, 'sandbox_partner_requests_total').map((s) => s.labels.partner))].sort(), ['other', 'partner-a'], 'two partner labels')
  t.equal(total(samples, 'sandbox_partners_active'), 2, 'both partners active')
})

t.test('with a data dir, each batch committed to it is timed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-metrics-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { base, management } = await start(t, { dataDir: dir })
  const before = total((await scrape(management)).samples, 'sandbox_datadir_write_duration_seconds_count')
  const tok = await token(base)
  for (let i = 0; i < 3; i++) t.equal(await call(base, tok, `/api/customers/${CUSTOMER}/messages`, { body: MESSAGE }), 200)
  const { samples } = await scrape(management)
  t.equal(total(samples, 'sandbox_datadir_write_duration_seconds_count') - before, 3, 'one batch per create, one after another')
  t.ok(total(samples, 'sandbox_datadir_write_duration_seconds_sum') > 0, 'which took some time')
  t.equal(total(samples, 'sandbox_datadir_write_errors_total'), 0, 'and none failed')
  t.same(select(samples, 'sandbox_redis_up'), [], 'no Redis metrics without Redis')
})

t.test('an advice code is counted when it appears in a partner\'s findings, again only after the advice was cleared', async (t) => {
  const { base, management } = await start(t)
  const tok = await token(base)
  const deprecated = async (): Promise<number> => total((await scrape(management)).samples, 'sandbox_advice_findings_total', { code: 'DEPRECATED_VERSION' })
  t.equal(await deprecated(), 0)
  for (let i = 0; i < 3; i++) await call(base, tok, '/4.0/api/banks')
  t.equal(await deprecated(), 1, 'three calls of a deprecated version: the code appeared once')
  t.equal(await call(base, tok, '/__sandbox/advice', { method: 'DELETE' }), 204)
  await call(base, tok, '/4.0/api/banks')
  t.equal(await deprecated(), 2, 'cleared, then seen again')
})

t.test('a request in flight is counted as active until it ends, answered, dropped or abandoned', async (t) => {
  const { base, management } = await start(t)
  const tok = await token(base)
  const active = async (): Promise<number> => total((await scrape(management)).samples, 'http_server_active_requests')
  /** Scrapes until the gauge reads `want` (a bounded number of times; the request's end travels to the server first). */
  const reads = async (want: number): Promise<number> => {
    let value = await active()
    for (let i = 0; i < 300 && value !== want; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      value = await active()
    }
    return value
  }
  t.equal(await reads(0), 0, 'nothing in flight at first')
  // held by the timeout fault until the client gives up
  const abandoned = new AbortController()
  const held = fetch(`${base}/api/banks`, { headers: { authorization: `Bearer ${tok}`, 'agent-id': '1001', 'sandbox-fault': 'timeout' }, signal: abandoned.signal }).catch(() => 'aborted')
  t.equal(await reads(1), 1, 'the held request, while it is held')
  abandoned.abort()
  t.equal(await held, 'aborted', 'the client gives up')
  t.equal(await reads(0), 0, 'and it is no longer counted')
  t.equal(await call(base, tok, '/api/banks', { headers: { 'sandbox-fault': 'latency=50' } }), 200)
  t.equal(await call(base, tok, '/api/banks', { headers: { 'sandbox-fault': 'reset' } }), 0)
  t.equal(await reads(0), 0, 'answered or dropped: none stays counted')
})

t.test('SANDBOX_MANAGEMENT_PORT=off: no management port, and nothing counted', async (t) => {
  const { app, base } = await listen(t, { managementPort: 'off' })
  t.equal(await app.management.start(), undefined, 'no management port')
  t.equal(app.metrics.on, false, 'the rooms count into nothing')
  t.equal((await fetch(`${base}/ready`)).status, 200, 'the main port serves /health and /ready as before')
  t.equal((await fetch(`${base}/metrics`)).status, 404, 'and no metrics')
})
