import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { CLI, ROOT, clientToken, ensureBuilt, startCli, type Started } from '../built.js'
import { BENEFICIARY_REQUEST } from '../helper.js'
import { startReceiver, type ReceivedSpan, type Receiver } from './otlp-receiver.js'

/*
 * Traces over real HTTP (issue 45): the built sandbox started as the command, with the standard OTEL_*
 * variables pointing at an OTLP receiver of the test's own; spans checked as a collector receives them.
 */

const SERVER = 2
const ERROR = 2
const UNSET = 0
// a partner's own trace, as its HTTP client would send it
const PARTNER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARTNER_SPAN = '00f067aa0ba902b7'
const TRACEPARENT = `00-${PARTNER_TRACE}-${PARTNER_SPAN}-01`
// spans are exported in batches: every 50 ms here, so that the test waits little for them
const FAST_EXPORT = { OTEL_BSP_SCHEDULE_DELAY: '50' }
// a module loaded before the command that reports every file it loads (as test/bundle.test.ts does)
const REPORT_LOADS = 'data:text/javascript,' + encodeURIComponent(
  "import m from 'node:module'; m.registerHooks({ load (url, context, next) { if (url.startsWith('file:')) process.stderr.write('LOADED ' + url + '\\n'); return next(url, context) } })"
)

interface Sandbox { base: string, server: Started, token: string }

const DIST = `${pathToFileURL(join(ROOT, 'dist')).href}/`
const loaded = (s: Sandbox): string[] => [...s.server.stderr().matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1].startsWith(DIST) ? m[1].slice(DIST.length) : m[1])

async function sandbox (t: Test, env: NodeJS.ProcessEnv, nodeOptions: string[] = []): Promise<Sandbox> {
  ensureBuilt()
  // the variables of this test process (a developer's OTEL_* among them) are not the sandbox's
  const clean = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('OTEL_')).map((k) => [k, undefined]))
  // (a busy test machine must not turn requests into 503s: these tests are about what is traced)
  const server = await startCli({ ...clean, LOG_LEVEL: 'info', SANDBOX_MAX_EVENT_LOOP_DELAY: '60000', ...env }, undefined, nodeOptions)
  t.teardown(() => { server.child.kill('SIGKILL') })
  return { base: `http://127.0.0.1:${server.port}`, server, token: await clientToken(server.port, 'partner-a', 'partner-a-secret') }
}

async function get (s: Sandbox, path: string, headers: Record<string, string> = {}): Promise<{ status: number, json: any, requestId: string }> {
  const res = await fetch(`${s.base}${path}`, { headers: { authorization: `Bearer ${s.token}`, 'agent-id': '1001', ...headers } })
  const text = await res.text()
  return { status: res.status, json: text === '' ? null : JSON.parse(text), requestId: res.headers.get('x-request-id') ?? '' }
}

/** The graceful stop (SIGTERM): the spans still batched are exported before the process exits. */
async function stop (s: Sandbox): Promise<void> {
  const exited = new Promise((resolve) => s.server.child.once('exit', resolve))
  s.server.child.kill('SIGTERM')
  await exited
}

/** The journal entry of a request, by its X-Request-Id. */
async function journalEntry (s: Sandbox, requestId: string): Promise<{ traceId: string | null, fault: string | null }> {
  return (await get(s, `/__sandbox/requests/${requestId}`)).json
}

/** The request line of a request, once written (the log is written in batches, every 50 ms). */
async function logLine (s: Sandbox, requestId: string): Promise<Record<string, unknown>> {
  const stdout = s.server.child.stdout!
  for (let waits = 0; ; waits++) {
    const line = s.server.stdout().split('\n').find((l) => l.includes(`"reqId":"${requestId}"`))
    if (line !== undefined) return JSON.parse(line) as Record<string, unknown>
    if (waits === 100) throw new Error(`no log line of request ${requestId}`)
    await new Promise((resolve) => { stdout.once('data', resolve); setTimeout(resolve, 100) })
  }
}

