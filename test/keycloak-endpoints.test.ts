import { createPublicKey } from 'node:crypto'
import t from 'tap'
import { logoutSource } from '../src/auth/browser-session.js'
import { build, PUBLIC_URL, SIGNING_KEY, TOKEN_PATH } from './helper.js'

const REALM = '/auth/realms/sandbox'
const OIDC = `${REALM}/protocol/openid-connect`
const BASIC_A = `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`
const FORM = 'application/x-www-form-urlencoded'

t.test("GET /auth/realms/sandbox answers Keycloak's realm information", async (t) => {
  const app = await build(t)
  const res = await app.inject({ url: REALM })
  t.equal(res.statusCode, 200)
  const info = res.json()
  t.same(Object.keys(info), ['realm', 'public_key', 'token-service', 'account-service', 'tokens-not-before'])
  t.equal(info.realm, 'sandbox')
  t.equal(info['token-service'], `${PUBLIC_URL}${OIDC}`)
  const spki = createPublicKey(SIGNING_KEY).export({ type: 'spki', format: 'der' }).toString('base64')
  t.equal(info.public_key, spki, 'the public key of the token signatures, base64 DER as Keycloak gives it')
})

t.test("pushed authorization requests are served at Keycloak's path, 201 with a request_uri", async (t) => {
  const app = await build(t)
  const res = await app.inject({
    method: 'POST',
    url: `${OIDC}/ext/par/request`,
    headers: { authorization: BASIC_A, 'content-type': FORM },
    payload: new URLSearchParams({ client_id: 'partner-a', response_type: 'code', scope: 'openid', redirect_uri: `${PUBLIC_URL}/api/docs/apidocs/static/oauth2-redirect.html`, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }).toString()
  })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.match(body.request_uri, /^urn:ietf:params:oauth:request_uri:/)
  t.type(body.expires_in, 'number')
  const auth = await app.inject({ url: `${OIDC}/auth?client_id=partner-a&request_uri=${encodeURIComponent(body.request_uri)}` })
  t.equal(auth.statusCode, 303, 'the authorization endpoint accepts the request_uri')
  t.equal((await app.inject({ method: 'POST', url: `${REALM}/request`, headers: { authorization: BASIC_A, 'content-type': FORM }, payload: 'response_type=code' })).statusCode, 404, 'the old path is gone')
})

t.test('the pages keycloak-js loads are served', async (t) => {
  const app = await build(t)
  for (const [path, marker] of [['3p-cookies/step1.html', /KEYCLOAK_3P_COOKIE=supported/], ['3p-cookies/step2.html', /postMessage\("supported"/], ['login-status-iframe.html', /login-status-iframe\.html\/init/]] as const) {
    const res = await app.inject({ url: `${OIDC}/${path}` })
    t.equal(res.statusCode, 200, path)
    t.match(res.headers['content-type'], /^text\/html/)
    t.match(res.body, marker)
    t.equal(res.headers['x-frame-options'], undefined, `${path} can be framed (keycloak-js loads it in an iframe)`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', 'and keeps the other security headers')
  }
  const init = (clientId: string, origin: string) => app.inject({ url: `${OIDC}/login-status-iframe.html/init?client_id=${clientId}&origin=${encodeURIComponent(origin)}` })
  t.equal((await init('partner-a', PUBLIC_URL)).statusCode, 204, 'an origin of the client: 204')
  t.equal((await init('partner-a', 'http://evil.test')).statusCode, 403, 'another origin: 403')
  t.equal((await init('partner-z', PUBLIC_URL)).statusCode, 403, 'an unknown client: 403')
})

t.test('discovery lists exactly what is served: every endpoint it names answers', async (t) => {
  const app = await build(t)
  const meta = (await app.inject({ url: `${REALM}/.well-known/openid-configuration` })).json() as Record<string, unknown>
  t.equal(meta.pushed_authorization_request_endpoint, `${PUBLIC_URL}${OIDC}/ext/par/request`)
  t.equal(meta.check_session_iframe, `${PUBLIC_URL}${OIDC}/login-status-iframe.html`)
  const urls = Object.entries(meta).filter(([k, v]) => (k.endsWith('_endpoint') || k.endsWith('_uri') || k === 'check_session_iframe') && typeof v === 'string' && v.startsWith(PUBLIC_URL))
  t.ok(urls.length >= 9, `${urls.length} endpoints`)
  for (const [name, url] of urls) {
    const path = new URL(url as string).pathname
    const get = await app.inject({ url: path })
    const post = await app.inject({ method: 'POST', url: path, headers: { 'content-type': FORM }, payload: '' })
    t.ok(get.statusCode !== 404 || post.statusCode !== 404, `${name} (${path}) is served: GET ${get.statusCode}, POST ${post.statusCode}`)
  }
})

t.test('CORS as Keycloak: an allowed origin is echoed with credentials, never *, another origin gets no CORS headers', async (t) => {
  const app = await build(t)
  const token = (origin: string) => app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: BASIC_A, 'content-type': FORM, origin }, payload: 'grant_type=client_credentials' })
  const allowed = await token(PUBLIC_URL)
  t.equal(allowed.statusCode, 200)
  t.equal(allowed.headers['access-control-allow-origin'], PUBLIC_URL)
  t.equal(allowed.headers['access-control-allow-credentials'], 'true')
  const other = await token('http://evil.test')
  t.equal(other.headers['access-control-allow-origin'], undefined, 'no CORS for an origin the client does not allow')
  const preflight = await app.inject({ method: 'OPTIONS', url: TOKEN_PATH, headers: { origin: PUBLIC_URL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], PUBLIC_URL)
  t.equal(preflight.headers['access-control-allow-credentials'], 'true')
  t.match(preflight.headers['access-control-allow-headers'], /Authorization/)
  const certs = await app.inject({ url: `${OIDC}/certs`, headers: { origin: 'http://any.test' } })
  t.not(certs.headers['access-control-allow-origin'], '*', 'never * (the keys are public: any origin is echoed)')
})

