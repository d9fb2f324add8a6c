import { request as httpRequest } from 'node:http'
import { createRequire } from 'node:module'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Ajv } from 'ajv'
import { loadConfig } from '../src/config.js'
import type { JournalEntry } from '../src/schemas/journal.js'
import { buildServer } from '../src/server.js'
import { BYTES_PER_ENTRY, MemoryJournals } from '../src/store/journal.js'
import { anotherKey, api, build, expiryOf, listen, resign, tokenFor, unsigned, PARTNER_A, PARTNER_B, PUBLIC_URL, SIGNING_KEY, TOKEN_PATH, type Credentials } from './helper.js'

const require = createRequire(import.meta.url)

type Entry = JournalEntry

const MESSAGE = { message: 'HELLO FROM THE JOURNAL TEST', fromDepartment: 'CI', fromPerson: 'TESTER' }

async function list (app: FastifyInstance, query = '', token?: string): Promise<{ requests: Entry[], total: number, journalSize: number }> {
  const res = await api(app, { url: `/__sandbox/requests${query}`, agent: null, token })
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json()
}

async function entry (app: FastifyInstance, id: string, token?: string): Promise<Entry> {
  const res = await api(app, { url: `/__sandbox/requests/${encodeURIComponent(id)}`, agent: null, token })
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json()
}

async function count (app: FastifyInstance, filter: Record<string, unknown>): Promise<number> {
  const res = await api(app, { method: 'POST', url: '/__sandbox/requests/count', agent: null, body: filter })
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json().count
}

/** The helper's token requests made, then the journals emptied: a test sees only its own requests. */
async function fresh (app: FastifyInstance): Promise<void> {
  for (const who of [PARTNER_A, PARTNER_B]) await api(app, { method: 'DELETE', url: '/__sandbox/requests', agent: null, token: await tokenFor(app, who) })
}

t.test('a created message is journaled with its request and response, the route template, and the token and cookies redacted', async (t) => {
  const app = await build(t)
  const token = await tokenFor(app)
  const sent = `{"message":"${MESSAGE.message}","fromDepartment":"CI","fromPerson":"TESTER","extra":"3"}`
  const res = await app.inject({
    method: 'POST',
    url: '/api/customers/1001100000001/messages?trace=1',
    headers: { authorization: `Bearer ${token}`, 'agent-id': '1001', 'content-type': 'application/json', cookie: 'session=secret-cookie', 'x-request-id': 'ci-run-42' },
    payload: sent
  })
  t.equal(res.statusCode, 200)
  const { requests } = await list(app)
  const summary = requests.find((r) => r.requestId === 'ci-run-42')!
  t.ok(summary, 'the entry carries the X-Request-Id the response carried')
  t.match(summary, { method: 'POST', path: '/api/customers/1001100000001/messages', url: '/api/customers/1001100000001/messages?trace=1', route: '/api/customers/{customerId}/messages', agentId: '1001', status: 200, fault: null })
  t.notOk('request' in summary, 'the list gives summaries, not bodies')
  const e = await entry(app, summary.id)
  t.equal(e.request.body, sent, 'the request body exactly as sent')
  t.equal(e.request.headers.authorization, '[REDACTED]')
  t.equal(e.request.headers.cookie, '[REDACTED]')
  t.notMatch(JSON.stringify(e), token, 'the token appears nowhere in the entry')
  t.notMatch(JSON.stringify(e), 'secret-cookie')
  t.equal(e.response.body, res.body, 'the response body as sent')
  t.equal(e.response.headers['x-request-id'], 'ci-run-42')
  t.ok(e.durationMs >= 0)
  t.same(await entry(app, 'ci-run-42'), e, 'an entry is found by its X-Request-Id too')
  // what the journal keeps in memory: no reader needs the token, so it is not kept (a held token was 1.4 KB of each entry)
  const kept = await app.journals.get('partner-a', 'ci-run-42')
  t.ok(Array.isArray(kept?.requestHead), 'the filed entry, with the request head as Node received it')
  t.notMatch(JSON.stringify(kept?.requestHead), token, 'the filed request head holds no token')
  t.notMatch(JSON.stringify(kept?.requestHead), 'secret-cookie', 'nor the cookie')
})

