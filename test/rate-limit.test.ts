import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, tokenFor, PARTNER_B, TOKEN_PATH } from './helper.js'

async function get (app: FastifyInstance, url: string, token: string | null, agent = '1001'): Promise<LightMyRequestResponse> {
  return await app.inject({ url, headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), 'agent-id': agent } })
}

t.test('without SANDBOX_RATE_LIMIT nothing is limited and no RateLimit header is sent', async (t) => {
  const app = await build(t)
  const token = await tokenFor(app)
  const answers = await Promise.all(Array.from({ length: 60 }, async () => await get(app, '/api/banks', token)))
  t.same([...new Set(answers.map((r) => r.statusCode))], [200])
  t.equal(answers[0].headers['ratelimit-limit'], undefined)
})

t.test("a partner over SANDBOX_RATE_LIMIT gets 429 in the error shape with Retry-After and RateLimit headers; another partner's requests are untouched", async (t) => {
  const app = await build(t, { rateLimit: 5 })
  const a = await tokenFor(app)
  const b = await tokenFor(app, PARTNER_B)
  const started = Date.now()
  const timed = async (url: string): Promise<LightMyRequestResponse & { ms: number }> => {
    const res = await get(app, url, a)
    return Object.assign(res, { ms: Date.now() - started })
  }
  // at once, in one window: five are served, the rest refused (the API and the control API together)
  const answers = await Promise.all(Array.from({ length: 8 }, async (_, i) => await timed(i % 2 === 0 ? '/api/banks' : '/__sandbox/state')))
  t.same(answers.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 200, 429, 429, 429], 'five per second')
  const refusedOnes = answers.filter((r) => r.statusCode === 429)
  const servedOnes = answers.filter((r) => r.statusCode === 200)
  t.ok(Math.min(...refusedOnes.map((r) => r.ms)) >= Math.max(...servedOnes.map((r) => r.ms)), 'the refusals are answered after the served requests')
  t.ok(Math.min(...refusedOnes.map((r) => r.ms)) >= 500, `refusals are held until the window ends (${refusedOnes.map((r) => r.ms).join(', ')} ms)`)
  answers.sort((x, y) => x.statusCode - y.statusCode)
  t.match(answers[0].headers, { 'ratelimit-limit': '5', 'ratelimit-remaining': /^[0-4]$/, 'ratelimit-reset': /^[01]$/ })
  const refused = refusedOnes.find((r) => r.json().path === '/__sandbox/state') ?? refusedOnes[0]
  t.equal(refused.headers['x-sandbox-error'], 'SANDBOX_ERR_RATE_LIMITED')
  t.match(refused.headers, { 'retry-after': '1', 'ratelimit-limit': '5', 'ratelimit-remaining': '0' })
  t.same(Object.keys(refused.json()).sort(), ['error', 'errors', 'message', 'path', 'status', 'timestamp'])
  t.match(refused.json(), { status: 429, error: 'Too Many Requests', path: /^\/(api\/banks|__sandbox\/state)$/, message: /partner 'partner-a' may make 5 requests per second; retry after 1 second/, errors: [] })
  t.equal(refused.headers['x-content-type-options'], 'nosniff', 'with the security headers like every answer')

  t.equal((await get(app, '/api/banks', b, '2001')).statusCode, 200, 'partner-b has its own budget')
  // the refusals were held until the window ended: the partner is served again at once
  t.equal((await get(app, '/api/banks', a)).statusCode, 200, 'served again in the next second')
})

t.test('a refused request is refused before validation and changes nothing', async (t) => {
  const app = await build(t, { rateLimit: 1 })
  const a = await tokenFor(app)
  t.equal((await get(app, '/api/banks', a)).statusCode, 200)
  const before = app.world.partner('partner-a')!.recordCount
  const create = await app.inject({
    method: 'POST',
    url: '/api/customers/1001100000001/messages',
    headers: { authorization: `Bearer ${a}`, 'agent-id': '1001', 'content-type': 'application/json' },
    payload: '{"not json'
  })
  t.equal(create.statusCode, 429, 'not a 400: the body was never read')
  t.equal(app.world.partner('partner-a')!.recordCount, before)
})

