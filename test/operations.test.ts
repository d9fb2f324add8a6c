import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import app, { serverOptions } from '../src/app.js'
import { loadConfig, type Config } from '../src/config.js'
import { REDACT_PATHS } from '../src/plugins/operations.js'
import { PARTNER_A, PUBLIC_URL, TOKEN_PATH, api, build, tokenFor } from './helper.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const BASIC_A = `Basic ${Buffer.from(`${PARTNER_A.client}:${PARTNER_A.secret}`).toString('base64')}`
const FORM = 'application/x-www-form-urlencoded'
const MESSAGE = { message: 'HELLO', fromDepartment: 'OPS', fromPerson: 'TEST' }

/** The real app with its log lines captured (what the CLI writes to stdout). */
async function buildLogged (t: Test, overrides: Partial<Record<keyof Config, unknown>> = {}): Promise<{ app: FastifyInstance, lines: string[] }> {
  const lines: string[] = []
  const config = loadConfig({ logLevel: 'trace', publicUrl: PUBLIC_URL, managementPort: 0, ...overrides })
  const opts = serverOptions(config)
  const fastify = Fastify({ ...opts, logger: { ...(opts.logger as object), stream: { write: (line: string) => { lines.push(line) } } } })
  await fastify.register(fp(app), { config })
  await fastify.ready()
  t.teardown(() => fastify.close())
  return { app: fastify, lines }
}

/** A raw HTTP/1.1 exchange: what was answered before the server closed the connection. */
function readAll (socket: Socket): Promise<string> {
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => { text += chunk })
  return new Promise((resolve, reject) => {
    socket.once('close', () => resolve(text))
    socket.once('error', reject)
  })
}

function opened (port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket))
    socket.once('error', reject)
  })
}

/**
 * A connection the server is busy with: a complete GET /health, answered, followed in the same write
 * by the start of a second request. Once the first answer is back the server has read the start of
 * the second, so the connection is not idle and stays open through a stop. write() sends the rest.
 */
async function midRequest (port: number, partial: string): Promise<{ rest: (text: string) => void, answer: Promise<string> }> {
  const socket = await opened(port)
  const answer = readAll(socket)
  const first = new Promise<void>((resolve) => {
    let seen = ''
    const onData = (chunk: string): void => {
      seen += chunk
      if (seen.includes('{"status":"UP"}')) {
        socket.off('data', onData)
        resolve()
      }
    }
    socket.on('data', onData)
  })
  socket.write(`GET /health HTTP/1.1\r\nHost: sandbox\r\n\r\n${partial}`)
  await first
  return { rest: (text) => socket.write(text), answer }
}

t.test('GET /health and GET /ready answer 200 UP once the sandbox is loaded', async (t) => {
  const app = await build(t)
  for (const url of ['/health', '/ready']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 200, url)
    t.same(res.json(), { status: 'UP' })
  }
})

t.test('/ready answers 503 OUT_OF_SERVICE once a stop has begun, while /health stays up', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  // requests whose headers are still arriving keep their connections open through the stop
  const ready = await midRequest(port, 'GET /ready HTTP/1.1\r\nHost: sandbox\r\nX-Request-Id: ready-while-stopping\r\n')
  const health = await midRequest(port, 'GET /health HTTP/1.1\r\nHost: sandbox\r\n')
  const closed = app.close()
  ready.rest('\r\n')
  health.rest('\r\n')
  const [readyAll, healthAll] = await Promise.all([ready.answer, health.answer])
  await closed
  // the second answer on each connection is the one given while stopping
  const readyText = readyAll.slice(readyAll.lastIndexOf('HTTP/1.1 '))
  const healthText = healthAll.slice(healthAll.lastIndexOf('HTTP/1.1 '))
  t.match(readyText, /^HTTP\/1\.1 503 /)
  t.match(readyText, /\r\nx-request-id: ready-while-stopping\r\n/i)
  t.match(readyText, /\r\nconnection: close\r\n/i, 'the client is told not to reuse the connection')
  t.match(readyText, /\{"status":"OUT_OF_SERVICE"\}$/)
  t.match(healthText, /^HTTP\/1\.1 200 /, 'liveness is not readiness')
})

t.test('X-Request-Id: a sane client value is echoed, on successes, errors and the identity provider', async (t) => {
  const app = await build(t)
  const requests = [
    { url: '/health' },
    { url: '/api/banks' }, // 401: no token
    { url: '/api/nothing-here' }, // 404
    { url: '/api/banks', method: 'DELETE' as const }, // 405
    { url: '/auth/realms/sandbox/.well-known/openid-configuration' },
    { url: '/auth/realms/sandbox/protocol/openid-connect/certs' },
    { url: TOKEN_PATH, method: 'POST' as const, headers: { authorization: BASIC_A, 'content-type': FORM }, payload: 'grant_type=client_credentials' },
    { url: TOKEN_PATH, method: 'POST' as const, headers: { authorization: BASIC_A, 'content-type': FORM }, payload: 'grant_type=password&username=alice&password=wrong' }
  ]
  for (const [i, req] of requests.entries()) {
    const id = `client-id_${i}.a:b`
    const res = await app.inject({ ...req, headers: { ...req.headers, 'x-request-id': id } })
    t.equal(res.headers['x-request-id'], id, `${req.method ?? 'GET'} ${req.url} ${res.statusCode} echoes the id`)
  }
  const ok = await api(app, { url: '/api/banks', headers: { 'x-request-id': 'partner-trace-42' } })
  t.equal(ok.statusCode, 200)
  t.equal(ok.headers['x-request-id'], 'partner-trace-42')
})