t.test('token requests, control calls and 403s are journaled; reading the journal, forged or unsigned tokens and public calls are not', async (t) => {
  const app = await build(t)
  await fresh(app)
  const tokenRes = await app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&scope=openid'
  })
  const token = tokenRes.json().access_token as string
  await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: `Basic ${Buffer.from('partner-a:wrong').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' })
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/reset', agent: null, token })).statusCode, 200)
  t.equal((await api(app, { url: '/api/customers', agent: '2001', token })).statusCode, 403)
  t.equal((await api(app, { url: '/api/banks?forged=1', token: await resign(token, { key: anotherKey() }) })).statusCode, 401)
  t.equal((await api(app, { url: '/api/banks?unsigned=1', token: unsigned(token) })).statusCode, 401)
  t.equal((await api(app, { url: '/api/guarantees/VALID-1/state', token: null, agent: null })).statusCode, 200)
  await list(app)
  await list(app, '?status=401')

  // a 401's token is checked after the answer: give it a moment
  await new Promise((resolve) => setTimeout(resolve, 50))
  const { requests } = await list(app, '', token)
  t.same(requests.map((r) => `${r.method} ${r.url} ${r.status}`), [
    'GET /api/customers 403',
    'POST /__sandbox/reset 200',
    `POST ${TOKEN_PATH} 200`
  ], 'newest first: the 403, the reset, the token request; not the wrong secret, forged or unsigned tokens, public calls or journal reads')
  const tokenEntry = await entry(app, requests[2].id, token)
  t.equal(tokenEntry.route, TOKEN_PATH)
  t.match(tokenEntry.response.body, /"access_token":"\[REDACTED\]"/, 'the issued token is redacted')
  t.notMatch(JSON.stringify(tokenEntry), token)
  t.equal(tokenEntry.request.headers.authorization, '[REDACTED]', 'the client secret (Basic) is redacted')
  t.equal(requests[0].agentId, '2001', 'the Agent-Id of a refused request')
  t.equal((await list(app, '', await tokenFor(app, PARTNER_B))).total, 0, 'partner-b has nothing of it')
})

t.test("a request with an expired token of the sandbox is in its partner's journal; a forged copy of that token is nobody's (over HTTP, a token of 10 s)", async (t) => {
  const { base } = await listen(t, { tokenTtl: 10 })
  const issue = async (): Promise<string> => {
    const res = await fetch(`${base}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials'
    })
    t.equal(res.status, 200)
    return (await res.json() as { access_token: string }).access_token
  }
  const get = async (path: string, token: string): Promise<Response> => await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, 'agent-id': '1001' } })
  const expired = await issue()
  const forged = await resign(expired, { key: anotherKey() })
  await expiryOf(expired)
  const refused = await get('/api/customers?page=0&size=1', expired)
  t.equal(refused.status, 401)
  t.match(refused.headers.get('www-authenticate'), /error="invalid_token", error_description="[^"]*expired/)
  t.equal((await get('/api/customers?forged=1', forged)).status, 401)
  const fresh = await issue()
  // a 401's token is checked after the answer: read until its entry is there (a busy machine takes longer)
  const read = async (): Promise<{ requests: Entry[] }> => await (await get('/__sandbox/requests', fresh)).json() as { requests: Entry[] }
  let journal = await read()
  for (let tries = 0; tries < 100 && !journal.requests.some((r) => r.status === 401); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    journal = await read()
  }
  // and a moment more, in which a forged copy's entry (filed wrongly) would have come too
  await new Promise((resolve) => setTimeout(resolve, 50))
  journal = await read()
  t.same(journal.requests.map((r) => `${r.method} ${r.url} ${r.status}`), [
    `POST ${TOKEN_PATH} 200`,
    'GET /api/customers?page=0&size=1 401',
    `POST ${TOKEN_PATH} 200`
  ], 'newest first: the second token request, the expired token, the first token request; not the forged copy')
})

