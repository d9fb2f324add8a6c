import t from 'tap'
import { call, freePort, replicaSkip, startRedis, startReplicas, token } from './harness.js'
import { apiStatus, at, authorizationUrl, basic, Jar, oidcPost, pkce, redeem, signIn } from './oidc.js'

/*
 * The identity provider of three replicas on one Redis (issue 28): codes, refresh tokens, sessions, PAR
 * requests and revocations are the same on every replica, whichever one a step of a flow reaches; console
 * sessions too.
 */

const skip = replicaSkip()
const ADMIN = 'admin-token-for-the-replica-tests'

t.test('the identity provider of three replicas is one', { skip }, async (t) => {
  const redis = await startRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const replicas = await startReplicas(t, 3, { redisUrl: redis.url, publicUrl, env: { SANDBOX_ADMIN_TOKEN: ADMIN } })
  const [r1, r2, r3] = replicas
  const redirectUri = `${publicUrl}/api/docs/apidocs/static/oauth2-redirect.html`
  const jar = new Jar()

  /** The API status of a token at each replica. */
  const everywhere = async (tok: string): Promise<number[]> => await Promise.all(replicas.map(async (r) => await apiStatus(r, tok)))

  await t.test('a code got through replica 1 is redeemed at replica 2; replayed at replica 3 it is invalid_grant, and what it gave is refused everywhere', async (t) => {
    const p = pkce()
    // every step of the sign-in at another replica: the interaction and the session are shared
    const signedIn = await signIn(jar, [r1, r2, r3], authorizationUrl(r1, redirectUri, p), redirectUri)
    t.equal(signedIn.loginPages, 1, 'one login page')
    t.same([...new Set(signedIn.visited)].sort(), [1, 2, 3], `the steps went to every replica (${signedIn.visited.join(', ')})`)
    const redeemed = await redeem(r2, signedIn.code, redirectUri, p)
    t.equal(redeemed.status, 200, 'redeemed at replica 2')
    const { access_token: accessToken, refresh_token: refreshToken } = redeemed.json as { access_token: string, refresh_token: string }
    t.same(await everywhere(accessToken), [200, 200, 200], 'its access token works on every replica')

    const replayed = await redeem(r3, signedIn.code, redirectUri, p)
    t.equal(replayed.status, 400)
    t.equal(replayed.json.error, 'invalid_grant', 'the code replayed at replica 3')
    t.same(await everywhere(accessToken), [401, 401, 401], "RFC 6749 4.1.2: the replay revoked the code's access token on every replica")
    const refused = await call(r1.base, accessToken, 'GET', '/api/banks')
    t.match(refused.headers.get('www-authenticate'), /the access token was revoked/)
    const refreshed = await oidcPost(r1, '/token', { grant_type: 'refresh_token', refresh_token: refreshToken })
    t.equal(refreshed.json.error, 'invalid_grant', 'and its refresh token')
  })

  await t.test('a code redeemed at three replicas at once is given out once', async (t) => {
    // a few times: the three must meet between the provider's look at the code and its use of it
    for (let i = 0; i < 8; i++) {
      const p = pkce()
      const { code } = await signIn(jar, [r3], authorizationUrl(r3, redirectUri, p), redirectUri)
      const answers = await Promise.all(replicas.map(async (r) => await redeem(r, code, redirectUri, p)))
      t.same(answers.map((a) => a.status).sort(), [200, 400, 400], `one 200 (${answers.map((a) => a.status).join(', ')})`)
      t.same(answers.filter((a) => a.status === 400).map((a) => a.json.error), ['invalid_grant', 'invalid_grant'])
    }
  })

  await t.test('a sign-in made through one replica is known to the others; its refresh token works on each; revoked at one, its grant ends everywhere', async (t) => {
    const p = pkce()
    const signedIn = await signIn(jar, [r3, r1, r2], authorizationUrl(r3, redirectUri, p), redirectUri)
    t.equal(signedIn.loginPages, 0, "no login page: the browser's session, made through replicas 1-3 before, is known at replica 3")
    const first = await redeem(r1, signedIn.code, redirectUri, p)
    t.equal(first.status, 200, 'redeemed at replica 1')
    const refreshToken = first.json.refresh_token as string
    const tokens = [first.json.access_token as string]
    for (const r of [r2, r3]) {
      const refreshed = await oidcPost(r, '/token', { grant_type: 'refresh_token', refresh_token: refreshToken })
      t.equal(refreshed.status, 200, `the refresh token of replica 1 works at ${r.base}`)
      tokens.push(refreshed.json.access_token as string)
    }
    for (const tok of tokens) t.same(await everywhere(tok), [200, 200, 200])
    const introspected = await oidcPost(r2, '/token/introspect', { token: refreshToken })
    t.equal(introspected.json.active, true, 'the refresh token introspects active at replica 2')

    const revoked = await oidcPost(r3, '/revoke', { token: refreshToken })
    t.equal(revoked.status, 200, 'the refresh token revoked at replica 3')
    for (const tok of tokens) t.same(await everywhere(tok), [401, 401, 401], 'every access token of its grant is refused on every replica')
    t.equal((await oidcPost(r1, '/token', { grant_type: 'refresh_token', refresh_token: refreshToken })).json.error, 'invalid_grant', 'the refresh token no longer works at replica 1')
    t.equal((await oidcPost(r2, '/token/introspect', { token: refreshToken })).json.active, false)
  })

  await t.test('a PAR request pushed to replica 1 is used at the authorization endpoint of replica 2', async (t) => {
    const p = pkce()
    const pushed = await oidcPost(r1, '/ext/par/request', Object.fromEntries(authorizationUrl(r1, redirectUri, p).searchParams))
    t.equal(pushed.status, 201, 'pushed at replica 1')
    const start = new URL(`${r2.base}/auth/realms/sandbox/protocol/openid-connect/auth`)
    start.searchParams.set('client_id', 'partner-a')
    start.searchParams.set('request_uri', pushed.json.request_uri as string)
    const { code } = await signIn(jar, [r2, r3], start, redirectUri)
    const redeemed = await redeem(r3, code, redirectUri, p)
    t.equal(redeemed.status, 200, 'its code redeemed at replica 3 with the verifier of the pushed challenge')
    t.same(await everywhere(redeemed.json.access_token as string), [200, 200, 200])
  })

  await t.test('an access token revoked at one replica is refused by all at once, and stays revoked over a reset', async (t) => {
    const tok = await token(r1.base)
    t.same(await everywhere(tok), [200, 200, 200], 'accepted (and cached) by every replica')
    t.equal((await oidcPost(r2, '/revoke', { token: tok })).status, 200, 'revoked at replica 2')
    t.same(await everywhere(tok), [401, 401, 401], 'refused by every replica at once')
    t.equal((await oidcPost(r3, '/token/introspect', { token: tok })).json.active, false, 'inactive at replica 3')
    const other = await token(r3.base)
    t.equal((await call(r3.base, other, 'POST', '/__sandbox/reset', {})).status, 200, 'the partner reset at replica 3')
    t.same(await everywhere(tok), [401, 401, 401], 'the reset brought the revoked token back nowhere')
    t.same(await everywhere(other), [200, 200, 200], 'other tokens work')
    const snapshot = await call(r1.base, other, 'GET', '/__sandbox/snapshot')
    t.notMatch(JSON.stringify(snapshot.json), /revoked/, 'the snapshot document does not carry revocations')
  })

  await t.test('a console session signed in at replica 1 works at replicas 2 and 3; signed out at 3, it is refused at 1', async (t) => {
    const signedIn = await fetch(`${r1.base}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: 'partner-a', clientSecret: 'partner-a-secret' }) })
    t.equal(signedIn.status, 200)
    const cookie = signedIn.headers.getSetCookie()[0].split(';')[0]
    for (const r of [r2, r3]) {
      const state = await fetch(`${r.base}/__sandbox/state`, { headers: { cookie } })
      t.equal(state.status, 200, `the control API with the session at ${r.base}`)
    }
    t.equal((await fetch(`${r3.base}/console/session`, { method: 'DELETE', headers: { cookie } })).status, 204, 'signed out at replica 3')
    t.equal((await fetch(`${r1.base}/__sandbox/state`, { headers: { cookie } })).status, 401, 'refused at replica 1')
    t.equal((await fetch(`${r2.base}/console/session`, { headers: { cookie } })).status, 401, 'and at replica 2')
  })

  await t.test('while Redis is down the token endpoint answers 503 with Retry-After (never 500); once it is back, tokens are issued again', async (t) => {
    await redis.stop()
    const down = await oidcPost(r1, '/token', { grant_type: 'client_credentials' }, basic('partner-b'))
    t.equal(down.status, 503)
    t.equal(down.headers.get('retry-after'), '1')
    t.equal(down.headers.get('x-sandbox-error'), 'SANDBOX_ERR_STORE_UNAVAILABLE')
    t.equal(down.json.error, 'temporarily_unavailable')
    const p = pkce()
    const authorize = await fetch(at(r2, authorizationUrl(r2, redirectUri, p)), { redirect: 'manual' })
    t.ok(authorize.status === 503 || (authorize.status >= 300 && authorize.status < 400), `the authorization endpoint: ${authorize.status}, not 500`)
    await redis.start()
    let status = 0
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await oidcPost(r1, '/token', { grant_type: 'client_credentials' }, basic('partner-b'))).status
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    t.equal(status, 200, 'a token again, without a restart')
  })
})
