import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { api, build, tokenFor } from './helper.js'

async function signIn (app: FastifyInstance, clientId: string, clientSecret: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/console/session', payload: { clientId, clientSecret } })
}

/** The session cookie (name=value) and CSRF value of a signed-in console. */
async function session (app: FastifyInstance, clientId = 'partner-a', secret = `${clientId}-secret`): Promise<{ cookie: string, csrf: string }> {
  const res = await signIn(app, clientId, secret)
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return { cookie: String(res.headers['set-cookie']).split(';')[0], csrf: res.json().csrfToken }
}

t.test('the console page and the files it loads are served by the sandbox itself', async (t) => {
  const app = await build(t)
  const page = await app.inject({ url: '/console' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  t.match(page.body, /<title>Partner console/)
  for (const src of page.body.matchAll(/(?:src|href)="(\/console\/static\/[^"]+)"/g)) {
    const res = await app.inject({ url: src[1] })
    t.equal(res.statusCode, 200, `${src[1]} is served`)
    t.ok(res.body.length > 1000, `${src[1]} has content`)
  }
  t.notMatch(page.body, /https?:\/\/(?!localhost)[a-z]/i, 'no file from elsewhere (no CDN)')
  const csp = new Map(String(page.headers['content-security-policy']).split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1)]))
  t.same(csp.get('default-src'), ["'none'"], 'a Content-Security-Policy: nothing allowed unless named')
  t.same(csp.get('script-src'), ["'self'"], "scripts from the sandbox only: no inline script ('unsafe-inline'), no eval ('unsafe-eval'), no other host")
  for (const [directive, sources] of csp) {
    if (directive.startsWith('script-src')) t.notOk(sources.includes("'unsafe-inline'"), `no 'unsafe-inline' in ${directive}`)
    t.notOk(sources.includes("'unsafe-eval'"), `no 'unsafe-eval' in ${directive}`)
  }
  t.same(csp.get('frame-ancestors'), ["'none'"], 'never framed')
  t.notMatch(page.body, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script on the page (the policy would refuse it)')
  const alpine = await app.inject({ url: '/console/static/alpine.js' })
  t.equal(alpine.body, readFileSync(createRequire(import.meta.url).resolve('@alpinejs/csp/dist/cdn.min.js'), 'utf8'), "the UI library is Alpine's CSP build, which evaluates no string as code")
  t.notMatch(page.body, /\sx-html=/, 'no x-html on the page (the CSP build refuses it)')
  t.equal((await app.inject({ url: '/console/static/../package.json' })).statusCode, 404)
  t.equal((await app.inject({ url: '/console/static/secret.js' })).statusCode, 404)
})

t.test('signing in needs the client secret and gives an HttpOnly, SameSite=Strict session cookie', async (t) => {
  const app = await build(t)
  const wrong = await signIn(app, 'partner-a', 'partner-b-secret')
  t.equal(wrong.statusCode, 401)
  t.notOk(wrong.headers['set-cookie'], 'no cookie for a wrong secret')
  t.equal((await signIn(app, 'nobody', 'x')).statusCode, 401)
  t.equal((await app.inject({ method: 'POST', url: '/console/session', payload: { clientId: 'partner-a' } })).statusCode, 400)
  const ok = await signIn(app, 'partner-a', 'partner-a-secret')
  t.equal(ok.statusCode, 200)
  const cookie = String(ok.headers['set-cookie'])
  t.match(cookie, /^sandbox_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800$/, 'HttpOnly, SameSite=Strict, not Secure over http')
  t.match(ok.json(), { partnerId: 'partner-a', name: /Partner A/, csrfToken: /^[A-Za-z0-9_-]{32}$/ })
  const again = await app.inject({ url: '/console/session', headers: { cookie: cookie.split(';')[0] } })
  t.same(again.json(), ok.json(), 'the page finds its session again after a reload')
})

t.test('behind https the session cookie is Secure', async (t) => {
  const app = await build(t, { publicUrl: 'https://sandbox.example' })
  t.match(String((await signIn(app, 'partner-a', 'partner-a-secret')).headers['set-cookie']), /; Secure$/)
})

t.test('a session drives the control API of its own partner only; changes need the CSRF header', async (t) => {
  const app = await build(t)
  const a = await session(app)
  const b = await session(app, 'partner-b')
  const state = await app.inject({ url: '/__sandbox/state', headers: { cookie: a.cookie } })
  t.equal(state.statusCode, 200)
  t.equal(state.json().partnerId, 'partner-a')
  t.equal((await app.inject({ url: '/__sandbox/state', headers: { cookie: b.cookie } })).json().partnerId, 'partner-b', "b's session reaches b's data")
  const forged = await app.inject({ method: 'POST', url: '/__sandbox/reset', headers: { cookie: a.cookie } })
  t.equal(forged.statusCode, 401, 'a reset without the CSRF header is refused')
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/reset', headers: { cookie: a.cookie, 'x-console-csrf': b.csrf } })).statusCode, 401, "another session's CSRF value does not do")
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/reset', headers: { cookie: a.cookie, 'x-console-csrf': a.csrf } })).statusCode, 200)
  t.equal((await app.inject({ url: '/api/banks', headers: { cookie: a.cookie, 'agent-id': '1001' } })).statusCode, 401, 'the bank API still needs a token')
  t.equal((await app.inject({ url: '/__sandbox/state', headers: { cookie: 'sandbox_console=' + 'x'.repeat(43) } })).statusCode, 401, 'an unknown session is nobody')
})

t.test("the console's own calls do not enter the journal; the partner's requests do", async (t) => {
  const app = await build(t)
  const a = await session(app)
  await api(app, { method: 'DELETE', url: '/__sandbox/requests', agent: null })
  await app.inject({ url: '/__sandbox/state', headers: { cookie: a.cookie } })
  await app.inject({ method: 'POST', url: '/__sandbox/agents', headers: { cookie: a.cookie, 'x-console-csrf': a.csrf } })
  await api(app, { url: '/api/banks', token: await tokenFor(app) })
  const journal = await app.inject({ url: '/__sandbox/requests', headers: { cookie: a.cookie } })
  t.same(journal.json().requests.map((r: { url: string }) => r.url), ['/api/banks'])
})

t.test('signing out ends the session', async (t) => {
  const app = await build(t)
  const a = await session(app)
  const out = await app.inject({ method: 'DELETE', url: '/console/session', headers: { cookie: a.cookie } })
  t.equal(out.statusCode, 204)
  t.match(String(out.headers['set-cookie']), /^sandbox_console=; .*Max-Age=0/)
  t.equal((await app.inject({ url: '/__sandbox/state', headers: { cookie: a.cookie } })).statusCode, 401)
  t.equal((await app.inject({ url: '/console/session', headers: { cookie: a.cookie } })).statusCode, 401)
})
