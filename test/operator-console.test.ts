import t from 'tap'
import { token } from './calls.js'
import { listen } from './helper.js'

/*
 * The operator console's page and session over HTTP (issue 45; the page itself in Chromium:
 * test/console-operator-browser.test.ts): served under the console's policy; signed in with the operator token
 * only; its session reaches the operator endpoints and nothing else, with CSRF on calls that change state; a
 * partner's console session never reaches them.
 */

const ADMIN = 'operator-secret-0123456789'

async function send (base: string, path: string, init: { method?: string, cookie?: string, body?: unknown, headers?: Record<string, string> } = {}): Promise<Response> {
  return await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.cookie === undefined ? {} : { cookie: init.cookie }), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body)
  })
}

/** Signed in to a console: its cookie (name=value) and CSRF value. */
async function signedIn (base: string, path: string, body: unknown): Promise<{ cookie: string, csrf: string }> {
  const res = await send(base, path, { body })
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return { cookie: String(res.headers.get('set-cookie')).split(';')[0], csrf: (await res.json() as { csrfToken: string }).csrfToken }
}

t.test('the page is served under the console policy, its files from the sandbox', async (t) => {
  const { base } = await listen(t, { adminToken: ADMIN })
  const page = await send(base, '/console/operator')
  t.equal(page.status, 200)
  t.match(page.headers.get('content-security-policy'), /default-src 'none'; script-src 'self'/)
  t.equal(page.headers.get('cache-control'), 'no-store')
  const html = await page.text()
  t.match(html, /<title>Operator console/)
  for (const src of html.matchAll(/(?:src|href)="(\/console\/static\/[^"]+)"/g)) t.equal((await send(base, src[1])).status, 200, `${src[1]} is served`)
  t.notMatch(html, /https?:\/\/(?!localhost)[a-z]/i, 'no file from elsewhere (no CDN)')
  t.notMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script')
})

t.test('signing in takes the operator token only, and gives a session cookie of its own', async (t) => {
  const { base } = await listen(t, { adminToken: ADMIN })
  for (const body of [{ token: 'operator-secret-wrong-0000' }, { token: 'partner-a-secret' }]) {
    const wrong = await send(base, '/console/operator/session', { body })
    t.equal(wrong.status, 401)
    t.equal(wrong.headers.get('x-sandbox-error'), 'SANDBOX_ERR_ADMIN_TOKEN')
    t.equal(wrong.headers.get('set-cookie'), null, 'no cookie')
  }
  t.equal((await send(base, '/console/operator/session', { body: {} })).status, 400, 'no token: a 400')
  t.equal((await send(base, '/console/operator/session')).status, 401, 'not signed in')
  const ok = await send(base, '/console/operator/session', { body: { token: ADMIN } })
  t.equal(ok.status, 200)
  t.match(ok.headers.get('set-cookie'), /^sandbox_operator=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800$/)
  const { csrfToken } = await ok.json() as { csrfToken: string }
  const cookie = String(ok.headers.get('set-cookie')).split(';')[0]
  t.same(await (await send(base, '/console/operator/session', { cookie })).json(), { csrfToken }, 'found again after a reload')
  t.equal((await send(base, '/__sandbox/admin/overview', { cookie })).status, 200, 'the overview with the session')
  const ended = await send(base, '/console/operator/session', { method: 'DELETE', cookie })
  t.equal(ended.status, 204)
  t.match(ended.headers.get('set-cookie'), /^sandbox_operator=; .*Max-Age=0/)
  t.equal((await send(base, '/__sandbox/admin/overview', { cookie })).status, 401, 'signed out: the session is gone')

  const off = await listen(t)
  const disabled = await send(off.base, '/console/operator/session', { body: { token: ADMIN } })
  t.equal(disabled.status, 403, 'without SANDBOX_ADMIN_TOKEN: operator endpoints are disabled')
  t.match((await disabled.json() as { message: string }).message, /SANDBOX_ADMIN_TOKEN/)
})

t.test("the operator session reaches the operator endpoints only, with CSRF on calls that change state; a partner's session never reaches them", async (t) => {
  const { base } = await listen(t, { adminToken: ADMIN })
  const operator = await signedIn(base, '/console/operator/session', { token: ADMIN })
  const partner = await signedIn(base, '/console/session', { clientId: 'partner-a', clientSecret: 'partner-a-secret' })
  const register = { clientId: 'acme-conveyancing' }

  t.equal((await send(base, '/__sandbox/admin/partners', { cookie: operator.cookie, body: register })).status, 401, 'a change without X-Console-Csrf')
  t.equal((await send(base, '/__sandbox/admin/partners', { cookie: operator.cookie, body: register, headers: { 'x-console-csrf': partner.csrf } })).status, 401, "nor with the partner session's")
  t.equal((await send(base, '/__sandbox/admin/partners', { cookie: operator.cookie, body: register, headers: { 'x-console-csrf': operator.csrf } })).status, 200, 'with its own')
  for (const path of ['/__sandbox/state', '/__sandbox/advice', '/api/banks']) {
    t.equal((await send(base, path, { cookie: operator.cookie, headers: { 'agent-id': '1001' } })).status, 401, `the operator session is no partner: ${path}`)
  }

  // a partner's session: its cookie, or its id under the operator's cookie name
  const id = partner.cookie.split('=')[1]
  for (const cookie of [partner.cookie, `sandbox_operator=${id}`]) {
    for (const path of ['/__sandbox/admin/overview', '/__sandbox/admin/partners/partner-a/readiness']) {
      const res = await send(base, path, { cookie })
      t.equal(res.status, 401, `${cookie.split('=')[0]}: ${path}`)
      t.equal(res.headers.get('x-sandbox-error'), 'SANDBOX_ERR_ADMIN_TOKEN')
    }
    t.equal((await send(base, '/__sandbox/admin/reset', { method: 'POST', cookie, headers: { 'x-console-csrf': partner.csrf } })).status, 401, 'nor a change')
  }
  t.equal((await send(base, '/__sandbox/state', { cookie: partner.cookie })).status, 200, 'the partner session still works for the partner')
  // the operator token itself still works beside the session, and a partner's token never does
  t.equal((await send(base, '/__sandbox/admin/overview', { headers: { authorization: `Bearer ${ADMIN}` } })).status, 200)
  t.equal((await send(base, '/__sandbox/admin/overview', { headers: { authorization: `Bearer ${await token(base)}` }, cookie: operator.cookie })).status, 401,
    "a request that carries a partner's token is judged by it, not by the operator's cookie")
})