t.test('requests without a partner are counted per address; bad tokens are refused before the limiter; operator endpoints are not limited', async (t) => {
  const app = await build(t, { rateLimit: 2, adminToken: 'operator-secret-0123456789' })
  const codes = []
  for (let i = 0; i < 3; i++) codes.push((await get(app, '/api/guarantees/VALID-1/state', null)).statusCode)
  t.same(codes, [200, 200, 429], 'spec 4.13 needs no token: counted against the address')
  for (let i = 0; i < 3; i++) t.equal((await get(app, '/api/banks', 'not-a-token')).statusCode, 401)
  for (let i = 0; i < 4; i++) {
    const res = await app.inject({ url: '/__sandbox/admin/partners', headers: { authorization: 'Bearer operator-secret-0123456789' } })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['ratelimit-limit'], undefined)
  }
})

/** A client_credentials token request: HTTP Basic, or the credentials in the form (client_secret_post). */
async function tokenRequest (app: FastifyInstance, client: string, secret: string, basic = true): Promise<LightMyRequestResponse> {
  const form = 'grant_type=client_credentials&scope=openid'
  return await app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(basic ? { authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}` } : {}) },
    payload: basic ? form : `${form}&client_id=${client}&client_secret=${secret}`
  })
}

/** Early in a second: the requests of a test then fall in one one-second window. */
async function startOfSecond (): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20))
}

t.test('a client over SANDBOX_TOKEN_RATE_LIMIT gets 429 with Retry-After before anything is signed; others and the API are untouched', async (t) => {
  const app = await build(t, { tokenRateLimit: 3 })
  const apiToken = await tokenFor(app)
  await startOfSecond()
  const a = await Promise.all(Array.from({ length: 5 }, async () => await tokenRequest(app, 'partner-a', 'partner-a-secret')))
  t.same(a.map((r) => r.statusCode).sort(), [200, 200, 200, 429, 429], 'three tokens per second for partner-a')
  const refused = a.find((r) => r.statusCode === 429)!
  t.equal(refused.headers['x-sandbox-error'], 'SANDBOX_ERR_RATE_LIMITED')
  t.match(refused.headers, { 'retry-after': '1', 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'cache-control': /no-store/ })
  t.match(refused.json(), { status: 429, error: 'Too Many Requests', path: TOKEN_PATH, message: /client 'partner-a' may ask for 3 tokens per second; retry after 1 second/, errors: [] })
  t.notOk('access_token' in refused.json())
  t.equal((await tokenRequest(app, 'partner-b', 'partner-b-secret')).statusCode, 200, 'partner-b has a budget of its own')
  t.equal((await get(app, '/api/banks', apiToken)).statusCode, 200, 'API requests are not counted here')
  t.equal((await tokenRequest(app, 'partner-a', 'wrong-secret')).statusCode, 401, "a wrong secret naming partner-a does not spend partner-a's budget (it counts against its address)")
  t.equal((await app.inject({ url: '/auth/realms/sandbox/.well-known/openid-configuration' })).statusCode, 200, 'other identity provider endpoints are not limited')

  await startOfSecond()
  t.equal((await tokenRequest(app, 'partner-a', 'partner-a-secret')).statusCode, 200, 'the next second has a fresh budget')
  const posted = await Promise.all(Array.from({ length: 4 }, async () => await tokenRequest(app, 'partner-b', 'partner-b-secret', false)))
  t.same(posted.map((r) => r.statusCode).sort(), [200, 200, 200, 429], 'client_secret_post requests count against their address')
  const requests = (await app.inject({ url: '/__sandbox/requests', headers: { authorization: `Bearer ${apiToken}` } })).json().requests as Array<{ status: number, url: string }>
  t.ok(requests.some((r) => r.status === 429 && r.url === TOKEN_PATH), "the refusal is in partner-a's journal")
})

t.test('without SANDBOX_TOKEN_RATE_LIMIT token requests are not limited', async (t) => {
  const app = await build(t)
  const answers = await Promise.all(Array.from({ length: 12 }, async () => await tokenRequest(app, 'partner-a', 'partner-a-secret')))
  t.same([...new Set(answers.map((r) => r.statusCode))], [200])
})