t.test('X-Request-Id: without one, or with an unsafe or overlong one, the sandbox makes a new UUID', async (t) => {
  const app = await build(t)
  const seen = new Set<string>()
  for (const sent of [undefined, 'has space', 'quote"and<angle>', 'line\\nbreak', 'x'.repeat(129), '']) {
    const res = await app.inject({ url: '/api/banks', headers: sent === undefined ? {} : { 'x-request-id': sent } })
    const id = String(res.headers['x-request-id'])
    t.match(id, UUID, `${JSON.stringify(sent)} -> ${id}`)
    seen.add(id)
  }
  t.equal(seen.size, 6, 'every request gets its own id')
  const longest = 'y'.repeat(128)
  t.equal((await app.inject({ url: '/health', headers: { 'x-request-id': longest } })).headers['x-request-id'], longest, '128 characters are still accepted')
})

t.test('every log line is JSON, and each request line carries the request id', async (t) => {
  const { app, lines } = await buildLogged(t, { logLevel: 'info' })
  await app.inject({ url: '/health', headers: { 'x-request-id': 'log-1' } })
  await app.inject({ url: '/api/banks', headers: { 'x-request-id': 'log-2' } })
  await app.inject({ url: TOKEN_PATH, method: 'POST', headers: { 'x-request-id': 'log-3', authorization: BASIC_A, 'content-type': FORM }, payload: 'grant_type=client_credentials' })
  const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  t.ok(entries.length >= 3)
  const completed = entries.filter((e) => e.msg === 'request completed')
  t.same(completed.map((e) => e.reqId), ['log-1', 'log-2', 'log-3'])
  t.match(completed[1], { method: 'GET', url: '/api/banks', statusCode: 401, responseTime: Number, level: 30 })
  const reqLines = entries.filter((e) => 'url' in e || 'statusCode' in e || 'code' in e)
  t.ok(reqLines.every((e) => typeof e.reqId === 'string'), 'no request line without reqId')
  t.ok(entries.some((e) => e.reqId === 'log-2' && e.code === 'SANDBOX_ERR_TOKEN_MISSING'), 'the error line has the id of its request')
})

t.test('at LOG_LEVEL warn no request line is written, and warnings still are', async (t) => {
  const { app, lines } = await buildLogged(t, { logLevel: 'warn' })
  t.equal((await app.inject({ url: '/health' })).statusCode, 200)
  t.equal((await app.inject({ url: '/api/banks' })).statusCode, 401)
  const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  t.same(entries.filter((e) => e.msg === 'request completed'), [], 'no request line')
  t.ok(entries.every((e) => Number(e.level) >= 40), 'nothing below warn')
})