const serverSpanOf = (receiver: Receiver, urlPath: string): Promise<ReceivedSpan> =>
  receiver.waitFor((s) => s.kind === SERVER && s.attributes['url.path'] === urlPath, `for ${urlPath}`)

t.test('with OTEL_EXPORTER_OTLP_ENDPOINT, each request is a server span exported over OTLP/HTTP protobuf, with the child spans of its work', async (t) => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-traces-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const s = await sandbox(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...FAST_EXPORT, SANDBOX_DATA_DIR: dataDir })

  // the token request of sandbox(): the identity provider's answer, and the token's signature inside it
  const tokenSpan = await serverSpanOf(receiver, '/auth/realms/sandbox/protocol/openid-connect/token')
  t.equal(tokenSpan.name, 'POST /auth/realms/sandbox/protocol/openid-connect/token', 'named by method and route')
  t.match(tokenSpan.attributes, { 'http.route': '/auth/realms/sandbox/protocol/openid-connect/token', 'http.request.method': 'POST', 'http.response.status_code': 200, 'sandbox.partner': 'partner-a' })
  t.match(tokenSpan.resource, { 'service.name': 'banking-sandbox', 'service.version': String }, 'the resource: the default service name')
  const signature = await receiver.waitFor((x) => x.name === 'sandbox.token.sign', 'of the token signature')
  t.equal(signature.parentSpanId, tokenSpan.spanId, "the signature is a child of the token request's span")
  t.equal(signature.traceId, tokenSpan.traceId)
  t.equal(signature.attributes['sandbox.partner'], 'partner-a')

  // a partner's traceparent is continued
  const traced = await get(s, '/api/banks', { traceparent: TRACEPARENT })
  t.equal(traced.status, 200)
  const banks = await serverSpanOf(receiver, '/api/banks')
  t.equal(banks.traceId, PARTNER_TRACE, "the span is in the partner's trace")
  t.equal(banks.parentSpanId, PARTNER_SPAN, "a child of the partner's span")
  t.equal(banks.name, 'GET /api/banks')
  t.match(banks.attributes, { 'http.route': '/api/banks', 'http.request.method': 'GET', 'http.response.status_code': 200, 'sandbox.partner': 'partner-a' })
  t.notOk('sandbox.fault' in banks.attributes, 'no fault: no sandbox.fault')
  t.equal(banks.status.code, UNSET)
  t.equal((await journalEntry(s, traced.requestId)).traceId, PARTNER_TRACE, "the journal entry names the partner's trace")
  t.equal((await logLine(s, traced.requestId)).trace_id, PARTNER_TRACE, 'and so does the log line')

  // without one, the sandbox's own trace: in the journal too
  const own = await get(s, '/4.1/api/products')
  t.equal(own.status, 200)
  const products = await serverSpanOf(receiver, '/4.1/api/products')
  t.equal(products.parentSpanId, '', 'a root span')
  t.equal(products.attributes['http.route'], '/api/products', 'a versioned path has the route of its handler')
  t.equal((await journalEntry(s, own.requestId)).traceId, products.traceId, "the journal entry names the sandbox's own trace")
  t.equal((await logLine(s, own.requestId)).trace_id, products.traceId)

  // an injected fault: an error span that says which
  const faulted = await get(s, '/api/investment-types', { 'sandbox-fault': 'status=503' })
  t.equal(faulted.status, 503)
  const faultSpan = await serverSpanOf(receiver, '/api/investment-types')
  t.match(faultSpan.attributes, { 'http.response.status_code': 503, 'sandbox.fault': 'status=503; source=header', 'sandbox.partner': 'partner-a' })
  t.equal(faultSpan.status.code, ERROR, 'a 5xx is an error')
  t.equal((await journalEntry(s, faulted.requestId)).fault, 'status=503; source=header')

  // the client's mistake is not the server's: 4xx leaves the status unset
  t.equal((await get(s, '/api/customers/999999999')).status, 404)
  const missing = await serverSpanOf(receiver, '/api/customers/999999999')
  t.equal(missing.attributes['http.route'], '/api/customers/{customerId}', 'the route as the API documents write it')
  t.equal(missing.attributes['http.response.status_code'], 404)
  t.equal(missing.status.code, UNSET, 'a 404 is no error of the server span')

  // a connection dropped by a fault: an error, and no status code (none was sent)
  await t.rejects(fetch(`${s.base}/api/banks?dropped=1`, { headers: { authorization: `Bearer ${s.token}`, 'agent-id': '1001', 'sandbox-fault': 'reset' } }), 'the connection is reset')
  const dropped = await receiver.waitFor((x) => x.attributes['sandbox.fault'] === 'reset; source=header', 'of the dropped request')
  t.equal(dropped.status.code, ERROR)
  t.notOk('http.response.status_code' in dropped.attributes, 'no status code: no answer was sent')

  // a create: its wait for the data dir's batch is a child span, through the request body's parsing
  const customerId = (await get(s, '/api/customers?size=1')).json.customers[0].customerId as string
  const created = await fetch(`${s.base}/api/customers/${customerId}/beneficiaries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'agent-id': '1001', 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    body: JSON.stringify(BENEFICIARY_REQUEST)
  })
  t.equal(created.status, 200)
  const create = await serverSpanOf(receiver, `/api/customers/${customerId}/beneficiaries`)
  t.equal(create.attributes['http.route'], '/api/customers/{customerId}/beneficiaries')
  const write = await receiver.waitFor((x) => x.name === 'sandbox.data_dir.write', 'of the data dir write')
  t.equal(write.parentSpanId, create.spanId, "the write is a child of the create's span")
  t.equal(write.traceId, '0af7651916cd43dd8448eb211c80319c')
  t.equal(write.attributes['sandbox.partner'], 'partner-a')

  // load balancers' probes and the journal's live tail (a request without an end) are not traced
  t.equal((await fetch(`${s.base}/health`)).status, 200)
  const aborted = new AbortController()
  t.equal((await fetch(`${s.base}/__sandbox/requests/stream`, { headers: { authorization: `Bearer ${s.token}` }, signal: aborted.signal })).status, 200)
  aborted.abort()
  await stop(s)
  t.same(receiver.spans.filter((x) => x.attributes['url.path'] === '/health' || x.attributes['url.path'] === '/__sandbox/requests/stream'), [], 'no span for /health or the live tail')
  t.same(receiver.spans.filter((x) => x.name.startsWith('notFoundHandler') || x.name.startsWith('handler')), [], 'no span per handler or hook')
  t.equal(receiver.spans.filter((x) => x.name === 'sandbox.token.sign').length, 1, 'one signature for the one token')
  t.ok(receiver.contentTypes.every((c) => c === 'application/x-protobuf'), `http/protobuf by default (${[...new Set(receiver.contentTypes)].join(', ')})`)
})

t.test('OTEL_EXPORTER_OTLP_PROTOCOL=http/json exports JSON, to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, under OTEL_SERVICE_NAME', async (t) => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  // (the loads reported: tracing on loads the chunk of OpenTelemetry)
  const s = await sandbox(t, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'partner-a-sandbox', ...FAST_EXPORT }, [`--import=${REPORT_LOADS}`])
  t.equal((await get(s, '/api/banks', { traceparent: TRACEPARENT })).status, 200)
  const span = await serverSpanOf(receiver, '/api/banks')
  t.equal(span.traceId, PARTNER_TRACE)
  t.equal(span.parentSpanId, PARTNER_SPAN)
  t.match(span.attributes, { 'http.route': '/api/banks', 'http.response.status_code': 200, 'sandbox.partner': 'partner-a' })
  t.equal(span.resource['service.name'], 'partner-a-sandbox', 'OTEL_SERVICE_NAME names the service')
  t.ok(receiver.contentTypes.length > 0 && receiver.contentTypes.every((c) => c.startsWith('application/json')), `as JSON (${[...new Set(receiver.contentTypes)].join(', ')})`)
  t.ok(loaded(s).some((f) => /^bundle-otel-.+\.js$/.test(f)), 'the chunk of OpenTelemetry was loaded')
})

t.test('OTEL_TRACES_SAMPLER=always_off exports nothing, and the journal still names the trace a partner sent', async (t) => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const s = await sandbox(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'always_off', ...FAST_EXPORT })
  const sent = await get(s, '/api/banks', { traceparent: TRACEPARENT })
  const unsent = await get(s, '/api/banks')
  t.equal((await journalEntry(s, sent.requestId)).traceId, PARTNER_TRACE, "the partner's trace")
  t.equal((await journalEntry(s, unsent.requestId)).traceId, null, 'no trace id of an unsampled span of its own: it leads nowhere')
  t.equal((await logLine(s, sent.requestId)).trace_id, PARTNER_TRACE)
  t.notOk('trace_id' in await logLine(s, unsent.requestId), 'nor does its log line')
  await stop(s)
  t.same(receiver.spans, [], 'nothing exported, even at the stop')
})

t.test('OTEL_TRACES_SAMPLER=traceidratio samples by trace id at OTEL_TRACES_SAMPLER_ARG', async (t) => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const s = await sandbox(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5', ...FAST_EXPORT })
  // the ratio sampler compares the trace id's four 32-bit words XORed with ratio x 2^32: 1 is under half, 0xfffffffe over
  const low = '00000000000000000000000000000001'
  const high = 'ffffffff000000000000000000000001'
  for (const trace of [low, high]) t.equal((await get(s, '/api/banks', { traceparent: `00-${trace}-${PARTNER_SPAN}-01` })).status, 200)
  await stop(s)
  // (the token request of sandbox() had a random trace id: sampled or not by chance)
  t.same(receiver.spans.filter((x) => x.attributes['url.path'] === '/api/banks').map((x) => x.traceId), [low], 'only the trace under the ratio is exported')
})

t.test('with tracing off, the journal and the log line carry the trace id of a valid traceparent, and an invalid one is ignored', async (t) => {
  const s = await sandbox(t, {}, [`--import=${REPORT_LOADS}`])
  const sent = await get(s, '/api/banks', { traceparent: TRACEPARENT })
  t.equal(sent.status, 200)
  t.equal((await journalEntry(s, sent.requestId)).traceId, PARTNER_TRACE)
  t.equal((await logLine(s, sent.requestId)).trace_id, PARTNER_TRACE)
  for (const invalid of [`00-${'0'.repeat(32)}-${PARTNER_SPAN}-01`, `00-${PARTNER_TRACE.toUpperCase()}-${PARTNER_SPAN}-01`, 'garbage']) {
    const res = await get(s, '/api/banks', { traceparent: invalid })
    t.equal(res.status, 200, `"${invalid}" is no reason to refuse a request`)
    t.equal((await journalEntry(s, res.requestId)).traceId, null, 'and names no trace')
  }
  const found = await get(s, `/__sandbox/requests?traceId=${PARTNER_TRACE}`)
  t.same(found.json.requests.map((r: { requestId: string }) => r.requestId), [sent.requestId], "the journal filtered by the partner's trace id")
  t.equal((await get(s, '/__sandbox/requests?traceId=not-a-trace')).status, 400, 'a traceId filter that is no trace id is a 400')
  t.notOk(loaded(s).some((f) => /^bundle-otel-.+\.js$/.test(f) || f.includes('opentelemetry')), 'nothing of OpenTelemetry was loaded')
})

t.test('traces the sandbox cannot export stop the start with a message naming the variable', async (t) => {
  ensureBuilt()
  for (const [env, message] of [
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER = "zipkin": the sandbox exports traces over OTLP only/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL = "grpc": .*http\/protobuf or http\/json/]
  ] as const) {
    const run = spawnSync(process.execPath, [CLI], { cwd: ROOT, env: { ...process.env, PORT: '0', ...env }, encoding: 'utf8' })
    t.equal(run.status, 2, `${JSON.stringify(env)}: exit 2, as a wrong option`)
    t.match(run.stderr, message)
  }
})