t.test('filters, limit and count select entries the way a test verifies what its code sent', async (t) => {
  const app = await build(t)
  await fresh(app)
  const before = new Date().toISOString()
  // arrival times are Date.now() minus the duration: a millisecond apart from the mark, whatever the rounding
  await new Promise((resolve) => setTimeout(resolve, 5))
  for (let i = 0; i < 3; i++) await api(app, { url: '/api/customers/1001100000001/messages', body: { ...MESSAGE, message: `NUMBER ${i}` } })
  await api(app, { url: '/api/customers/1001100000001/messages', body: { ...MESSAGE, message: 'x'.repeat(300) } })
  await api(app, { url: '/api/banks', agent: '1002' })
  await api(app, { url: '/4.0/api/banks?size=2' })
  await api(app, { url: '/api/customers/1001100000002' })
  t.equal((await list(app)).total, 7)
  t.equal((await list(app, '?method=post')).total, 4, 'method, any case')
  t.equal((await list(app, '?status=4xx')).total, 1, 'a status class')
  t.equal((await list(app, '?status=200')).total, 6, 'a status')
  t.equal((await list(app, '?agentId=1002')).total, 1)
  t.equal((await list(app, '?route=/api/banks')).total, 2, 'a route template covers every version')
  t.equal((await list(app, `?route=${encodeURIComponent('/api/customers/:customerId')}`)).total, 1, 'the colon form of a route works too')
  t.equal((await list(app, '?path=/api/customers/*/messages')).total, 4, '* within a segment')
  t.equal((await list(app, '?path=/**/banks')).total, 2, '** across segments')
  t.equal((await list(app, `?since=${before}`)).total, 7)
  t.equal((await list(app, `?until=${before}`)).total, 0)
  const limited = await list(app, '?limit=2')
  t.equal(limited.requests.length, 2)
  t.equal(limited.total, 7, 'total counts past the limit')
  t.equal(await count(app, { method: 'POST', path: '/api/customers/1001100000001/messages', bodyContains: 'NUMBER 1' }), 1, 'exactly one message with that text')
  t.equal(await count(app, { route: '/api/customers/{customerId}/messages', status: '200' }), 3)
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/requests/count', headers: { authorization: `Bearer ${await tokenFor(app)}` } })).json().count, 7, 'no body counts everything')
  const bad = await api(app, { url: '/__sandbox/requests?status=abc&limit=0', agent: null })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().errors.map((e: { field: string }) => e.field).sort(), ['limit', 'status'], 'a bad filter names the parameter')
  t.equal((await api(app, { url: '/__sandbox/requests/nope', agent: null })).statusCode, 404)
  t.equal((await api(app, { method: 'DELETE', url: '/__sandbox/requests', agent: null })).statusCode, 204)
  t.equal((await list(app)).total, 0, 'emptied')
})

t.test('the HAR export is a valid HAR 1.2 document of the journal', async (t) => {
  const app = await build(t)
  await fresh(app)
  await api(app, { url: '/api/customers/1001100000001/messages', body: MESSAGE })
  await api(app, { url: '/api/banks?page=0&size=1' })
  const res = await api(app, { url: '/__sandbox/requests.har', agent: null })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-disposition'], /attachment; filename="partner-a-requests.har"/)
  const har = res.json()
  const ajv = new Ajv({ strict: false, allErrors: true })
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'))
  const schemas = require('har-schema') as Record<string, object>
  for (const s of Object.values(schemas)) ajv.addSchema(s)
  const validate = ajv.getSchema('har.json#')!
  t.ok(validate(har), `valid HAR 1.2: ${ajv.errorsText(validate.errors)}`)
  t.equal(har.log.entries.length, 2)
  const [banks, post] = har.log.entries
  t.equal(banks.request.url, `${PUBLIC_URL}/api/banks?page=0&size=1`)
  t.same(banks.request.queryString, [{ name: 'page', value: '0' }, { name: 'size', value: '1' }])
  t.equal(post.request.postData.text, JSON.stringify(MESSAGE))
  t.equal(post.response.status, 200)
  t.match(post.response.content, { mimeType: /application\/json/, text: /HELLO FROM THE JOURNAL TEST/ })
})

