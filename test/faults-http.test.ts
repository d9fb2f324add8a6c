import { request as httpRequest } from 'node:http'
import t from 'tap'
import { listen, tokenFor } from './helper.js'

/* The faults that need a real socket (issue 11): reset and timeout, before and after the operation. */

interface Outcome { status?: number, headers?: Record<string, unknown>, body?: string, error?: string, ms: number }

/** One request on its own connection; a client-side timeout of giveUpMs counts as "no answer". */
async function send (base: string, opts: { method?: string, path: string, headers?: Record<string, string>, body?: unknown, giveUpMs?: number }): Promise<Outcome> {
  const started = Date.now()
  return await new Promise((resolve) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body)
    const req = httpRequest(`${base}${opts.path}`, {
      method: opts.method ?? (payload === undefined ? 'GET' : 'POST'),
      agent: false,
      headers: { ...opts.headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) }
    }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { body += c })
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body, ms: Date.now() - started }))
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, ms: Date.now() - started }))
    if (opts.giveUpMs !== undefined) {
      req.setTimeout(opts.giveUpMs, () => {
        req.destroy()
        resolve({ error: 'CLIENT_GAVE_UP', ms: Date.now() - started })
      })
    }
    req.end(payload)
  })
}

const MESSAGES = '/api/customers/1001100000001/messages'

async function messages (base: string, headers: Record<string, string>): Promise<number> {
  const res = await send(base, { path: `${MESSAGES}?size=1`, headers })
  return JSON.parse(res.body!).page.totalElements
}

t.test('reset closes the connection without an answer, before or after the operation', async (t) => {
  const { app, base } = await listen(t)
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  const before = await messages(base, headers)
  const reset = await send(base, { path: MESSAGES, headers: { ...headers, 'sandbox-fault': 'reset' }, body: { message: 'RESET', fromDepartment: 'CI', fromPerson: 'CI' } })
  t.equal(reset.status, undefined, 'no answer')
  t.equal(reset.error, 'ECONNRESET', 'the client sees a reset connection')
  t.equal(await messages(base, headers), before, 'nothing created')
  const after = await send(base, { path: MESSAGES, headers: { ...headers, 'sandbox-fault': 'after, reset' }, body: { message: 'AFTER RESET', fromDepartment: 'CI', fromPerson: 'CI' } })
  t.equal(after.error, 'ECONNRESET', 'after, reset: no answer either')
  t.equal(await messages(base, headers), before + 1, 'but the message was created')
  const next = await send(base, { path: '/api/banks', headers })
  t.equal(next.status, 200, 'the server goes on serving')
})

t.test('timeout holds the connection until the client gives up; the server bounds the hold', async (t) => {
  const { app, base } = await listen(t, { faultHold: 1500 })
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  const gaveUp = await send(base, { path: '/api/banks', headers: { ...headers, 'sandbox-fault': 'timeout' }, giveUpMs: 400 })
  t.equal(gaveUp.error, 'CLIENT_GAVE_UP', 'no answer within the client\'s patience')
  const bounded = await send(base, { path: '/api/banks', headers: { ...headers, 'sandbox-fault': 'timeout' } })
  t.equal(bounded.status, undefined, 'never answered')
  t.ok(bounded.error === 'ECONNRESET' || bounded.error === 'socket hang up', `the server closed it (${bounded.error ?? ''})`)
  t.ok(bounded.ms >= 1400, `after SANDBOX_FAULT_HOLD (${bounded.ms} ms)`)
  const before = await messages(base, headers)
  const afterTimeout = await send(base, { path: MESSAGES, headers: { ...headers, 'sandbox-fault': 'after, timeout' }, body: { message: 'AFTER TIMEOUT', fromDepartment: 'CI', fromPerson: 'CI' }, giveUpMs: 300 })
  t.equal(afterTimeout.error, 'CLIENT_GAVE_UP')
  t.equal(await messages(base, headers), before + 1, 'after, timeout: created, never answered')
})

t.test('a graceful stop does not wait for held requests', async (t) => {
  const { app, base } = await listen(t, { faultHold: 600000 })
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  const held = send(base, { path: '/api/banks', headers: { ...headers, 'sandbox-fault': 'timeout' } })
  const slow = send(base, { path: '/api/banks', headers: { ...headers, 'sandbox-fault': 'latency=60000' } })
  await new Promise((resolve) => setTimeout(resolve, 200))
  const started = Date.now()
  await app.close()
  t.ok(Date.now() - started < 3000, `closed in ${Date.now() - started} ms`)
  const [h, s] = await Promise.all([held, slow])
  t.equal(h.status, undefined, 'the held request is dropped')
  t.equal(s.status, 200, 'the slowed request is answered at once')
})

t.test('latency over a real connection delays the answer', async (t) => {
  const { app, base } = await listen(t)
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  const res = await send(base, { path: '/api/banks', headers: { ...headers, 'sandbox-fault': 'latency=400' } })
  t.equal(res.status, 200)
  t.ok(res.ms >= 390, `${res.ms} ms`)
  t.equal(res.headers?.['sandbox-fault-applied'], 'latency=400; source=header')
})

t.test("the partner's journal shows each faulted request with its fault, a dropped one with status 0", async (t) => {
  const { app, base } = await listen(t)
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  await send(base, { path: '/api/banks', headers: { ...headers, 'sandbox-fault': 'reset' } })
  await send(base, { path: '/api/banks?size=3', headers: { ...headers, 'sandbox-fault': 'status=503' } })
  const list = await send(base, { path: '/__sandbox/requests?limit=10', headers: { authorization: headers.authorization } })
  t.equal(list.status, 200)
  const entries = JSON.parse(list.body!).requests as Array<{ status: number, fault: string | null, path: string }>
  t.match(entries.find((e) => e.fault === 'reset; source=header'), { status: 0, path: '/api/banks' }, 'the reset request, status 0')
  t.match(entries.find((e) => e.fault === 'status=503; source=header'), { status: 503 }, 'the injected 503')
})
