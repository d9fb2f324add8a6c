import t, { type Test } from 'tap'
import { api, build, listen, tokenFor } from './helper.js'
import { rawExchange, type RawAnswer } from './raw-http.js'

const SPRING_SECURITY_HEADERS = {
  'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
  pragma: 'no-cache',
  expires: '0',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-xss-protection': '0'
}

/** An answer written on the socket: the error shape, X-Sandbox-Error, a request id, the given path. */
function assertRawError (t: Test, res: RawAnswer, status: number, code: string, path: string): void {
  t.equal(res.status, status, `answers ${status}`)
  t.equal(res.headers['x-sandbox-error'], code)
  t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/)
  t.match(res.headers['content-type'], /^application\/json/)
  const body = JSON.parse(res.body)
  t.same(Object.keys(body).sort(), ['error', 'errors', 'message', 'path', 'status', 'timestamp'])
  t.match(body, { status, path, errors: [] })
  t.match(res.headers, SPRING_SECURITY_HEADERS, "Spring Security's headers")
}

t.test('requests the HTTP parser refuses are answered in the error shape with X-Sandbox-Error and the path of their request line', async (t) => {
  const { app } = await listen(t)
  const port = (app.server.address() as { port: number }).port
  const big = await rawExchange(port, `GET /api/banks?page=0 HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`)
  assertRawError(t, big, 431, 'SANDBOX_ERR_HEADERS_TOO_LARGE', '/api/banks')
  const malformed: Record<string, string> = {
    'a bare LF': 'GET /api/banks HTTP/1.1\nHost: a\n\n',
    'a NUL in a header': 'GET /api/banks HTTP/1.1\r\nHost: a\r\nX-Test: a\0b\r\n\r\n',
    'both Content-Length and Transfer-Encoding': 'POST /api/customers HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    'a bad chunk size': 'POST /api/customers HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer x\r\nAgent-Id: 1001\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'
  }
  for (const [what, data] of Object.entries(malformed)) {
    const res = await rawExchange(port, data)
    t.test(what, async (t) => {
      // a bad chunk arrives after the headers: the request may be answered first (401), the bad chunk then
      const answers = res.text.split(/(?=HTTP\/1\.1 )/)
      const last = answers.length > 1 ? await rawExchange(port, data) : res
      const final = answers.length > 1 ? { ...last, ...parseLast(answers[answers.length - 1]) } : res
      assertRawError(t, final, 400, 'SANDBOX_ERR_MALFORMED_HTTP', /customers/.test(data) ? '/api/customers' : '/api/banks')
      t.equal(final.headers.connection, 'close')
    })
  }
  const garbage = await rawExchange(port, 'G@RBAGE\r\n\r\n')
  assertRawError(t, garbage, 400, 'SANDBOX_ERR_MALFORMED_HTTP', '')
})

function parseLast (answer: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const head = answer.indexOf('\r\n\r\n')
  const lines = answer.slice(0, head).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim()
  return { status: Number(lines[0].split(' ')[1]), headers, body: answer.slice(head + 4) }
}

t.test('a request without Host gets a 400 with a body in the error shape, and the connection closes', async (t) => {
  const { app } = await listen(t)
  const port = (app.server.address() as { port: number }).port
  const res = await rawExchange(port, 'GET /api/banks HTTP/1.1\r\n\r\n')
  assertRawError(t, res, 400, 'SANDBOX_ERR_MALFORMED_HTTP', '/api/banks')
  t.match(JSON.parse(res.body).message, /Host/)
  t.equal(res.headers.connection, 'close')
  const old = await rawExchange(port, 'GET /health HTTP/1.0\r\n\r\n')
  t.equal(old.status, 200, 'HTTP/1.0 needs no Host')
})

t.test('answers to HEAD carry no body, the parser\'s refusals included', async (t) => {
  const { app } = await listen(t)
  const port = (app.server.address() as { port: number }).port
  for (const data of [
    'HEAD /api/banks HTTP/1.1\r\nHost: a\r\nX-Test: a\0b\r\n\r\n',
    `HEAD /api/banks HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`,
    'HEAD /api/banks HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    'HEAD /nowhere HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    'HEAD /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'
  ]) {
    const res = await rawExchange(port, data)
    t.ok(res.status >= 200, `${data.slice(0, 20)} answered ${res.status}`)
    t.equal(res.body, '', `${data.slice(0, 20)}: no body`)
    t.equal(res.ended, 'closed')
  }
})

