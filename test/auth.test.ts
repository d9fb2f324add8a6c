import { createPublicKey, createHmac, randomUUID } from 'node:crypto'
import t from 'tap'
import type { Test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { anotherKey, api, build, expiryOf, PARTNER_A, PARTNER_B, PUBLIC_URL, resign, shortLivedToken, SIGNING_KEY, TOKEN_PATH, tokenFor, unsigned, userToken } from './helper.js'

const ISSUER = `${PUBLIC_URL}/auth/realms/sandbox`
const AUDIENCE = `${PUBLIC_URL}/api`

// made before any app runs: a key generation blocks the event loop long enough for the overload guard to answer 503
anotherKey()

const b64 = (v: unknown): string => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')

function unauthorized (t: Test, res: LightMyRequestResponse, path: string): void {
  t.equal(res.statusCode, 401)
  t.match(res.headers['www-authenticate'], /^Bearer realm="sandbox", error="invalid_token"/)
  const body = res.json()
  t.match(body, { status: 401, error: 'Unauthorized', path, message: /^Invalid access token/ })
  t.type(body.timestamp, 'string')
  t.notMatch(res.body, /at .*\.ts:\d+/, 'no stack trace')
}

t.test('every bad token is a 401 invalid_token in the Spring error shape', async (t) => {
  const app = await build(t)
  const good = await tokenFor(app)
  const { kid } = decodeProtectedHeader(good) as { kid: string }
  const claims = decodeJwt(good)
  const [h, p, s] = good.split('.')
  // a real token of the shortest lifetime, used once while good (so the verifier has it cached); its case comes last
  const shortLived = await shortLivedToken(t)
  if ((await api(app, { url: '/api/banks', token: shortLived })).statusCode !== 200) throw new Error('the short-lived token was refused while good')

  const pw = await (async () => {
    const res = await app.inject({
      method: 'POST',
      url: TOKEN_PATH,
      headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=password&username=alice&password=alice-password&scope=openid'
    })
    if (res.statusCode !== 200) throw new Error(`password grant: ${res.statusCode} ${res.body}`)
    return res
  })()
  const { id_token: idToken, refresh_token: refreshToken } = pw.json() as { id_token: string, refresh_token: string }

  const publicPem = createPublicKey(SIGNING_KEY).export({ type: 'spki', format: 'pem' }).toString()
  const hsHeader = b64({ alg: 'HS256', typ: 'JWT', kid })
  const hsPayload = b64({ ...claims, jti: randomUUID() })
  const hs256 = `${hsHeader}.${hsPayload}.${createHmac('sha256', publicPem).update(`${hsHeader}.${hsPayload}`).digest('base64url')}`

  await t.test('the forging works: a real token signed again here with the real key, header and claims is accepted', async (t) => {
    t.equal(claims.iss, ISSUER)
    t.same([claims.aud].flat(), [AUDIENCE])
    const res = await api(app, { url: '/api/banks', token: await resign(good) })
    t.equal(res.statusCode, 200, 'so each case below fails for its own reason only')
  })

  await t.test('no token: 401 with the bare Bearer challenge', async (t) => {
    const res = await api(app, { url: '/api/customers', token: null })
    t.equal(res.statusCode, 401)
    t.equal(res.headers['www-authenticate'], 'Bearer realm="sandbox"')
    t.match(res.json(), { status: 401, error: 'Unauthorized', path: '/api/customers', message: String })
    const empty = await api(app, { url: '/api/customers', token: null, headers: { authorization: '' } })
    t.equal(empty.statusCode, 401)
    t.equal(empty.headers['www-authenticate'], 'Bearer realm="sandbox"', 'an empty header is no token')
  })

  const HEADER = /the Authorization header must be/
  const NOT_JWT = /not a JWT access token/
  const SIGNATURE = /signature is invalid/
  const TYP = /header typ must be JWT and claim typ Bearer/
  // [case, Authorization header, why it is refused (the error_description)]
  const cases: Array<[string, string | (() => Promise<string>), RegExp]> = [
    ['Basic scheme', `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, HEADER],
    ['Token scheme', `Token ${good}`, HEADER],
    ['Bearer without a token', 'Bearer ', HEADER],
    ['the token without a scheme', good, HEADER],
    ['garbage', 'Bearer garbage', NOT_JWT],
    ['three garbage parts', 'Bearer aaa.bbb.ccc', NOT_JWT],
    ['non-base64 characters', 'Bearer ä.ö.ü', HEADER],
    ['tampered payload (extra agent, old signature)', `Bearer ${h}.${b64({ ...claims, agent_id: ['1001', '1002', '2001'] })}.${s}`, SIGNATURE],
    ['tampered signature', `Bearer ${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`, SIGNATURE],
    ['wrong issuer', async () => `Bearer ${await resign(good, { claims: { iss: 'http://evil.test/auth/realms/sandbox' } })}`, /wrong iss/],
    ['another realm of the same host', async () => `Bearer ${await resign(good, { claims: { iss: `${PUBLIC_URL}/auth/realms/master` } })}`, /wrong iss/],
    ['wrong audience', async () => `Bearer ${await resign(good, { claims: { aud: 'http://evil.test/api' } })}`, /wrong aud/],
    ['no audience', async () => `Bearer ${await resign(good, { claims: { aud: undefined } })}`, /no aud claim/],
    ['alg none', `Bearer ${unsigned(good)}`, /RS256/],
    ['HS256 signed with the public key as secret', `Bearer ${hs256}`, /RS256/],
    ['signed by another RSA key under the same kid', async () => `Bearer ${await resign(good, { key: anotherKey() })}`, SIGNATURE],
    ['header typ at+jwt instead of JWT', async () => `Bearer ${await resign(good, { header: { typ: 'at+jwt' } })}`, TYP],
    ['claim typ ID (an ID token with the API audience)', async () => `Bearer ${await resign(good, { claims: { typ: 'ID' } })}`, TYP],
    ['claim typ Refresh', async () => `Bearer ${await resign(good, { claims: { typ: 'Refresh' } })}`, TYP],
    ['an ID token', `Bearer ${idToken}`, /no client_id claim/],
    ['a refresh token (HS512)', `Bearer ${refreshToken}`, /RS256/],
    ['a token of a client that does not exist', async () => `Bearer ${await resign(good, { claims: { client_id: 'partner-z', sub: 'partner-z', azp: 'partner-z' } })}`, /client of the access token/],
    ['a token without expiry', async () => `Bearer ${await resign(good, { claims: { exp: undefined } })}`, /no exp claim/],
    ['a real token of 10 s, expired (verified and cached while it was good)', async () => `Bearer ${await expiryOf(shortLived).then(() => shortLived)}`, /expired/]
  ]
  for (const [name, value, why] of cases) {
    await t.test(`${name}: 401 invalid_token`, async (t) => {
      const authorization = typeof value === 'string' ? value : await value()
      for (const url of ['/api/customers', '/api/users/current/customers', '/__sandbox/state']) {
        const res = await api(app, { url, token: null, headers: { authorization } })
        unauthorized(t, res, url)
        t.match(res.headers['www-authenticate'], new RegExp(`error_description="[^"]*${why.source}`), `refused because: ${why.source}`)
      }
    })
  }
})

t.test('a token that was good once stays refused after revocation, cached or not', async (t) => {
  const app = await build(t)
  const token = await tokenFor(app, PARTNER_B)
  t.equal((await api(app, { url: '/api/banks', token, agent: '2001' })).statusCode, 200)
  const revoke = await (async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/auth/realms/sandbox/protocol/openid-connect/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, client_id: PARTNER_B.client, client_secret: PARTNER_B.secret }).toString()
    })
    return res
  })()
  t.equal(revoke.statusCode, 200)
  unauthorized(t, await api(app, { url: '/api/banks', token, agent: '2001' }), '/api/banks')
})

t.test('an Agent-Id that is not bound to the token is a 403 in the error shape', async (t) => {
  const app = await build(t)
  const alice = await userToken(app, 'alice', 'alice-password')
  const bob = await userToken(app, 'bob', 'bob-password', PARTNER_B)
  const cases: Array<[string, string, string]> = [
    ["partner-a's token, partner-b's agent", await tokenFor(app, PARTNER_A), '2001'],
    ["partner-b's token, partner-a's agent", await tokenFor(app, PARTNER_B), '1001'],
    ["alice's token, another agent of her partner", alice, '1002'],
    ["alice's token, partner-b's agent", alice, '2001'],
    ["bob's token, partner-a's agent", bob, '1001'],
    ['an agent that does not exist', await tokenFor(app, PARTNER_A), '9999']
  ]
  for (const [name, token, agent] of cases) {
    for (const url of ['/api/customers', '/api/banks', '/api/users/current/customers']) {
      const res = await api(app, { url, token, agent })
      t.equal(res.statusCode, 403, `${name}: ${url}`)
      t.match(res.json(), { status: 403, error: 'Forbidden', path: url, message: new RegExp(`Agent-Id '${agent}'`) })
    }
  }
  t.equal((await api(app, { url: '/api/customers', token: alice, agent: '1001' })).statusCode, 200, "alice's own agent works")
  t.equal((await api(app, { url: '/api/customers', token: bob, agent: '2001' })).statusCode, 200, "bob's own agent works")
})

t.test('a token without Agent-Id is a 400, not a 403', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/customers', agent: null })
  t.equal(res.statusCode, 400)
})

t.test('4.13 guarantee state is public and ignores any token', async (t) => {
  const app = await build(t)
  const headers: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer garbage' },
    { authorization: 'Basic Zm9vOmJhcg==' },
    { authorization: `Bearer ${await tokenFor(app, PARTNER_B)}`, 'agent-id': '1001' },
    { 'agent-id': '9999' }
  ]
  for (const h of headers) {
    const res = await api(app, { url: '/api/guarantees/GTE-A-0001/state', token: null, agent: null, headers: h })
    t.equal(res.statusCode, 200, JSON.stringify(h))
    t.same(res.json(), { state: 'VALID' })
    t.equal(res.headers['www-authenticate'], undefined)
  }
  const versioned = await api(app, { url: '/4.0/api/guarantees/GTE-B-0001/state', token: null, agent: null, headers: { authorization: 'Bearer x' } })
  t.equal(versioned.statusCode, 200, 'under an older version too')
})

t.test('tokens issued before an agent was created work for it at once', async (t) => {
  const app = await build(t)
  const token = await tokenFor(app, PARTNER_A)
  const alice = await userToken(app, 'alice', 'alice-password')
  const created = await api(app, { method: 'POST', url: '/__sandbox/agents', token, agent: null, body: {} })
  t.equal(created.statusCode, 200)
  const agentId = created.json().agentId as string
  t.notOk((decodeJwt(token).agent_id as string[]).includes(agentId), 'the agent is not in the token')
  const res = await api(app, { url: '/api/customers', token, agent: agentId })
  t.equal(res.statusCode, 200)
  t.ok(res.json().customers.length > 0, 'and it has its data')
  t.equal((await api(app, { url: '/api/customers', token: await tokenFor(app, PARTNER_B), agent: agentId })).statusCode, 403, 'not for another partner')
  t.equal((await api(app, { url: '/api/customers', token: alice, agent: agentId })).statusCode, 403, 'not for a user bound to another agent')
})

t.test('introspection and revocation refuse a malformed client authentication with 401, never a 500', async (t) => {
  const app = await build(t)
  for (const path of ['token/introspect', 'revoke']) {
    for (const credentials of ['%zz:%zz', 'partner-a:%E0%A4%A', 'partner-a', 'partner-a:wrong-secret']) {
      const res = await (async () => {
        const r = await app.inject({
          method: 'POST',
          url: `/auth/realms/sandbox/protocol/openid-connect/${path}`,
          headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'token=x'
        })
        return r
      })()
      t.equal(res.statusCode, 401, `${path} with Basic ${credentials}`)
      t.same(res.json(), { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' })
    }
  }
})
