import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { Test } from 'tap'
import * as oidc from 'openid-client'
import { call, token, type Sent } from './calls.js'
import { listen } from './helper.js'

/*
 * The integration advisor (issue 29) over HTTP: each bad client, playing one mistake with tokens from the
 * sandbox's own token endpoint, sees its finding appear in GET /__sandbox/advice; a well-behaved client
 * (openid-client caching its token, retries with exponential backoff honouring Retry-After, through faults)
 * sees none. One partner, the advice cleared (DELETE) before each client, so each is judged alone.
 */

const MESSAGES = '/api/customers/1001100000001/messages'
const MESSAGE = { message: 'ADVISOR', fromDepartment: 'CI', fromPerson: 'CI' }

interface Finding { code: string, severity: string, title: string, count: number, firstSeen: string, lastSeen: string, examples: string[], advice: string, docs: string }
interface Advice { observing: boolean, requests: number, findings: Finding[] }

// the test's own token for the control API, kept (a token request is judged like any other of the partner's)
const harness = new Map<string, string>()

/** A control request with the harness's token (a new one once the partner expired it). */
async function control (base: string, method: string, path: string): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const bearer = harness.get(base) ?? await token(base)
    harness.set(base, bearer)
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${bearer}` } })
    if (res.status !== 401 || attempt > 0) return res
    harness.delete(base)
  }
}

async function advice (base: string): Promise<Advice> {
  const res = await control(base, 'GET', '/__sandbox/advice')
  if (res.status !== 200) throw new Error(`advice: ${res.status} ${await res.text()}`)
  return await res.json() as Advice
}

const codes = (a: Advice): string[] => a.findings.map((f) => f.code).sort()

async function clearAdvice (t: Test, base: string): Promise<void> {
  t.equal((await control(base, 'DELETE', '/__sandbox/advice')).status, 204, 'advice cleared')
}

/**
 * The advice once it reports code at least `count` times (at most 3 s): requests are judged as they are filed,
 * after their answer, and a refused token's request is filed later still (once its signature is checked).
 */
async function adviceWith (base: string, code: string, count = 1): Promise<Advice> {
  let a = await advice(base)
  for (let i = 0; i < 30 && !a.findings.some((f) => f.code === code && f.count >= count); i++) {
    await sleep(100)
    a = await advice(base)
  }
  return a
}

function finding (t: Test, a: Advice, code: string): Finding {
  const f = a.findings.find((x) => x.code === code)
  t.ok(f, `${code} reported`)
  if (f === undefined) throw new Error(`no ${code} in ${JSON.stringify(a)}`)
  t.match(f, { code, severity: /^(error|warning|info)$/, title: String, advice: String, docs: `docs/advisor.md#${code.toLowerCase()}` })
  t.ok(f.examples.length >= 1 && f.examples.length <= 5, 'up to 5 example request ids')
  t.ok(Date.parse(f.firstSeen) <= Date.parse(f.lastSeen), 'firstSeen <= lastSeen')
  return f
}