t.test('tokens, client secrets and passwords never appear in the logs, even at trace level', async (t) => {
  const { app, lines } = await buildLogged(t)
  const post = (payload: string, headers: Record<string, string> = { authorization: BASIC_A }) =>
    app.inject({ url: TOKEN_PATH, method: 'POST', headers: { 'content-type': FORM, ...headers }, payload })
  const cc = await post('grant_type=client_credentials&scope=openid')
  t.equal(cc.statusCode, 200)
  const ccToken = cc.json().access_token as string
  const byPost = await post(`grant_type=client_credentials&client_id=partner-a&client_secret=${PARTNER_A.secret}`, {})
  t.equal(byPost.statusCode, 200, 'client_secret_post')
  const pw = await post('grant_type=password&username=alice&password=alice-password&scope=openid')
  t.equal(pw.statusCode, 200)
  const { access_token: userToken, refresh_token: refreshToken } = pw.json() as { access_token: string, refresh_token?: string }
  const wrong = await post('grant_type=password&username=alice&password=not-alices-password-9')
  t.equal(wrong.statusCode, 401, "Keycloak's invalid_grant for wrong user credentials")
  for (const token of [ccToken, userToken]) {
    t.equal((await api(app, { url: '/api/customers', token })).statusCode, 200)
    await api(app, { url: '/api/customers/1001100000001/messages', token, body: MESSAGE })
  }
  await app.inject({ url: `/api/banks?access_token=${ccToken}&page=0` })
  await app.inject({ url: '/auth/realms/sandbox/protocol/openid-connect/userinfo', headers: { authorization: `Bearer ${userToken}` } })
  await app.inject({ url: '/auth/realms/sandbox/protocol/openid-connect/token/introspect', method: 'POST', headers: { authorization: BASIC_A, 'content-type': FORM }, payload: `token=${ccToken}` })
  if (refreshToken !== undefined) await post(`grant_type=refresh_token&refresh_token=${refreshToken}`)
  await app.inject({ url: '/api/banks', headers: { authorization: 'Bearer not.a.real-token-but-secret' } })
  await app.inject({ url: '/__sandbox/admin/reset', method: 'POST', headers: { authorization: 'Bearer operator-token-guess-123' } })
  app.log.info({ password: 'logged-by-mistake-pw', client_secret: 'logged-by-mistake-cs', req: { headers: { authorization: 'Bearer hdr-secret' } } }, 'a careless line')

  const log = lines.join('')
  t.ok(lines.length > 15, `${lines.length} lines captured`)
  const secrets = {
    'client-credentials token': ccToken,
    'password-grant token': userToken,
    'refresh token': refreshToken,
    'client secret': PARTNER_A.secret,
    'user password': 'alice-password',
    'wrong password': 'not-alices-password-9',
    'rejected bearer': 'not.a.real-token-but-secret',
    'operator token guess': 'operator-token-guess-123',
    'password field': 'logged-by-mistake-pw',
    'client_secret field': 'logged-by-mistake-cs',
    'authorization header': 'hdr-secret'
  }
  for (const [what, secret] of Object.entries(secrets)) {
    if (secret === undefined) continue
    t.notOk(log.includes(secret), `no ${what} in the logs`)
    // a JWT's signature alone would do harm too
    if (secret.split('.').length === 3) t.notOk(log.includes(secret.split('.')[2]), `no ${what} signature in the logs`)
  }
  t.match(log, /access_token=\[REDACTED\]/, 'the query parameter is masked, the rest of the URL kept')
  t.ok(REDACT_PATHS.includes('req.headers.authorization'))
})

t.test('a body over the limit is refused with 413 in the error shape', async (t) => {
  const app = await build(t, { bodyLimit: 1024 })
  const url = '/api/customers/1001100000001/messages'
  const small = await api(app, { url, body: MESSAGE })
  t.equal(small.statusCode, 200)
  const res = await api(app, { url, body: { ...MESSAGE, message: 'A'.repeat(2000) }, headers: { 'x-request-id': 'too-big' } })
  t.equal(res.statusCode, 413)
  t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_BODY_TOO_LARGE')
  t.equal(res.headers['x-request-id'], 'too-big')
  t.match(res.json(), { status: 413, error: 'Payload Too Large', message: /1024 bytes/, path: url, errors: [] })
})

t.test('a client that does not finish sending its request in time gets 408 in the error shape and the connection closed', async (t) => {
  const app = await build(t, { requestTimeout: 1000 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const token = await tokenFor(app)
  const socket = await opened((app.server.address() as { port: number }).port)
  const answer = readAll(socket)
  // headers and half the body, then nothing: a stalled client
  socket.write(`POST /api/customers/1001100000001/messages HTTP/1.1\r\nHost: sandbox\r\nAuthorization: Bearer ${token}\r\nAgent-Id: 1001\r\n` +
    'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"message":')
  const text = await answer
  t.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/)
  t.match(text, /\r\nx-request-id: [0-9a-f-]{36}\r\n/)
  t.match(text, /\r\nx-sandbox-error: SANDBOX_ERR_TIMEOUT\r\n/)
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))
  t.match(body, { status: 408, error: 'Request Timeout', message: /request timeout/, errors: [] })
})

t.test('an event loop that falls behind gets 503 with Retry-After in the error shape, then recovers', async (t) => {
  const app = await build(t, { maxEventLoopDelay: 50 })
  t.equal((await app.inject({ url: '/health' })).statusCode, 200)
  let overloaded
  for (let i = 0; i < 10 && overloaded === undefined; i++) {
    // a second of heavy work in 100 ms slices (a start's own work is not counted, so go on past it)
    const end = Date.now() + 1100
    while (Date.now() < end) {
      const slice = Date.now() + 100
      while (Date.now() < slice);
      await new Promise((resolve) => setImmediate(resolve))
    }
    const res = await app.inject({ url: '/api/banks', headers: { 'x-request-id': `busy-${i}` } })
    if (res.statusCode === 503) overloaded = res
  }
  t.ok(overloaded, 'answered 503 while the loop lagged')
  if (overloaded === undefined) return
  t.equal(overloaded.headers['retry-after'], '5')
  t.equal(overloaded.headers['x-sandbox-error'], 'SANDBOX_ERR_OVERLOADED')
  t.match(overloaded.headers['x-request-id'], /^busy-\d+$/)
  t.match(overloaded.json(), { status: 503, error: 'Service Unavailable', message: /overloaded/, path: '/api/banks', errors: [] })
  let recovered = false
  for (let i = 0; i < 50 && !recovered; i++) {
    await sleep(100)
    recovered = (await app.inject({ url: '/health' })).statusCode === 200
  }
  t.ok(recovered, 'answers 200 again once the loop keeps up')
})
