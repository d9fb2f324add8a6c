import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import t from 'tap'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { api, build, listen, TOKEN_PATH } from './helper.js'

interface Reference { header: Record<string, unknown> | null, claims: Record<string, unknown>, ignore: string[] }
const KEYCLOAK = JSON.parse(readFileSync(new URL('./fixtures/keycloak-tokens.json', import.meta.url), 'utf8')) as {
  userLogin: { access: Reference, id: Reference, refresh: Reference }
  clientCredentials: { access: Reference }
}

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

async function tokenRequest (app: FastifyInstance, form: Record<string, string>, auth = basic('partner-a', 'partner-a-secret')) {
  return await app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString()
  })
}

/** Every header and claim name of the real Keycloak token is in ours (values differ: another realm). */
function sameNames (t: Test, token: string, reference: Reference, kind: string): void {
  if (reference.header !== null) t.same(Object.keys(decodeProtectedHeader(token)).sort(), Object.keys(reference.header).sort(), `${kind}: the JOSE header names are Keycloak's`)
  const ours = decodeJwt(token)
  const missing = Object.keys(reference.claims).filter((name) => !reference.ignore.includes(name) && !(name in ours))
  t.same(missing, [], `${kind}: every claim of Keycloak's token is present`)
  t.equal(ours.typ, reference.claims.typ, `${kind}: typ ${String(reference.claims.typ)}`)
}

t.test('tokens carry the header and claim names of real Keycloak tokens, grant by grant', async (t) => {
  const app = await build(t)
  const pw = await tokenRequest(app, { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'openid' })
  t.equal(pw.statusCode, 200)
  const body = pw.json()
  t.same(Object.keys(body), ['access_token', 'expires_in', 'refresh_expires_in', 'refresh_token', 'token_type', 'id_token', 'not-before-policy', 'session_state', 'scope'], "the token response has Keycloak's fields, in Keycloak's order")
  t.equal(body.token_type, 'Bearer')
  t.equal(body['not-before-policy'], 0)
  t.equal(body.refresh_expires_in, 1800)
  sameNames(t, body.access_token, KEYCLOAK.userLogin.access, 'password access token')
  sameNames(t, body.id_token, KEYCLOAK.userLogin.id, 'password ID token')
  sameNames(t, body.refresh_token, KEYCLOAK.userLogin.refresh, 'password refresh token')
  const at = decodeJwt(body.access_token)
  const id = decodeJwt(body.id_token)
  const rt = decodeJwt(body.refresh_token)
  t.equal(at.sid, body.session_state, 'the session_state of the response is the sid of the tokens')
  t.equal(id.sid, body.session_state)
  t.equal(rt.sid, body.session_state)
  t.equal(id.azp, 'partner-a')
  t.match(id, { name: 'Alice Adams', preferred_username: 'alice', email: 'alice@partner-a.example' }, 'profile claims in the ID token')
  t.equal(decodeProtectedHeader(body.refresh_token).alg, 'HS512', 'refresh tokens are HS512 JWTs, as Keycloak signs them')
  t.same(at.agent_id, ['1001'], 'our agent_id claim stays')
  t.same((at.resource_access as { account: { roles: string[] } }).account.roles, ['manage-account', 'manage-account-links', 'view-profile'])

  await t.test('a refresh gives a Keycloak-shaped access token (its refresh token: the test after this one)', async (t) => {
    const first = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: body.refresh_token })
    t.equal(first.statusCode, 200)
    const refreshed = first.json()
    sameNames(t, refreshed.access_token, KEYCLOAK.userLogin.access, 'refreshed access token')
    t.equal(decodeJwt(refreshed.access_token).sid, body.session_state, 'the same session')
    t.equal((await api(app, { url: '/api/banks', token: refreshed.access_token })).statusCode, 200)
  })

  await t.test('client credentials: a service-account token, no refresh token', async (t) => {
    const res = await tokenRequest(app, { grant_type: 'client_credentials' })
    t.equal(res.statusCode, 200)
    const cc = res.json()
    t.same(Object.keys(cc), ['access_token', 'expires_in', 'refresh_expires_in', 'token_type', 'not-before-policy', 'scope'])
    t.equal(cc.refresh_expires_in, 0)
    sameNames(t, cc.access_token, KEYCLOAK.clientCredentials.access, 'client credentials access token')
    t.same(Object.keys(decodeProtectedHeader(cc.access_token)).sort(), Object.keys(KEYCLOAK.userLogin.access.header!).sort(), 'the header names of every Keycloak RS256 token')
    const c = decodeJwt(cc.access_token)
    t.equal(c.preferred_username, 'service-account-partner-a')
    t.equal(c.client_id, 'partner-a')
  })
})