t.test('each bad client sees its finding; a reset and DELETE clear them', async (t) => {
  // a retry is without backoff within SANDBOX_ADVICE_RETRY_WINDOW of its failure (100 ms by default): a wider
  // window, so that a CI machine busy with other test files cannot space this file's quick retries beyond it
  // (the replica test's retries were, test/replicas/advice.test.ts); the well-behaved client below keeps 100
  const { base } = await listen(t, { advicePollSeconds: 2, adviceRetryWindow: 1000 })

  await t.test('a clean start: observing, no finding', async (t) => {
    t.same(await advice(base), { observing: true, requests: 1, findings: [] }, 'one request judged: the token request of the harness (its call of the control API is not)')
  })

  await t.test('TOKEN_PER_REQUEST: a new token for every call', async (t) => {
    await clearAdvice(t, base)
    // a client reading its customers one by one, each with a new token (each URL once: the same URL read
    // this fast would be POLLING_TOO_FAST too, SANDBOX_ADVICE_POLL_SECONDS being 2 here)
    const customer = (i: number): string => `/api/customers/1001100000${String(i + 1).padStart(3, '0')}`
    for (let i = 0; i < 10; i++) t.equal((await call(base, await token(base), customer(i))).status, 200)
    t.same(codes(await advice(base)), [], 'not before SANDBOX_ADVICE_TOKEN_CALLS (20) calls')
    for (let i = 10; i < 21; i++) t.equal((await call(base, await token(base), customer(i))).status, 200)
    const a = await adviceWith(base, 'TOKEN_PER_REQUEST', 20)
    t.same(codes(a), ['TOKEN_PER_REQUEST'])
    t.equal(finding(t, a, 'TOKEN_PER_REQUEST').count, 20, 'every call but the first had a new token while the last was valid')
    t.equal(a.requests, 42, 'the 21 token requests and 21 calls judged; the control API\'s are not')
  })

  await t.test('RETRY_WITHOUT_BACKOFF: a 500 retried at once, again and again', async (t) => {
    await clearAdvice(t, base)
    const bearer = await token(base)
    const sent: Sent[] = []
    for (let i = 0; i < 4; i++) sent.push(await call(base, bearer, MESSAGES, { body: MESSAGE, headers: { 'sandbox-fault': 'status=500' } }))
    t.same(sent.map((s) => s.status), [500, 500, 500, 500])
    const a = await adviceWith(base, 'RETRY_WITHOUT_BACKOFF')
    t.same(codes(a), ['RETRY_WITHOUT_BACKOFF'])
    const f = finding(t, a, 'RETRY_WITHOUT_BACKOFF')
    t.equal(f.severity, 'error')
    t.equal(f.count, 1, 'the third quick retry in a row')
    t.same(f.examples, [sent[3].headers.get('x-request-id')], 'the example is that retry, by its request id')
  })

  await t.test('RETRY_AFTER_IGNORED: a request before Retry-After passed', async (t) => {
    await clearAdvice(t, base)
    const bearer = await token(base)
    const refused = await call(base, bearer, '/api/banks', { headers: { 'sandbox-fault': 'status=503' } })
    t.equal(refused.status, 503)
    t.equal(refused.headers.get('retry-after'), '5')
    t.equal((await call(base, bearer, '/api/banks')).status, 200, 'sent at once: it works, but the bank asked to wait')
    const a = await adviceWith(base, 'RETRY_AFTER_IGNORED')
    t.same(codes(a), ['RETRY_AFTER_IGNORED'])
    t.equal(finding(t, a, 'RETRY_AFTER_IGNORED').count, 1)
  })

  await t.test('DUPLICATE_CREATE: a create repeated after an unclear answer made a second record', async (t) => {
    await clearAdvice(t, base)
    const bearer = await token(base)
    const body = { ...MESSAGE, message: `DUPLICATE ${Date.now()}` }
    // refused before the operation (nothing made): a repeat is right
    t.equal((await call(base, bearer, MESSAGES, { body, headers: { 'sandbox-fault': 'status=502' } })).status, 502)
    await sleep(150)
    t.equal((await call(base, bearer, MESSAGES, { body })).status, 200)
    t.same(codes(await advice(base)), [], 'a repeat after a 502 that made nothing is no duplicate')
    // made, then the connection reset: the repeat makes a second
    const other = { ...MESSAGE, message: `DUPLICATE AFTER ${Date.now()}` }
    t.equal((await call(base, bearer, MESSAGES, { body: other, headers: { 'sandbox-fault': 'after, reset' } })).status, 0, 'no answer')
    await sleep(150)
    const repeat = await call(base, bearer, MESSAGES, { body: other })
    t.equal(repeat.status, 200)
    const list = JSON.parse((await call(base, bearer, `${MESSAGES}?size=500`)).body) as { messages: Array<{ message: string }> }
    t.equal(list.messages.filter((m) => m.message === other.message).length, 2, 'two records')
    // and the magic value of an after fault: made, answered 502, repeated
    const magic = { ...MESSAGE, message: 'SANDBOX-AFTER-502' }
    t.equal((await call(base, bearer, MESSAGES, { body: magic })).status, 502)
    await sleep(150)
    t.equal((await call(base, bearer, MESSAGES, { body: magic })).status, 502)
    const a = await adviceWith(base, 'DUPLICATE_CREATE', 2)
    t.same(codes(a), ['DUPLICATE_CREATE'])
    const f = finding(t, a, 'DUPLICATE_CREATE')
    t.equal(f.count, 2)
    t.equal(f.examples[1], repeat.headers.get('x-request-id'))
  })

  await t.test('REJECTED_TOKEN_REUSED: a token sent again after its 401', async (t) => {
    await clearAdvice(t, base)
    const bearer = await token(base)
    t.equal((await call(base, bearer, '/api/banks')).status, 200)
    const expired = await fetch(`${base}/__sandbox/tokens/expire`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` } })
    t.equal(expired.status, 200, 'the partner expires its tokens')
    const first = await call(base, bearer, '/api/banks')
    t.equal(first.status, 401)
    t.match(first.headers.get('www-authenticate'), /invalid_token/)
    t.same(codes(await advice(base)), [], 'one refusal is no finding')
    for (let i = 0; i < 2; i++) t.equal((await call(base, bearer, '/api/banks')).status, 401)
    const a = await adviceWith(base, 'REJECTED_TOKEN_REUSED', 2)
    t.same(codes(a), ['REJECTED_TOKEN_REUSED'])
    t.equal(finding(t, a, 'REJECTED_TOKEN_REUSED').count, 2)
  })

  await t.test('DEPRECATED_VERSION: calls to /4.0/api', async (t) => {
    await clearAdvice(t, base)
    const bearer = await token(base)
    const old = await call(base, bearer, '/4.0/api/banks')
    t.equal(old.status, 200)
    t.ok(old.headers.get('deprecation'), 'answered with Deprecation')
    t.equal((await call(base, bearer, '/4.1/api/banks')).status, 200)
    const a = await adviceWith(base, 'DEPRECATED_VERSION')
    t.same(codes(a), ['DEPRECATED_VERSION'])
    t.equal(finding(t, a, 'DEPRECATED_VERSION').count, 1, 'the current version is no finding')
  })

  await t.test('POLLING_TOO_FAST: one read some 16 times a second, for SANDBOX_ADVICE_POLL_SECONDS (2 here)', async (t) => {
    await clearAdvice(t, base)
    const bearer = await token(base)
    // well over SANDBOX_ADVICE_POLL_RATE (5 a second): at 8 a second (125 ms apart), a CI machine busy with
    // other test files answered slowly enough that some seconds had no more than 5 reads
    const until = Date.now() + 3500
    while (Date.now() < until) {
      await call(base, bearer, '/api/customers/1001100000001')
      await sleep(60)
    }
    const a = await adviceWith(base, 'POLLING_TOO_FAST')
    t.same(codes(a), ['POLLING_TOO_FAST'])
    t.ok(finding(t, a, 'POLLING_TOO_FAST').count >= 1)
  })

  await t.test('REPEATED_CLIENT_ERROR: the same 400 five times', async (t) => {
    await clearAdvice(t, base)
    const bearer = await token(base)
    for (let i = 0; i < 4; i++) t.equal((await call(base, bearer, MESSAGES, { body: { fromDepartment: 'CI' } })).status, 400)
    t.equal((await call(base, bearer, MESSAGES, { body: { message: 'another rule broken', fromDepartment: 'CI' } })).status, 400)
    t.same(codes(await advice(base)), [], 'four of one 400 and one of another')
    t.equal((await call(base, bearer, MESSAGES, { body: { fromDepartment: 'OPS' } })).status, 400)
    const a = await adviceWith(base, 'REPEATED_CLIENT_ERROR')
    t.same(codes(a), ['REPEATED_CLIENT_ERROR'])
    t.equal(finding(t, a, 'REPEATED_CLIENT_ERROR').count, 1, 'the fifth of the same rule broken, whatever the values')
  })

  await t.test('a reset clears the findings', async (t) => {
    t.not((await advice(base)).findings.length, 0)
    t.equal((await control(base, 'POST', '/__sandbox/reset')).status, 200)
    t.same(await advice(base), { observing: true, requests: 0, findings: [] })
  })

  await t.test('another partner\'s advice is its own', async (t) => {
    const b = await token(base, 'partner-b', 'partner-b-secret')
    for (let i = 0; i < 4; i++) await call(base, b, '/api/banks', { headers: { 'sandbox-fault': 'status=500', 'agent-id': '2001' } })
    const res = await fetch(`${base}/__sandbox/advice`, { headers: { authorization: `Bearer ${b}` } })
    t.same(codes(await res.json() as Advice), ['RETRY_WITHOUT_BACKOFF'])
    t.same(codes(await advice(base)), [], 'partner-a sees none of it')
  })
})

t.test('a well-behaved client gets no finding', async (t) => {
  const { base } = await listen(t)
  const issuer = new URL(`${base}/auth/realms/sandbox`)
  const config = await oidc.discovery(issuer, 'partner-a', 'partner-a-secret', undefined, { execute: [oidc.allowInsecureRequests] })
  // the token cached until shortly before it expires
  let cached: { token: string, until: number } | undefined
  let tokenRequests = 0
  const accessToken = async (): Promise<string> => {
    if (cached !== undefined && Date.now() < cached.until) return cached.token
    tokenRequests += 1
    const grant = await oidc.clientCredentialsGrant(config)
    cached = { token: grant.access_token, until: Date.now() + ((grant.expiresIn() ?? 60) - 30) * 1000 }
    return cached.token
  }
  const waits: number[] = []
  /** A call retried on 5xx, 429 and a dropped connection, after Retry-After when given, else 200 ms doubled each time. */
  const resilient = async (path: string, opts: { body?: unknown, headers?: Record<string, string> } = {}): Promise<Sent> => {
    let backoff = 200
    for (let attempt = 1; ; attempt++) {
      const sent = await call(base, await accessToken(), path, opts)
      if (sent.status === 401) cached = undefined
      const retriable = sent.status === 0 || sent.status === 429 || sent.status >= 500 || sent.status === 401
      if (!retriable || attempt === 6) return sent
      const retryAfter = sent.headers.get('retry-after')
      const wait = retryAfter !== null ? Number(retryAfter) * 1000 + 50 : backoff
      waits.push(wait)
      await sleep(wait)
      backoff *= 2
    }
  }
  const admin = { authorization: `Bearer ${await accessToken()}`, 'content-type': 'application/json' }
  // faults the client meets without asking: 500 twice on the banks, then a 503 with Retry-After, a reset on a read
  for (const rule of [{ match: { method: 'GET', path: '/api/banks' }, fault: 'status=500', times: 2 }, { match: { method: 'GET', path: '/api/products' }, fault: 'status=503', times: 1 }, { match: { method: 'GET', path: '/api/customers/*' }, fault: 'reset', times: 1 }]) {
    const res = await fetch(`${base}/__sandbox/faults`, { method: 'POST', headers: admin, body: JSON.stringify(rule) })
    t.equal(res.status, 200, 'fault rule set')
  }
  await clearAdvice(t, base)
  t.equal((await resilient('/api/banks')).status, 200, 'the banks, after two 500s')
  t.equal((await resilient('/api/products')).status, 200, 'the products, after a 503 and its Retry-After')
  t.equal((await resilient('/api/customers/1001100000001')).status, 200, 'a customer, after a reset')
  for (let i = 0; i < 20; i++) t.equal((await resilient('/api/customers/1001100000001')).status, 200)
  const created = await resilient(MESSAGES, { body: { ...MESSAGE, message: 'WELL BEHAVED' } })
  t.equal(created.status, 200, 'a create')
  t.same(waits, [200, 400, 5050, 200], 'it paused before every retry')
  t.equal(tokenRequests, 1, 'one token for all of it')
  const a = await advice(base)
  t.same(a.findings, [], 'no finding')
  t.ok(a.requests >= 27, `its ${a.requests} requests judged`)
})

t.test('journal off: the advisor says it is not observing', async (t) => {
  const { base } = await listen(t, { journalSize: 0 })
  const bearer = await token(base)
  await call(base, bearer, '/api/banks', { headers: { 'sandbox-fault': 'status=503' } })
  await call(base, bearer, '/api/banks')
  t.same(await advice(base), { observing: false, requests: 0, findings: [] })
})
