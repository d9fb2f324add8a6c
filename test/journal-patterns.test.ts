import t from 'tap'
import { MAX_STARS } from '../src/path-patterns.js'
import { api, build } from './helper.js'
import { clientToken, ensureBuilt, kill, startCli } from './built.js'

/*
 * Issue 50, "one partner request stops every partner": the journal filter turned a partner's pattern into a
 * regular expression, and `/**a**a**a**a**a**a**a**a**a**a**a**a**b` over the journal of a long path held the
 * event loop for good (no /health, no SIGTERM). Tried for real: the built sandbox as a child process, its
 * journal filled with the longest paths a partner's request can have, several pathological filters in flight,
 * /health asked meanwhile over HTTP. Then the patterns a partner may not send.
 */

// the router takes path segments of up to 8,192 characters (maxParamLength; longer ones are a 414, journaled
// nowhere), and Node's 16 KiB head must hold the request line and the token: two segments of 7,000 are about
// the longest a partner's request can have (14,030 characters)
const SEGMENT = 'a'.repeat(7000)
const LONG_PATH = `/api/customers/${SEGMENT}/beneficiaries/${SEGMENT}`
// enough for today's main to never answer (one is), few enough that the filters take the linear matcher
// milliseconds: the probes measure /health beside them, not a machine busy with them
const ENTRIES = 40
const PROBES = 5
// how long a probe may take: the issue's figure
const HEALTH_MS = 100
// a probe that waits this long has its answer counted as this long (today's main never answers)
const PROBE_GIVE_UP_MS = 1000

const FILTERS = [
  { path: '/**a**a**a**a**a**a**a**a**a**a**a**a**b', total: 0 },
  { path: '/**a*a*a*a*a*a*a*a*b**', total: 0 },
  { path: '/api/customers/*/beneficiaries/*', total: ENTRIES }
]

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

t.test('while pathological filters run over a journal of the longest paths, /health answers within 100 ms', async (t) => {
  ensureBuilt()
  const sandbox = await startCli({ LOG_LEVEL: 'warn', SANDBOX_JOURNAL_SIZE: '10000', SANDBOX_MAX_EVENT_LOOP_DELAY: '60000' })
  t.teardown(async () => { await kill(sandbox.child) })
  const base = `http://127.0.0.1:${sandbox.port}`
  const headers = { authorization: `Bearer ${await clientToken(sandbox.port, 'partner-a', 'partner-a-secret')}`, 'agent-id': '1001' }

  // the journal filled: a bad customer id is a 400, journaled like any answer
  for (let i = 0; i < ENTRIES; i += 10) {
    const statuses = await Promise.all(Array.from({ length: 10 }, async () => (await fetch(base + LONG_PATH, { headers })).status))
    if (statuses.some((s) => s !== 400)) throw new Error(`filling the journal: ${statuses.join(' ')}`)
  }
  // the first request of a route compiles its validators, and V8 the matcher once it runs hot: done before the
  // clock runs (on today's main this one never answers either)
  const warm = `${base}/__sandbox/requests?limit=1&path=${encodeURIComponent(FILTERS[1].path)}`
  for (let i = 0; i < 3; i++) if (!await fetch(warm, { headers, signal: AbortSignal.timeout(PROBE_GIVE_UP_MS) }).then(() => true, () => false)) break

  const probe = async (): Promise<number> => {
    const sent = performance.now()
    const ok = await fetch(`${base}/health`, { signal: AbortSignal.timeout(PROBE_GIVE_UP_MS) }).then((res) => res.ok, () => false)
    return ok ? performance.now() - sent : PROBE_GIVE_UP_MS
  }
  // for comparison: /health with nothing else to do (on today's main, already stuck in the warm-up's filter)
  const idle: number[] = []
  for (let i = 0; i < PROBES; i++) idle.push(await probe())

  const filters = FILTERS.map(async ({ path }) => {
    const res = await fetch(`${base}/__sandbox/requests?limit=1&path=${encodeURIComponent(path)}`, { headers })
    return { status: res.status, total: (await res.json() as { total: number }).total }
  })
  const inFlight = { count: filters.length }
  const answered = Promise.allSettled(filters.map(async (f) => { await f.finally(() => { inFlight.count -= 1 }) }))
  const probes: number[] = []
  const started = performance.now()
  // several probes while the filters are in flight, and a few after; today's main never answers them
  while ((inFlight.count > 0 || probes.length < PROBES) && performance.now() - started < 4 * PROBE_GIVE_UP_MS) {
    probes.push(await probe())
    await sleep(5)
  }
  t.ok(probes.length >= PROBES, `${probes.length} probes`)
  t.ok(probes.every((ms) => ms < HEALTH_MS), `every /health within ${HEALTH_MS} ms: ${probes.map((ms) => ms.toFixed(0)).join(', ')} ms (idle before: ${idle.map((ms) => ms.toFixed(0)).join(', ')} ms)`)
  t.equal(inFlight.count, 0, 'every filter answered')
  if (inFlight.count > 0) {
    await kill(sandbox.child)
    await answered
    return
  }
  t.same(await Promise.all(filters), FILTERS.map(({ total }) => ({ status: 200, total })), 'with what matches')
})

t.test('a pattern a partner may not send is a 400 that names it', async (t) => {
  const app = await build(t)
  const tooMany = '/api' + '/*'.repeat(MAX_STARS + 1)
  const cases = [
    { url: `/__sandbox/requests?path=${encodeURIComponent(tooMany)}`, message: `must have at most ${MAX_STARS} single * wildcards (** as many as wanted)` },
    { url: `/__sandbox/requests?path=${encodeURIComponent('/api/customers?x=1')}`, message: /printable ASCII without spaces, \? or #/ },
    { url: `/__sandbox/requests.har?path=${encodeURIComponent('/api/a b')}`, message: /printable ASCII/ },
    { url: '/__sandbox/requests?path=api', message: 'must start with /' },
    { url: '/__sandbox/requests/count', body: { path: '/api/caf\u00e9' }, message: /percent-encode/ },
    { url: '/__sandbox/faults', body: { match: { path: tooMany }, fault: 'status=503' }, field: 'match.path', message: /at most/ }
  ]
  for (const c of cases) {
    const res = await api(app, { url: c.url, agent: null, ...(c.body === undefined ? {} : { method: 'POST', body: c.body }) })
    t.equal(res.statusCode, 400, `${c.url} ${JSON.stringify(c.body ?? '')}`)
    t.match(res.json().errors, [{ field: c.field ?? 'path', code: 'Pattern', defaultMessage: c.message }], 'names the field and the rule')
  }
  const fine = await api(app, { url: `/__sandbox/requests?path=${encodeURIComponent('/api' + '/*'.repeat(MAX_STARS) + '/**')}`, agent: null })
  t.equal(fine.statusCode, 200, `${MAX_STARS} single * and a ** are fine`)
})