t.test("every refresh answers a new refresh token, Keycloak-shaped, of the same session and expiry; old and new both keep working (Keycloak's default), over HTTP", async (t) => {
  const { base } = await listen(t)
  const post = async (path: string, form: Record<string, string>): Promise<Response> =>
    await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: basic('partner-a', 'partner-a-secret'), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) })
  const grant = async (form: Record<string, string>): Promise<Record<string, any>> => {
    const res = await post(TOKEN_PATH, form)
    const body = await res.json() as Record<string, any>
    t.equal(res.status, 200, `${form.grant_type}: 200 ${res.status === 200 ? '' : JSON.stringify(body)}`)
    return body
  }
  const refresh = async (token: string): Promise<Record<string, any>> => await grant({ grant_type: 'refresh_token', refresh_token: token })
  const signIn = await grant({ grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'openid' })
  const first = signIn.refresh_token as string
  const refreshed = await refresh(first)
  const second = refreshed.refresh_token as string
  t.type(second, 'string')
  t.not(second, first, 'a new refresh token')
  sameNames(t, second, KEYCLOAK.userLogin.refresh, 'the new refresh token')
  t.same(decodeProtectedHeader(second), decodeProtectedHeader(first), 'the same JOSE header: HS512 with the realm key')
  const [a, b] = [decodeJwt(first), decodeJwt(second)]
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
  t.match(a.jti, UUID, "jti is a UUID, as Keycloak's")
  t.match(b.jti, UUID)
  t.not(b.jti, a.jti, 'a jti of its own')
  t.ok(Number(b.iat) >= Number(a.iat), 'issued now')
  t.same({ sid: b.sid, sub: b.sub, azp: b.azp, scope: b.scope, iss: b.iss, aud: b.aud }, { sid: a.sid, sub: a.sub, azp: a.azp, scope: a.scope, iss: a.iss, aud: a.aud }, 'the same session, user, client and scope')
  t.equal(refreshed.session_state, signIn.session_state)
  t.equal(b.exp, a.exp, 'the expiry of the sign-in: a refresh does not extend the session')
  t.ok(refreshed.refresh_expires_in <= signIn.refresh_expires_in && refreshed.refresh_expires_in >= Number(b.exp) - Math.ceil(Date.now() / 1000), 'refresh_expires_in counts down to that expiry')

  const fromOld = await refresh(first)
  const fromNew = await refresh(second)
  t.equal(new Set([first, second, fromOld.refresh_token, fromNew.refresh_token]).size, 4, 'the old and the new one both still work, and each answer has a refresh token of its own')
  for (const body of [refreshed, fromOld, fromNew]) {
    const res = await fetch(`${base}/api/users/current/customers`, { headers: { authorization: `Bearer ${String(body.access_token)}`, 'agent-id': '1001' } })
    t.equal(res.status, 200, "each refreshed access token opens the API for alice's agent")
  }

  t.equal((await post('/auth/realms/sandbox/protocol/openid-connect/logout', { refresh_token: fromNew.refresh_token })).status, 204, 'a logout with the newest one ends the session')
  for (const token of [first, second]) {
    t.equal((await post(TOKEN_PATH, { grant_type: 'refresh_token', refresh_token: token })).status, 400, 'and with it every refresh token of that sign-in')
  }
})