t.test('logout as Keycloak: back-channel with a refresh token ends the session (204); ', async (t) => {
  const app = await build(t)
  const pw = (await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: BASIC_A, 'content-type': FORM }, payload: 'grant_type=password&username=alice&password=alice-password&scope=openid' })).json()
  const logout = (payload: string, authorization = BASIC_A) => app.inject({ method: 'POST', url: `${OIDC}/logout`, headers: { authorization, 'content-type': FORM }, payload })
  t.same((await logout('')).json(), { error: 'invalid_request', error_description: 'No refresh token' })
  t.equal((await logout(`refresh_token=${String(pw.refresh_token)}`, `Basic ${Buffer.from('partner-b:partner-b-secret').toString('base64')}`)).statusCode, 400, "another client cannot end alice's session")
  const res = await logout(`refresh_token=${String(pw.refresh_token)}`)
  t.equal(res.statusCode, 204)
  const refresh = await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: BASIC_A, 'content-type': FORM }, payload: `grant_type=refresh_token&refresh_token=${String(pw.refresh_token)}` })
  t.equal(refresh.statusCode, 400, 'the refresh token is dead')
  const api = await app.inject({ url: '/api/banks', headers: { authorization: `Bearer ${String(pw.access_token)}`, 'agent-id': '1001' } })
  t.equal(api.statusCode, 401, 'and so is the access token')
})

t.test('userinfo answers CORS for the origins the token allows', async (t) => {
  const app = await build(t)
  const pw = (await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: BASIC_A, 'content-type': FORM }, payload: 'grant_type=password&username=alice&password=alice-password&scope=openid' })).json()
  const info = (origin: string) => app.inject({ url: `${OIDC}/userinfo`, headers: { authorization: `Bearer ${String(pw.access_token)}`, origin } })
  const ok = await info(PUBLIC_URL)
  t.equal(ok.statusCode, 200)
  t.equal(ok.headers['access-control-allow-origin'], PUBLIC_URL)
  t.equal(ok.headers['access-control-allow-credentials'], 'true')
  t.equal((await info('http://evil.test')).headers['access-control-allow-origin'], undefined)
})

t.test('the logout page: with an id_token_hint it submits itself (Keycloak logs out at once), without one it asks', async (t) => {
  const form = '<form id="op.logoutForm" method="post" action="/confirm"><input type="hidden" name="xsrf" value="x"/></form>'
  const render = async (params: Record<string, string>): Promise<string> => {
    const ctx = { oidc: { params }, host: 'sandbox.test', type: '', body: '' }
    await logoutSource(ctx as unknown as Parameters<typeof logoutSource>[0], form)
    return ctx.body
  }
  const hinted = await render({ id_token_hint: 'eyJ...' })
  t.match(hinted, /document\.forms\[0\]\.submit\(\)/)
  t.match(hinted, /name="logout" value="yes"><\/form>/, 'the answer is in the form, with its CSRF token')
  const asked = await render({})
  t.match(asked, /Do you want to log out\?/)
  t.notMatch(asked, /submit\(\)/, 'no script: the user decides')
})
