import t from 'tap'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import * as client from 'openid-client'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { listen } from '../helper.js'
import { browse, follow, Jar, signInAt } from './flow.js'

interface Running { app: FastifyInstance, base: string, issuer: URL }

/** The real app listening on 127.0.0.1, with the issuer clients discover; closed when the test ends. */
async function running (t: Test, overrides: Record<string, unknown> = {}): Promise<Running> {
  const { app, base } = await listen(t, overrides)
  return { app, base, issuer: new URL(`${base}/auth/realms/sandbox`) }
}

async function discover (issuer: URL, id: string, secret: string, auth: client.ClientAuth = client.ClientSecretBasic(secret)): Promise<client.Configuration> {
  return await client.discovery(issuer, id, secret, auth, { execute: [client.allowInsecureRequests] })
}

/** A call of the API as a partner's code makes it, over HTTP. */
async function callApi (base: string, path: string, token: string, agent = '1001'): Promise<{ status: number, headers: Headers, body: any }> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, 'agent-id': agent } })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }
}

/** The OAuth error code a request failed with ('none' when it succeeded). */
async function oauthError (p: Promise<unknown>): Promise<string> {
  type Failure = { error?: string, code?: string, cause?: Array<{ parameters?: { error?: string } }> }
  // a 401 with a WWW-Authenticate challenge carries the code in the challenge
  return await p.then(() => 'none', (err: Failure) => err.error ?? (Array.isArray(err.cause) ? err.cause[0]?.parameters?.error : undefined) ?? err.code ?? String(err))
}

const KEYCLOAK = '/auth/realms/sandbox/protocol/openid-connect'