t.test("token endpoint errors have Keycloak's wording and status codes", async (t) => {
  const app = await build(t)
  const signIn = await tokenRequest(app, { grant_type: 'password', username: 'alice', password: 'alice-password' })
  // a real refresh token with one thing changed: signed with another HMAC key
  const [rh, rp] = String(signIn.json().refresh_token).split('.')
  const forgedRefresh = `${rh}.${rp}.${createHmac('sha512', 'not the realm key').update(`${rh}.${rp}`).digest('base64url')}`
  const cases: Array<[string, Record<string, string>, string | undefined, number, string, string]> = [
    ['a wrong client secret', { grant_type: 'client_credentials' }, basic('partner-a', 'wrong'), 401, 'invalid_client', 'Invalid client or Invalid client credentials'],
    ['an unknown client', { grant_type: 'client_credentials' }, basic('partner-z', 'x'), 401, 'invalid_client', 'Invalid client or Invalid client credentials'],
    ['a wrong password', { grant_type: 'password', username: 'alice', password: 'nope' }, undefined, 401, 'invalid_grant', 'Invalid user credentials'],
    ['an unknown user', { grant_type: 'password', username: 'nobody', password: 'nope' }, undefined, 401, 'invalid_grant', 'Invalid user credentials'],
    ['a refresh token that is no JWT', { grant_type: 'refresh_token', refresh_token: 'opaque' }, undefined, 400, 'invalid_grant', 'Invalid refresh token'],
    ['a forged refresh JWT (a real one signed with another key)', { grant_type: 'refresh_token', refresh_token: forgedRefresh }, undefined, 400, 'invalid_grant', 'Invalid refresh token'],
    ['an unknown code', { grant_type: 'authorization_code', code: 'nope', redirect_uri: 'http://sandbox.test/api/docs/apidocs/static/oauth2-redirect.html' }, undefined, 400, 'invalid_grant', 'Code not valid'],
    ['an unknown grant type', { grant_type: 'urn:example:nothing' }, undefined, 400, 'unsupported_grant_type', 'Unsupported grant_type'],
    ['an unknown scope', { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'openid bogus' }, undefined, 400, 'invalid_scope', 'Invalid scopes: bogus']
  ]
  for (const [name, form, auth, status, error, description] of cases) {
    const res = await tokenRequest(app, form, auth)
    t.equal(res.statusCode, status, `${name}: ${status}`)
    t.same(res.json(), { error, error_description: description }, `${name}: ${error} "${description}"`)
  }
})

t.test('lockout: after N wrong secrets or passwords the client or user is refused for the configured seconds, even with the right one', async (t) => {
  const app = await build(t, { lockoutFailures: 3, lockoutSeconds: 1 })
  const wrongSecret = basic('partner-b', 'wrong')
  const rightSecret = basic('partner-b', 'partner-b-secret')
  for (let i = 0; i < 3; i++) t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, wrongSecret)).statusCode, 401)
  const locked = await tokenRequest(app, { grant_type: 'client_credentials' }, rightSecret)
  t.equal(locked.statusCode, 401, 'the right secret is refused while locked')
  t.same(locked.json(), { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' }, 'answered as a wrong secret, as Keycloak does')
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' })).statusCode, 200, 'another client is not affected')

  for (let i = 0; i < 3; i++) t.equal((await tokenRequest(app, { grant_type: 'password', username: 'alice', password: 'nope' })).statusCode, 401)
  const user = await tokenRequest(app, { grant_type: 'password', username: 'alice', password: 'alice-password' })
  t.equal(user.statusCode, 401, 'the right password is refused while the user is locked')
  t.same(user.json(), { error: 'invalid_grant', error_description: 'Invalid user credentials' })

  await new Promise((resolve) => setTimeout(resolve, 1100))
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, rightSecret)).statusCode, 200, 'the client works again after the lock')
  t.equal((await tokenRequest(app, { grant_type: 'password', username: 'alice', password: 'alice-password' })).statusCode, 200, 'so does the user')
})

t.test('lockout is off by default: many wrong passwords do not lock a user', async (t) => {
  const app = await build(t)
  for (let i = 0; i < 12; i++) await tokenRequest(app, { grant_type: 'password', username: 'alice', password: 'nope' })
  t.equal((await tokenRequest(app, { grant_type: 'password', username: 'alice', password: 'alice-password' })).statusCode, 200)
})