t.test("the docs' static route answers a path that climbs out of it with 404 in the error shape, encoded or not", async (t) => {
  const { app } = await listen(t)
  const port = (app.server.address() as { port: number }).port
  // (first: the first request of the docs loads Swagger UI, longer than the raw exchanges wait on a loaded machine)
  t.equal((await app.inject({ url: '/api/docs/apidocs/static/index.css' })).statusCode, 200, 'a real static file is served')
  // over a socket: a client library (and inject) would normalise the '../' away before sending
  for (const url of ['/api/docs/apidocs/static/../package.json', '/api/docs/apidocs/static/../../../package.json', '/api/docs/apidocs/static/..%2fpackage.json', '/api/docs/apidocs/static/..%2f..%2fpackage.json', '/api/docs/apidocs/static/nothing-here.js']) {
    const res = await rawExchange(port, `GET ${url} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`)
    t.equal(res.status, 404, url)
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_ROUTE_NOT_FOUND', url)
    t.equal(res.headers.allow, undefined, `${url}: no Allow`)
    t.match(JSON.parse(res.body), { status: 404, error: 'Not Found', path: url })
  }
})

t.test("every answer carries Spring Security's default headers; the docs' static files keep their own caching", async (t) => {
  const app = await build(t)
  const token = await tokenFor(app)
  const answers = [
    await api(app, { url: '/api/banks' }),
    await api(app, { url: '/api/customers/1001100000001' }),
    await api(app, { url: '/api/customers/9' }),
    await api(app, { url: '/api/banks', token: null }),
    await app.inject({ url: '/nowhere' }),
    await app.inject({ url: '/health' }),
    await app.inject({ url: '/api/guarantees/VALID-1/state' }),
    await app.inject({ url: '/__sandbox/state', headers: { authorization: `Bearer ${token}` } }),
    await app.inject({ url: '/api/docs/apidocs/openapi.json' }),
    await app.inject({ url: '/auth/realms/sandbox/.well-known/openid-configuration' }),
    // answered by the identity provider on the raw response, past Fastify's reply
    await app.inject({ url: '/auth/realms/sandbox/protocol/openid-connect/token', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=partner-a&client_secret=partner-a-secret' }),
    await app.inject({ url: '/auth/realms/sandbox/protocol/openid-connect/token', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=partner-a&client_secret=wrong' })
  ]
  for (const res of answers) {
    // a token response is never cached: the provider's no-store (as Keycloak's) replaces Spring's value
    const expected = answers.indexOf(res) >= answers.length - 2 ? { ...SPRING_SECURITY_HEADERS, 'cache-control': 'no-store' } : SPRING_SECURITY_HEADERS
    t.match(res.headers, expected, `${res.statusCode} ${res.headers['content-type']}`)
    t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/, `${res.statusCode} ${res.headers['content-type']}: a request id`)
  }
  t.same(answers.slice(-2).map((r) => r.statusCode), [200, 401])
  const page = await app.inject({ url: '/api/docs/apidocs/static/index.html' })
  t.equal(page.headers['x-frame-options'], 'DENY', 'the docs page cannot be framed')
  const asset = await app.inject({ url: '/api/docs/apidocs/static/swagger-ui.css' })
  t.equal(asset.statusCode, 200)
  t.match(asset.headers, { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'x-xss-protection': '0', etag: String })
  t.equal(asset.headers['cache-control'], 'public, max-age=0', 'revalidated on every use, as the static file server sends')
  t.equal(asset.headers.pragma, undefined)
  t.equal(asset.headers.expires, undefined)
})

t.test('CONNECT and an over-long path segment are answered in the error shape with their own codes', async (t) => {
  const { app } = await listen(t)
  const port = (app.server.address() as { port: number }).port
  const connect = await rawExchange(port, 'CONNECT /api/banks HTTP/1.1\r\nHost: a\r\n\r\n', 2000, true)
  assertRawError(t, connect, 405, 'SANDBOX_ERR_METHOD_NOT_ALLOWED', '/api/banks')
  t.equal(connect.ended, 'closed')
  const long = `/api/customers/${'9'.repeat(9000)}`
  const res = await rawExchange(port, `GET ${long} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`)
  t.equal(res.status, 414)
  t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_URI_TOO_LONG', 'the code of its status, not SANDBOX_ERR_VALIDATION')
  t.match(JSON.parse(res.body), { status: 414, error: 'URI Too Long', path: long })
})