t.test('bodies are cut at 64 KiB and marked as cut', async (t) => {
  const app = await build(t)
  const big = JSON.stringify({ ...MESSAGE, padding: 'é'.repeat(50_000) })
  await api(app, { url: '/api/customers/1001100000001/messages', body: big, headers: { 'content-type': 'application/json' } })
  const [summary] = (await list(app)).requests
  const e = await entry(app, summary.id)
  t.equal(e.request.bodyTruncated, true)
  t.equal(e.request.bodySize, Buffer.byteLength(big))
  t.ok(Buffer.byteLength(e.request.body!) <= 65536, 'at most 64 KiB kept')
  t.ok(big.startsWith(e.request.body!), 'the start of the body, cut on a character boundary')
  t.equal(e.response.bodyTruncated, false)
})

t.test('the journal holds its bound under ten times its size of traffic, by count and by bytes', async (t) => {
  const app = await build(t, { journalSize: 20 })
  for (let i = 0; i < 200; i++) await api(app, { url: `/api/banks?page=${i % 3}` })
  const { requests, total, journalSize } = await list(app, '?limit=1000')
  t.equal(journalSize, 20)
  t.equal(total, 20, 'twenty entries kept')
  t.equal(requests[0].url, '/api/banks?page=1', 'the newest kept (request 199)')
  const big = JSON.stringify({ ...MESSAGE, padding: 'x'.repeat(60_000) })
  for (let i = 0; i < 30; i++) await api(app, { url: '/api/customers/1001100000001/messages', body: big, headers: { 'content-type': 'application/json' } })
  const journal = (app.journals as MemoryJournals).of('partner-a')
  t.ok(journal.size <= 20 * BYTES_PER_ENTRY, `bytes within the bound (${journal.size} <= ${20 * BYTES_PER_ENTRY})`)
  t.ok(journal.count >= 1 && journal.count < 20, `fewer entries when they are large (${journal.count})`)
})

t.test('with SANDBOX_JOURNAL_SIZE 0 nothing is recorded', async (t) => {
  const app = await build(t, { journalSize: 0 })
  await api(app, { url: '/api/banks' })
  const res = await list(app)
  t.same(res, { requests: [], total: 0, journalSize: 0 })
})

t.test("one partner never sees another's entries", async (t) => {
  const app = await build(t)
  await fresh(app)
  const b = await tokenFor(app, PARTNER_B)
  await api(app, { url: '/api/customers/1001100000001' })
  await api(app, { url: '/api/customers/2001100000001', token: b, agent: '2001' })
  const a = await list(app)
  const ofB = await list(app, '', b)
  t.same(a.requests.map((r) => r.agentId), ['1001'])
  t.same(ofB.requests.map((r) => r.agentId), ['2001'])
  t.equal((await api(app, { url: `/__sandbox/requests/${a.requests[0].requestId}`, agent: null, token: b })).statusCode, 404, "a's entry is not found for b")
  t.equal((await api(app, { method: 'DELETE', url: '/__sandbox/requests', agent: null, token: b })).statusCode, 204)
  t.equal((await list(app)).total, 1, "b emptying its journal leaves a's")
})

t.test('a request whose connection is dropped without an answer is journaled with status 0 and its fault', async (t) => {
  // what an injected reset fault does (issue 11): the fault header on the raw response, then the socket destroyed
  const app = await buildServer(loadConfig({ logLevel: 'silent', signingKey: SIGNING_KEY, publicUrl: PUBLIC_URL, maxEventLoopDelay: 60000 }), (fastify) => {
    fastify.addHook('preHandler', (request, reply, done) => {
      if (request.headers['x-test-drop'] === undefined) return done()
      reply.raw.setHeader('sandbox-fault-applied', 'reset; source=header')
      request.server.journalFile(request, reply, 0)
      reply.hijack()
      request.raw.destroy()
    })
  })
  t.teardown(() => app.close())
  await api(app, { url: '/api/banks', headers: { 'x-test-drop': '1' } }).catch(() => {})
  const [e] = (await list(app)).requests
  t.match(e, { status: 0, fault: 'reset; source=header', route: '/api/banks' })
})

