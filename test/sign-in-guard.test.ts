import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { sameSecret } from '../src/auth/same-secret.js'
import { OPTIONS } from '../src/config.js'
import { PARTNER_A, TOKEN_PATH, build } from './helper.js'

/*
 * Issue 50, "every sign-in resists guessing": every secret check goes through one guard (auth/lockout.ts). The
 * partner console's sign-in counts against the token endpoint's lockout of that client; wrong operator tokens
 * (operator console sign-in, /__sandbox/admin bearer) are counted per source address; while locked the right
 * secret is answered exactly as a wrong one; secrets and CSRF values are compared in constant time.
 */

const ADMIN = 'operator-secret-0123456789'
const FORM = 'application/x-www-form-urlencoded'

const consoleSignIn = async (app: FastifyInstance, clientSecret: string, clientId = PARTNER_A.client): Promise<LightMyRequestResponse> =>
  await app.inject({ method: 'POST', url: '/console/session', payload: { clientId, clientSecret } })

const clientCredentials = async (app: FastifyInstance, secret: string, clientId = PARTNER_A.client): Promise<LightMyRequestResponse> =>
  await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': FORM }, payload: 'grant_type=client_credentials' })

const operatorSignIn = async (app: FastifyInstance, token: string, remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> =>
  await app.inject({ method: 'POST', url: '/console/operator/session', payload: { token }, remoteAddress })

const adminCall = async (app: FastifyInstance, token: string, remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> =>
  await app.inject({ url: '/__sandbox/admin/partners', headers: { authorization: `Bearer ${token}` }, remoteAddress })

/** An answer as a client can compare it: status, body and headers, without what differs from any request to the next (its id, the time). */
function seen (res: LightMyRequestResponse): unknown {
  const { 'x-request-id': _id, date: _date, ...headers } = res.headers
  const body = res.json() as Record<string, unknown>
  delete body.timestamp
  return { status: res.statusCode, body, headers }
}

t.test('the partner console sign-in counts against the token endpoint lockout of the client: twelve wrong secrets, then the right one is refused as a wrong one', async (t) => {
  const app = await build(t, { lockoutFailures: 5, lockoutSeconds: 60 })
  const wrong: LightMyRequestResponse[] = []
  for (let i = 0; i < 12; i++) wrong.push(await consoleSignIn(app, `wrong-secret-${i}`))
  t.same(wrong.map((r) => r.statusCode), Array(12).fill(401), 'twelve wrong secrets: 401')
  const right = await consoleSignIn(app, PARTNER_A.secret)
  t.equal(right.statusCode, 401, 'the right secret is refused while the client is locked')
  t.notOk(right.headers['set-cookie'], 'and opens no session')
  t.same(seen(right), seen(await consoleSignIn(app, 'yet-another-wrong-secret')), 'answered exactly as a wrong secret: status, body and headers')
  const token = await clientCredentials(app, PARTNER_A.secret)
  t.equal(token.statusCode, 401, 'the token endpoint refuses the client too: one lockout')
  t.equal(token.json().error, 'invalid_client')
  t.equal((await consoleSignIn(app, 'partner-b-secret', 'partner-b')).statusCode, 200, 'another client signs in')
})

t.test('wrong secrets at the token endpoint and at the console count together, a success starting the count again', async (t) => {
  const app = await build(t, { lockoutFailures: 3, lockoutSeconds: 60 })
  t.equal((await clientCredentials(app, 'wrong')).statusCode, 401)
  t.equal((await consoleSignIn(app, 'wrong')).statusCode, 401)
  t.equal((await consoleSignIn(app, PARTNER_A.secret)).statusCode, 200, 'two in a row: not locked, and the count starts again')
  t.equal((await clientCredentials(app, 'wrong')).statusCode, 401)
  t.equal((await clientCredentials(app, 'wrong')).statusCode, 401)
  t.equal((await consoleSignIn(app, 'wrong')).statusCode, 401, 'the third in a row, at the console')
  t.equal((await clientCredentials(app, PARTNER_A.secret)).statusCode, 401, 'locked at the token endpoint')
  t.equal((await consoleSignIn(app, PARTNER_A.secret)).statusCode, 401, 'and at the console')
})

t.test('without SANDBOX_LOCKOUT_FAILURES the console is not locked (the developer default)', async (t) => {
  const app = await build(t)
  for (let i = 0; i < 12; i++) await consoleSignIn(app, 'wrong')
  t.equal((await consoleSignIn(app, PARTNER_A.secret)).statusCode, 200)
})

t.test('wrong operator tokens are counted per source address, by default 30 in a row lock it for 60 s: then the right token is answered as a wrong one', async (t) => {
  const failures = OPTIONS.find((o) => o.env === 'SANDBOX_ADDRESS_LOCKOUT_FAILURES')!.default as number
  t.equal(failures, 30, "Keycloak's default of failures")
  t.equal(OPTIONS.find((o) => o.env === 'SANDBOX_ADDRESS_LOCKOUT_SECONDS')!.default, 60, "Keycloak's default wait")
  const app = await build(t, { adminToken: ADMIN })
  const statuses: number[] = []
  // the console's sign-in and the operator endpoints count together
  for (let i = 0; i < failures; i++) statuses.push((i % 2 === 0 ? await operatorSignIn(app, `wrong-${i}`, '198.51.100.7') : await adminCall(app, `wrong-${i}`, '198.51.100.7')).statusCode)
  t.same(statuses, Array(failures).fill(401), `${failures} wrong tokens: 401`)
  for (const [what, send] of [['operator console sign-in', operatorSignIn], ['operator endpoint', adminCall]] as const) {
    const right = await send(app, ADMIN, '198.51.100.7')
    t.equal(right.statusCode, 429, `${what}: the right token from the locked address is refused`)
    t.equal(right.headers['retry-after'], '60', 'with Retry-After')
    t.notOk(right.headers['set-cookie'], 'no session')
    t.same(seen(right), seen(await send(app, 'still-wrong', '198.51.100.7')), `${what}: exactly as a wrong token from it`)
    t.equal((await send(app, ADMIN, '198.51.100.8')).statusCode, 200, `${what}: another address is not locked`)
  }
  t.equal((await app.inject({ url: '/__sandbox/admin/partners', remoteAddress: '198.51.100.7' })).statusCode, 401, 'a request with no token is refused as before, not counted')
})

t.test('a right token starts the count of the address again; SANDBOX_ADDRESS_LOCKOUT_FAILURES=0 turns it off', async (t) => {
  const app = await build(t, { adminToken: ADMIN, addressLockoutFailures: 2 })
  t.equal((await adminCall(app, 'wrong')).statusCode, 401)
  t.equal((await adminCall(app, ADMIN)).statusCode, 200)
  t.equal((await operatorSignIn(app, 'wrong')).statusCode, 401)
  t.equal((await operatorSignIn(app, ADMIN)).statusCode, 200, 'one wrong token in a row: not locked')
  t.equal((await operatorSignIn(app, 'wrong')).statusCode, 401)
  t.equal((await operatorSignIn(app, 'wrong')).statusCode, 401)
  t.equal((await operatorSignIn(app, ADMIN)).statusCode, 429, 'two in a row: locked')
  const off = await build(t, { adminToken: ADMIN, addressLockoutFailures: 0 })
  for (let i = 0; i < 40; i++) await adminCall(off, 'wrong')
  t.equal((await adminCall(off, ADMIN)).statusCode, 200, 'off: never locked')
})

t.test('the lock ends after SANDBOX_ADDRESS_LOCKOUT_SECONDS', async (t) => {
  const app = await build(t, { adminToken: ADMIN, addressLockoutFailures: 1, addressLockoutSeconds: 1 })
  t.equal((await adminCall(app, 'wrong')).statusCode, 401)
  t.equal((await adminCall(app, ADMIN)).statusCode, 429)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  t.equal((await adminCall(app, ADMIN)).statusCode, 200)
})

t.test('secrets are compared in constant time over equal-length digests: any length, any value', async (t) => {
  t.ok(sameSecret('partner-a-secret', 'partner-a-secret'))
  t.notOk(sameSecret('partner-a-secret', 'partner-a-secreT'), 'one character differs')
  t.notOk(sameSecret('partner-a-secret', 'partner-a-secret-and-more'), 'a longer value (no length check that returns early)')
  t.notOk(sameSecret('partner-a-secret', ''), 'empty')
  t.notOk(sameSecret('partner-a-secret', undefined), 'missing (a header not sent)')
  t.notOk(sameSecret('partner-a-secret', ['partner-a-secret', 'x']), 'a repeated header')
})

t.test('a console call that changes state with a wrong or repeated CSRF value is refused', async (t) => {
  const app = await build(t)
  const signIn = await consoleSignIn(app, PARTNER_A.secret)
  const cookie = String(signIn.headers['set-cookie']).split(';')[0]
  const csrf = (signIn.json() as { csrfToken: string }).csrfToken
  const reset = async (headers: Record<string, string | string[]>): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/__sandbox/reset', headers: { cookie, ...headers } })).statusCode
  t.equal(await reset({ 'x-console-csrf': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` }), 401, 'same length, one character off')
  t.equal(await reset({ 'x-console-csrf': `${csrf}${csrf}` }), 401, 'longer')
  t.equal(await reset({}), 401, 'missing')
  t.equal(await reset({ 'x-console-csrf': csrf }), 200, 'the right one')
})