t.test('the sandbox speaks OpenID Connect to a real client over HTTP', async (t) => {
  const { base, issuer } = await running(t)
  const partnerA = await discover(issuer, 'partner-a', 'partner-a-secret')
  const redirectUri = `${base}/api/docs/apidocs/static/oauth2-redirect.html`

  await t.test('discovery names the issuer, the endpoints at Keycloak paths and every grant', async (t) => {
    const meta = partnerA.serverMetadata()
    t.equal(meta.issuer, issuer.href)
    t.equal(meta.authorization_endpoint, `${base}${KEYCLOAK}/auth`)
    t.equal(meta.token_endpoint, `${base}${KEYCLOAK}/token`)
    t.equal(meta.jwks_uri, `${base}${KEYCLOAK}/certs`)
    t.equal(meta.userinfo_endpoint, `${base}${KEYCLOAK}/userinfo`)
    t.equal(meta.introspection_endpoint, `${base}${KEYCLOAK}/token/introspect`)
    t.equal(meta.revocation_endpoint, `${base}${KEYCLOAK}/revoke`)
    t.equal(meta.end_session_endpoint, `${base}${KEYCLOAK}/logout`)
    for (const g of ['client_credentials', 'authorization_code', 'refresh_token', 'password']) {
      t.ok(meta.grant_types_supported?.includes(g), `grant ${g} is advertised`)
    }
    t.ok(meta.code_challenge_methods_supported?.includes('S256'), 'PKCE S256')
    t.ok(meta.token_endpoint_auth_methods_supported?.includes('client_secret_basic'))
    t.ok(meta.token_endpoint_auth_methods_supported?.includes('client_secret_post'))
    const jwks = await (await fetch(meta.jwks_uri!)).json() as { keys: Array<Record<string, unknown>> }
    t.equal(jwks.keys.length, 1)
    t.match(jwks.keys[0], { kty: 'RSA', alg: 'RS256', use: 'sig', kid: String })
    t.notOk('d' in jwks.keys[0], 'no private part is published')
  })

  const tokens: Record<string, string> = {}

  await t.test('client credentials with client_secret_basic give an RS256 access token with Keycloak claims', async (t) => {
    const res = await client.clientCredentialsGrant(partnerA, { scope: 'openid' })
    t.equal(res.token_type.toLowerCase(), 'bearer')
    t.equal(res.expires_in, 300, 'default lifetime: 5 minutes')
    t.equal(res.refresh_token, undefined, 'no refresh token for a client')
    const header = decodeProtectedHeader(res.access_token)
    t.match(header, { alg: 'RS256', typ: 'JWT', kid: String })
    const c = decodeJwt(res.access_token)
    t.equal(c.iss, issuer.href)
    t.same([c.aud].flat(), [`${base}/api`])
    t.equal(c.sub, 'partner-a')
    t.equal(c.azp, 'partner-a')
    t.equal(c.preferred_username, 'service-account-partner-a')
    t.same(c.agent_id, ['1001', '1002'], 'the partner agents, as strings')
    t.ok((c.realm_access as { roles: string[] }).roles.length > 0, 'realm_access.roles')
    t.type(c.scope, 'string')
    t.equal(Number(c.exp) - Number(c.iat), 300)
    tokens.clientBasic = res.access_token
  })

  await t.test('client credentials with client_secret_post are accepted too', async (t) => {
    const post = await discover(issuer, 'partner-a', 'partner-a-secret', client.ClientSecretPost('partner-a-secret'))
    const res = await client.clientCredentialsGrant(post, { scope: 'openid' })
    t.equal(decodeJwt(res.access_token).azp, 'partner-a')
    tokens.clientPost = res.access_token
  })

  await t.test('a wrong client secret is refused by the token endpoint', async (t) => {
    const wrong = await discover(issuer, 'partner-a', 'not-the-secret')
    const err = await client.clientCredentialsGrant(wrong, { scope: 'openid' }).then(() => undefined, (e: unknown) => e as { status?: number, response?: Response })
    t.equal(err?.status, 401)
    t.match(await err?.response?.json(), { error: 'invalid_client' })
  })

  await t.test('authorization code + PKCE goes through an accessible login form', async (t) => {
    const verifier = client.randomPKCECodeVerifier()
    const state = client.randomState()
    const authUrl = client.buildAuthorizationUrl(partnerA, {
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state
    })
    t.equal(authUrl.pathname, `${KEYCLOAK.replace('/protocol/openid-connect', '')}/protocol/openid-connect/auth`)
    const jar = new Jar()
    const first = await follow(jar, await browse(jar, authUrl), authUrl, redirectUri)
    const loginUrl = first.url
    t.equal(first.res.status, 200, 'the login page is shown')
    t.match(first.res.headers.get('content-type'), /^text\/html/)
    t.ok(loginUrl.pathname.startsWith('/auth/realms/sandbox/login/'), 'the login page is in the realm')
    const html = await first.res.text()
    t.match(html, /<html lang="en">/)
    t.match(html, /<form method="post"/)
    t.match(html, /<label for="username">/)
    t.match(html, /<input id="username" name="username"/)
    t.match(html, /<label for="password">/)
    t.match(html, /<input id="password" name="password" type="password"/)
    t.match(html, /<button type="submit">/)

    const form = (username: string, password: string): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username, password }).toString()
    })
    const wrong = await browse(jar, loginUrl, form('alice', 'not-her-password'))
    t.ok(wrong.status < 500, `a wrong password is no crash (${wrong.status})`)
    const wrongHtml = await wrong.text()
    t.match(wrongHtml, /role="alert"[^>]*>Invalid username or password/)
    t.match(wrongHtml, /value="alice"/, 'the username is kept')
    t.notMatch(wrongHtml, /not-her-password/, 'the password is not echoed')

    const posted = await browse(jar, loginUrl, form('alice', 'alice-password'))
    t.equal(posted.status, 303)
    const done = await follow(jar, posted, loginUrl, redirectUri)
    t.ok(done.url.href.startsWith(redirectUri), `back at the redirect URI: ${done.url.href}`)
    t.equal(done.url.searchParams.get('state'), state)
    t.type(done.url.searchParams.get('code'), 'string')

    const res = await client.authorizationCodeGrant(partnerA, done.url, { pkceCodeVerifier: verifier, expectedState: state })
    const c = decodeJwt(res.access_token)
    t.equal(c.preferred_username, 'alice')
    t.same(c.agent_id, ['1001'])
    t.equal(c.azp, 'partner-a')
    t.type(res.refresh_token, 'string', 'a refresh token comes with the code')
    t.equal(res.claims()?.sub, c.sub, 'the ID token names the same user')
    tokens.code = res.access_token
  })

  /** The code flow as a browser does it, for alice; the URL the provider sends her back to. */
  async function signIn (challenge: string): Promise<URL> {
    const authUrl = client.buildAuthorizationUrl(partnerA, { redirect_uri: redirectUri, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' })
    return await signInAt(authUrl, redirectUri, 'alice', 'alice-password')
  }

  await t.test('a code cannot be redeemed without its PKCE verifier', async (t) => {
    const verifier = client.randomPKCECodeVerifier()
    const back = await signIn(await client.calculatePKCECodeChallenge(verifier))
    t.equal(await oauthError(client.authorizationCodeGrant(partnerA, back, { pkceCodeVerifier: client.randomPKCECodeVerifier() })), 'invalid_grant')
  })

  await t.test('a code is used once; replaying it revokes what it gave', async (t) => {
    const verifier = client.randomPKCECodeVerifier()
    const back = await signIn(await client.calculatePKCECodeChallenge(verifier))
    const res = await client.authorizationCodeGrant(partnerA, back, { pkceCodeVerifier: verifier })
    t.equal((await callApi(base, '/api/banks', res.access_token)).status, 200)
    t.equal(await oauthError(client.authorizationCodeGrant(partnerA, back, { pkceCodeVerifier: verifier })), 'invalid_grant')
    t.equal((await callApi(base, '/api/banks', res.access_token)).status, 401, 'RFC 6749 4.1.2: tokens of a replayed code are revoked')
    t.equal(await oauthError(client.refreshTokenGrant(partnerA, res.refresh_token!)), 'invalid_grant')
  })

  let refresh = ''
  await t.test('the password grant (direct access) gives a user token and a refresh token', async (t) => {
    const res = await client.genericGrantRequest(partnerA, 'password', { username: 'alice', password: 'alice-password', scope: 'openid' })
    const header = decodeProtectedHeader(res.access_token)
    t.match(header, { alg: 'RS256', typ: 'JWT', kid: String })
    const c = decodeJwt(res.access_token)
    t.equal(c.iss, issuer.href)
    t.same([c.aud].flat(), [`${base}/api`])
    t.equal(c.azp, 'partner-a')
    t.equal(c.preferred_username, 'alice')
    t.same(c.agent_id, ['1001'])
    t.ok((c.realm_access as { roles: string[] }).roles.length > 0)
    t.match(c.scope, /openid/)
    t.not(c.sub, 'partner-a', 'the subject is the user')
    t.equal(Number(c.exp) - Number(c.iat), 300)
    t.type(res.refresh_token, 'string')
    t.type(res.id_token, 'string')
    tokens.password = res.access_token
    refresh = res.refresh_token!
  })

  await t.test('a wrong password is an invalid_grant, not a crash', async (t) => {
    t.equal(await oauthError(client.genericGrantRequest(partnerA, 'password', { username: 'alice', password: 'nope' })), 'invalid_grant')
    t.equal(await oauthError(client.genericGrantRequest(partnerA, 'password', { username: 'bob', password: 'bob-password' })), 'invalid_grant', "another partner's user")
  })

  await t.test('the refresh_token grant gives a new access token for the same user', async (t) => {
    const res = await client.refreshTokenGrant(partnerA, refresh)
    const c = decodeJwt(res.access_token)
    t.equal(c.preferred_username, 'alice')
    t.same(c.agent_id, ['1001'])
    t.not(res.access_token, tokens.password)
    tokens.refreshed = res.access_token
  })

  await t.test('userinfo describes the user of a user token', async (t) => {
    const sub = String(decodeJwt(tokens.password).sub)
    const info = await client.fetchUserInfo(partnerA, tokens.password, sub)
    t.match(info, { sub, preferred_username: 'alice', name: 'Alice Adams', email: 'alice@partner-a.example', agent_id: ['1001'] })
    t.equal(await oauthError(client.fetchUserInfo(partnerA, 'garbage', client.skipSubjectCheck)), 'invalid_token', 'a garbage token is refused')
  })

  await t.test('introspection: own token active, another partner\'s inactive', async (t) => {
    const own = await client.tokenIntrospection(partnerA, tokens.clientBasic)
    t.equal(own.active, true)
    t.equal(own.client_id, 'partner-a')
    const partnerB = await discover(issuer, 'partner-b', 'partner-b-secret')
    const theirs = await client.tokenIntrospection(partnerB, tokens.clientBasic)
    t.same(theirs, { active: false }, "partner-b learns nothing of partner-a's token")
    const rt = await client.tokenIntrospection(partnerA, refresh)
    t.equal(rt.active, true, 'a refresh token introspects too')
    t.equal((await client.tokenIntrospection(partnerA, 'garbage')).active, false)
  })

  await t.test('the API answers each kind of token', async (t) => {
    for (const [kind, token] of Object.entries(tokens)) {
      const banks = await callApi(base, '/api/banks', token)
      t.equal(banks.status, 200, `${kind}: GET /api/banks`)
      t.equal(banks.body.banks.length, 10)
      const mine = await callApi(base, '/api/users/current/customers', token)
      t.equal(mine.status, 200, `${kind}: GET /api/users/current/customers`)
      const ids = mine.body.customers.map((c: { customerId: string }) => c.customerId).sort()
      if (kind.startsWith('client')) t.same(ids, [], `${kind}: a client has no user, so no linked customers`)
      else t.same(ids, ['1001100000001', '1001100000002', '1001100000003'], `${kind}: alice's linked customers`)
    }
  })

  await t.test('a revoked access token is refused by the API at once', async (t) => {
    const { access_token: token } = await client.clientCredentialsGrant(partnerA, { scope: 'openid' })
    t.equal((await callApi(base, '/api/banks', token)).status, 200, 'works before (and is now cached)')
    await client.tokenRevocation(partnerA, token)
    const after = await callApi(base, '/api/banks', token)
    t.equal(after.status, 401)
    t.match(after.headers.get('www-authenticate'), /error="invalid_token"/)
    t.equal((await client.tokenIntrospection(partnerA, token)).active, false, 'inactive after revocation')
  })

  await t.test('a wrong token_type_hint does not stop introspection or revocation (RFC 7009 2.1, RFC 7662 2.1)', async (t) => {
    const { access_token: token } = await client.clientCredentialsGrant(partnerA, { scope: 'openid' })
    t.equal((await client.tokenIntrospection(partnerA, token, { token_type_hint: 'refresh_token' })).active, true)
    await client.tokenRevocation(partnerA, token, { token_type_hint: 'refresh_token' })
    t.equal((await callApi(base, '/api/banks', token)).status, 401, 'revoked all the same')
    const pw = await client.genericGrantRequest(partnerA, 'password', { username: 'alice', password: 'alice-password', scope: 'openid' })
    t.equal((await client.tokenIntrospection(partnerA, pw.refresh_token!, { token_type_hint: 'access_token' })).active, true)
  })

  await t.test("a partner cannot revoke another partner's token", async (t) => {
    const { access_token: token } = await client.clientCredentialsGrant(partnerA, { scope: 'openid' })
    const partnerB = await discover(issuer, 'partner-b', 'partner-b-secret')
    await client.tokenRevocation(partnerB, token)
    t.equal((await callApi(base, '/api/banks', token)).status, 200)
  })

  await t.test('revoking a refresh token ends its grant', async (t) => {
    const res = await client.genericGrantRequest(partnerA, 'password', { username: 'alice', password: 'alice-password', scope: 'openid' })
    t.equal((await callApi(base, '/api/banks', res.access_token)).status, 200)
    await client.tokenRevocation(partnerA, res.refresh_token!, { token_type_hint: 'refresh_token' })
    t.equal(await oauthError(client.refreshTokenGrant(partnerA, res.refresh_token!)), 'invalid_grant', 'the refresh token no longer works')
    t.equal((await client.tokenIntrospection(partnerA, res.refresh_token!)).active, false)
    t.equal((await callApi(base, '/api/banks', res.access_token)).status, 401, 'nor do the access tokens of the grant')
  })
})

t.test('the access token lifetime follows tokenTtl', async (t) => {
  const { issuer } = await running(t, { tokenTtl: 60 })
  const cfg = await discover(issuer, 'partner-b', 'partner-b-secret')
  const cc = await client.clientCredentialsGrant(cfg, { scope: 'openid' })
  t.equal(cc.expires_in, 60)
  const c = decodeJwt(cc.access_token)
  t.equal(Number(c.exp) - Number(c.iat), 60)
  t.same(c.agent_id, ['2001'])
  const pw = await client.genericGrantRequest(cfg, 'password', { username: 'bob', password: 'bob-password', scope: 'openid' })
  const u = decodeJwt(pw.access_token)
  t.equal(Number(u.exp) - Number(u.iat), 60)
})