t.test('an answer carrying Sandbox-Fault-Applied is journaled with that fault', async (t) => {
  // what an "after" fault does (issue 11): the header on the answer, set in onSend
  const app = await buildServer(loadConfig({ logLevel: 'silent', signingKey: SIGNING_KEY, publicUrl: PUBLIC_URL, maxEventLoopDelay: 60000 }), (fastify) => {
    fastify.addHook('onSend', (request, reply, payload, done) => {
      if (request.headers['x-test-fault'] !== undefined) reply.code(502).header('sandbox-fault-applied', 'after, status=502; source=header')
      done(null, payload)
    })
  })
  t.teardown(() => app.close())
  const res = await api(app, { url: '/api/banks', headers: { 'x-test-fault': '1' } }).catch((err: Error) => err)
  t.notOk(res instanceof Error)
  const [e] = (await list(app, '?path=/api/banks')).requests
  t.match(e, { status: 502, fault: 'after, status=502; source=header' })
})

t.test('the live tail delivers an entry made after it connected', async (t) => {
  const { app, base } = await listen(t)
  const token = await tokenFor(app, PARTNER_A)
  const received = new Promise<string>((resolve, reject) => {
    const req = httpRequest(`${base}/__sandbox/requests/stream`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      t.equal(res.statusCode, 200)
      t.match(res.headers['content-type'], /text\/event-stream/)
      let buffer = ''
      let sent = false
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        if (!sent && buffer.includes('\n: connected\n\n')) {
          sent = true
          fetch(`${base}/api/customers/1001100000001`, { headers: { authorization: `Bearer ${token}`, 'agent-id': '1001', 'x-request-id': 'after-connect' } }).catch(reject)
        }
        const m = /event: request\ndata: (.*)\n\n/.exec(buffer)
        if (m !== null) {
          req.destroy()
          resolve(m[1])
        }
      })
    })
    req.on('error', reject)
    req.end()
  })
  const data = JSON.parse(await received)
  t.match(data, { requestId: 'after-connect', method: 'GET', route: '/api/customers/{customerId}', status: 200 })
  const other = await fetch(`${base}/__sandbox/requests/stream`, { headers: { authorization: `Bearer ${await tokenFor(app, PARTNER_B)}` } })
  t.equal(other.status, 200, "another partner's tail opens")
  await other.body?.cancel()
})

t.test("a deleted partner's journal goes with it: its live tail ends, the client id registered again starts empty", async (t) => {
  const ADMIN = 'operator-secret-0123456789'
  const { app, base } = await listen(t, { adminToken: ADMIN })
  let agent = ''
  const register = async (): Promise<Credentials> => {
    const reg = (await api(app, { url: '/__sandbox/admin/partners', body: { clientId: 'partner-gone', scenario: 'empty' }, token: ADMIN, agent: null })).json()
    agent = reg.agentIds[0]
    return { client: reg.clientId, secret: reg.clientSecret }
  }
  const token = await tokenFor(app, await register())
  t.equal((await api(app, { url: '/api/banks', token, agent, headers: { 'x-request-id': 'before-delete' } })).statusCode, 200)
  t.equal((await entry(app, 'before-delete', token)).url, '/api/banks')
  const tail = await fetch(`${base}/__sandbox/requests/stream`, { headers: { authorization: `Bearer ${token}` } })
  const reader = tail.body!.getReader()
  await reader.read()
  t.equal((await api(app, { method: 'DELETE', url: '/__sandbox/admin/partners/partner-gone', token: ADMIN, agent: null })).statusCode, 204)
  const ended = (async () => { while (!(await reader.read()).done); return true })()
  t.ok(await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5000, false))]), 'the live tail of the deleted partner ended')
  const creds = await register()
  // (tokenFor keeps the first token of a client id)
  const again = (await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: `Basic ${Buffer.from(`${creds.client}:${creds.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' })).json().access_token
  const { requests } = await list(app, '', again)
  t.same(requests.map((r) => r.url), [TOKEN_PATH], "only the new partner's token request: nothing of the deleted one")
})
