import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { Test } from 'tap'
import type { Page } from 'playwright-core'
import { WAIT, curl, shot, watchedPage, withoutComplaint } from './browser-page.js'
import { call, token } from './calls.js'
import { withChromium } from './chromium.js'
import { TOKEN_PATH, listen } from './helper.js'

/*
 * A bank's integration team in the operator console (/console/operator, issue 45), in headless Chromium at a
 * laptop's size: six partners with real traffic from real tokens (one ready for go-live, two stuck, the others
 * active or idle); sign in with the operator token (a wrong one refused), the tiles, sorting by columns either
 * way, the filters and the search, a partner's readiness opened from the list and from its link, CSRF on a call
 * that changes state, sign out. A partner's console session never reaches the operator endpoints, and the
 * operator's session never acts as a partner. The page runs under the console's Content-Security-Policy without
 * a complaint. Screenshots: test/artifacts/console-operator*.png (docs/screenshots has copies).
 */

const ADMIN = 'operator-secret-0123456789'
const MESSAGES = '/api/customers/1001100000001/messages'
const MESSAGE = { message: 'GO-LIVE CHECK', fromDepartment: 'CI', fromPerson: 'CI' }
const TOKEN_RULE = { match: { method: 'POST', path: '/**/protocol/openid-connect/token' }, times: 1 }

/** A token request as a client makes it: its status, and the token when it got one. */
async function tokenRequest (base: string, client: string, secret: string): Promise<{ status: number, token: string }> {
  const res = await fetch(`${base}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  const body = await res.json() as { access_token?: string }
  return { status: res.status, token: body.access_token ?? '' }
}

/** partner-a's client doing every case of the readiness checklist right (as test/readiness.test.ts plays them). */
async function readyForGoLive (t: Test, base: string): Promise<void> {
  let bearer = await token(base)
  const control = async (path: string, body?: unknown): Promise<number> => (await call(base, bearer, `/__sandbox${path}`, { body, method: 'POST', headers: { 'agent-id': '' } })).status
  t.equal((await call(base, bearer, '/api/banks')).status, 200)
  await control('/faults', { match: { method: 'GET', path: '/api/banks' }, fault: 'status=500', times: 1 })
  t.equal((await call(base, bearer, '/api/banks')).status, 500)
  await sleep(250)
  t.equal((await call(base, bearer, '/api/banks')).status, 200, 'retried after a pause')
  t.equal((await call(base, bearer, MESSAGES, { body: { ...MESSAGE, message: 'LOST ANSWER' }, headers: { 'sandbox-fault': 'after, reset' } })).status, 0)
  t.equal((await call(base, bearer, `${MESSAGES}?size=50`)).status, 200, 'looked up instead of created again')
  t.equal((await call(base, bearer, MESSAGES, { body: { message: 'NO PERSON', fromDepartment: 'CI' } })).status, 400)
  t.equal((await call(base, bearer, MESSAGES, { body: MESSAGE })).status, 200, 'fixed, then created')
  for (let page = 0; ; page++) {
    const res = await call(base, bearer, `/api/banks?size=10&page=${page}`)
    if (JSON.parse(res.body).page.last === true) break
  }
  await control('/tokens/expire')
  t.equal((await call(base, bearer, '/api/banks')).status, 401)
  bearer = await token(base)
  t.equal((await call(base, bearer, '/api/banks')).status, 200, 'with a new token')
  await control('/faults', { ...TOKEN_RULE, fault: 'status=503' })
  t.equal((await tokenRequest(base, 'partner-a', 'partner-a-secret')).status, 503)
  // its Retry-After: 5
  await sleep(5100)
  t.equal((await tokenRequest(base, 'partner-a', 'partner-a-secret')).status, 200)
}

/** The partners of the walk, registered by the operator: their secrets and first agents. */
async function register (t: Test, base: string, clientId: string, name: string): Promise<{ secret: string, agentId: string }> {
  const res = await fetch(`${base}/__sandbox/admin/partners`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ clientId, name }) })
  t.equal(res.status, 200, `${clientId} registered`)
  const body = await res.json() as { clientSecret: string, agentIds: string[] }
  return { secret: body.clientSecret, agentId: body.agentIds[0] }
}

/** Six partners with traffic of their own: ready, stuck, active, idle. */
async function traffic (t: Test, base: string): Promise<void> {
  const acme = await register(t, base, 'acme-conveyancing', 'ACME Conveyancing')
  const baobab = await register(t, base, 'baobab-payroll', 'Baobab Payroll')
  await register(t, base, 'fynbos-lending', 'Fynbos Lending')
  const karoo = await register(t, base, 'karoo-insurance', 'Karoo Insurance Brokers')
  await readyForGoLive(t, base)
  // partner-b: sent again before Retry-After, and a deprecated version
  const b = await token(base, 'partner-b')
  const asB = { headers: { 'agent-id': '2001' } }
  t.equal((await call(base, b, '/api/banks', { headers: { ...asB.headers, 'sandbox-fault': 'status=503' } })).status, 503)
  t.equal((await call(base, b, '/api/investment-types', asB)).status, 200)
  t.equal((await call(base, b, '/4.0/api/banks', asB)).status, 200)
  // ACME: well-behaved calls and a list read to its end
  const a = await token(base, 'acme-conveyancing', acme.secret)
  for (let page = 0; ; page++) {
    const res = await call(base, a, `/api/banks?size=10&page=${page}`, { headers: { 'agent-id': acme.agentId } })
    if (JSON.parse(res.body).page.last === true) break
  }
  // Baobab: the same refused create, five times
  const bb = await token(base, 'baobab-payroll', baobab.secret)
  for (let i = 0; i < 5; i++) t.equal((await call(base, bb, '/api/customers', { body: { defaultCustomer: { name1: '' } }, headers: { 'agent-id': baobab.agentId } })).status, 400)
  // Karoo: a token, nothing more yet
  await token(base, 'karoo-insurance', karoo.secret)
}

async function signInOperator (page: Page, base: string, operatorToken: string): Promise<void> {
  await page.goto(`${base}/console/operator`, WAIT)
  await page.locator('#signin-form').waitFor(WAIT)
  await page.fill('input[name=token]', operatorToken)
  await page.click('#signin-form button[type=submit]')
}

const rows = (page: Page): ReturnType<Page['locator']> => page.locator('.partners-table tbody tr')

/** The client ids of the table, once it shows these (the list is fetched again at each click), or after 60 s. */
async function listed (page: Page, expected: string[]): Promise<string[]> {
  // (read from here: a predicate evaluated in the page as a string would be an eval, which its policy refuses)
  const read = async (): Promise<string[]> => await rows(page).evaluateAll((trs) => trs.map((r) => r.getAttribute('data-partner') ?? ''))
  let ids = await read()
  for (let i = 0; i < 600 && JSON.stringify(ids) !== JSON.stringify(expected); i++) {
    await sleep(100)
    ids = await read()
  }
  return ids
}

withChromium(() => {
  t.test("the integration team sees every partner's way to go-live: sorted, filtered, each one's readiness a click away; the page runs under its policy without a complaint", async (t) => {
    const { base } = await listen(t, { adminToken: ADMIN })
    await traffic(t, base)
    const watched = await watchedPage(t, base)
    const { page, refused } = watched

    await withoutComplaint(t, watched, async () => {
      await signInOperator(page, base, 'operator-secret-wrong-0000')
      await page.locator('.signin .error', { hasText: 'Wrong operator token.' }).waitFor(WAIT)
      t.pass('a wrong operator token is refused on the page')
      await page.fill('input[name=token]', ADMIN)
      await page.click('#signin-form button[type=submit]')
      await rows(page).first().waitFor(WAIT)
      const cookies = await page.context().cookies()
      t.match(cookies.find((c) => c.name === 'sandbox_operator'), { httpOnly: true, sameSite: 'Strict' }, 'an HttpOnly, SameSite=Strict operator session cookie')
      t.equal(cookies.find((c) => c.name === 'sandbox_console'), undefined, 'no partner console session')
      t.equal(await page.evaluate('document.cookie'), '', 'the page script cannot read the session')

      // the tiles and the list, the most recently active first
      t.same(await page.locator('.tile .tile-count').allInnerTexts(), ['6', '5', '2', '1'], 'partners, active, needing attention, ready')
      t.same(await listed(page, ['karoo-insurance', 'baobab-payroll', 'acme-conveyancing', 'partner-b', 'partner-a', 'fynbos-lending']),
        ['karoo-insurance', 'baobab-payroll', 'acme-conveyancing', 'partner-b', 'partner-a', 'fynbos-lending'], 'latest request first; the idle one last')
      const a = rows(page).filter({ has: page.locator('code', { hasText: /^partner-a$/ }) })
      t.match(await a.innerText(), /partner-a\s+ready\s+Partner A \(conveyancing software vendor\)\s+scenario\s+(just now|\d+ minutes? ago)\s+\d+\s+0\s+none\s+8\/8/, 'partner-a: ready, 8 of 8 passed')
      const b = rows(page).filter({ has: page.locator('code', { hasText: /^partner-b$/ }) })
      t.match(await b.innerText(), /needs attention[\s\S]*RETRY_AFTER_IGNORED[\s\S]*DEPRECATED_VERSION[\s\S]*0\/8/, 'partner-b: stuck on its findings')
      t.match(await rows(page).last().innerText(), /fynbos-lending\s+idle\s+Fynbos Lending\s+registered\s+never\s+0\s+0\s+none\s+0\/8/, 'an idle registered partner')
      await shot(page, 'console-operator')

      // sorted by a column, then the other way; another column starts with the most
      await page.click('th[data-sort=clientId] a')
      const byId = ['acme-conveyancing', 'baobab-payroll', 'fynbos-lending', 'karoo-insurance', 'partner-a', 'partner-b']
      t.same(await listed(page, byId), byId, 'by client id, A to Z')
      t.equal(await page.getAttribute('th[data-sort=clientId]', 'aria-sort'), 'ascending')
      await page.click('th[data-sort=clientId] a')
      t.same(await listed(page, [...byId].reverse()), [...byId].reverse(), 'clicked again: Z to A')
      t.equal(await page.getAttribute('th[data-sort=clientId]', 'aria-sort'), 'descending')
      await page.click('th[data-sort=readiness] a')
      const byReadiness = ['partner-a', 'acme-conveyancing', 'baobab-payroll', 'fynbos-lending', 'karoo-insurance', 'partner-b']
      t.same(await listed(page, byReadiness), byReadiness, 'the most cases passed first; of as many, fewer failed first')
      t.equal(await page.getAttribute('th[data-sort=clientId]', 'aria-sort'), 'none')
      await page.click('th[data-sort=findings] a')
      t.same((await listed(page, ['partner-b', 'baobab-payroll', 'acme-conveyancing', 'fynbos-lending', 'karoo-insurance', 'partner-a'])).slice(0, 2), ['partner-b', 'baobab-payroll'], 'the most findings first')

      // filters and search
      await page.click('[data-tile=ready]')
      t.same(await listed(page, ['partner-a']), ['partner-a'], 'ready for go-live')
      await page.click('[data-tile=attention]')
      t.same((await listed(page, ['partner-b', 'baobab-payroll'])).sort(), ['baobab-payroll', 'partner-b'], 'needing attention')
      await page.click('[data-tile=all]')
      await page.fill('#search', 'baobab')
      t.same(await listed(page, ['baobab-payroll']), ['baobab-payroll'], 'a search')
      await page.fill('#search', 'nobody')
      await page.locator('.empty', { hasText: 'No partner matches' }).waitFor(WAIT)
      await page.fill('#search', '')
      await listed(page, ['partner-b', 'baobab-payroll', 'acme-conveyancing', 'fynbos-lending', 'karoo-insurance', 'partner-a'])

      // a partner's readiness, from its row
      await b.locator('a.readiness-link').click()
      const detail = page.locator('#partner-detail')
      await detail.locator('tr[data-case=HONOURS_RETRY_AFTER] .verdict.failed').waitFor(WAIT)
      t.match(await detail.locator('h3').innerText(), /Partner B .* partner-b/, "the partner's name and client id")
      t.match(await detail.locator('tr[data-case=HONOURS_RETRY_AFTER]').innerText(), /failed\s+a request was sent .* after the 503 whose Retry-After asked for 5 s/, 'why a case failed')
      t.match(await detail.locator('tr[data-case=PAGES_TO_THE_END]').innerText(), /not tried\s+Read a list of more than one page/, 'how to try one')
      t.same((await detail.locator('[data-finding]').evaluateAll((els) => els.map((e) => e.getAttribute('data-finding')))).sort(), ['DEPRECATED_VERSION', 'RETRY_AFTER_IGNORED'], 'its findings')
      t.equal(new URL(page.url()).hash, '#readiness=partner-b', 'a link to it')
      t.equal(await detail.locator('a[download]').getAttribute('href'), '/__sandbox/admin/partners/partner-b/readiness?format=junit', 'its JUnit XML')
      await shot(page, 'console-operator-readiness')
      const junit = await page.evaluate(async (href) => await (await fetch(href)).text(), '/__sandbox/admin/partners/partner-b/readiness?format=junit')
      t.match(junit, /<testsuite name="readiness\.partner-b" tests="8" failures="2"/, 'the JUnit XML with the session')

      // the link opens it, in the page open (the address changed by hand) and in a new one
      await page.goto(`${base}/console/operator#readiness=acme-conveyancing`, WAIT)
      await page.locator('#partner-detail', { hasText: '2 of 8 passed' }).waitFor(WAIT)
      t.pass("ACME's link followed in the open page")
      await page.goto('about:blank')
      await page.goto(`${base}/console/operator#readiness=partner-a`, WAIT)
      await page.locator('#partner-detail', { hasText: 'Ready: every case passed' }).waitFor(WAIT)
      t.equal(await page.locator('#partner-detail .verdict.passed').count(), 8, "partner-a's link: every case passed")

      // CSRF: a call that changes state needs the session's value
      const register = async (csrf: string | null): Promise<number> => await page.evaluate(async ([csrfToken]) => (await fetch('/__sandbox/admin/partners', {
        method: 'POST', headers: { 'content-type': 'application/json', ...(csrfToken === null ? {} : { 'x-console-csrf': csrfToken }) }, body: JSON.stringify({ clientId: 'protea-wealth' })
      })).status, [csrf])
      t.equal(await register(null), 401, 'refused without X-Console-Csrf')
      const csrf = await page.evaluate(async () => (await (await fetch('/console/operator/session')).json() as { csrfToken: string }).csrfToken)
      t.equal(await register(csrf), 200, 'made with it')
      t.equal(await page.evaluate(async () => (await fetch('/__sandbox/state')).status), 401, "the operator's session acts for no partner")

      await page.click('#sign-out')
      await page.locator('#signin-form').waitFor(WAIT)
      const session = cookies.find((c) => c.name === 'sandbox_operator')!.value
      t.equal(await curl('-o', '/dev/null', '-w', '%{http_code}', '-b', `sandbox_operator=${session}`, `${base}/__sandbox/admin/overview`), '401', 'the old session no longer works')
    })
    t.same(refused, ['401 /console/operator/session', '401 /console/operator/session', '401 /__sandbox/admin/partners', '401 /__sandbox/state'],
      'the only HTTP errors are those of the test: not signed in at first, the wrong token, no CSRF value, a partner endpoint')
  })

  t.test("a partner's console session never reaches the operator console or its endpoints", async (t) => {
    const { base } = await listen(t, { adminToken: ADMIN })
    const watched = await watchedPage(t, base)
    const { page, refused } = watched
    await withoutComplaint(t, watched, async () => {
      await page.goto(`${base}/console`, WAIT)
      await page.fill('input[name=clientId]', 'partner-a')
      await page.fill('input[name=clientSecret]', 'partner-a-secret')
      await page.click('#signin-form button[type=submit]')
      await page.locator('.topbar .partner', { hasText: 'partner-a' }).waitFor(WAIT)
      await page.goto(`${base}/console/operator`, WAIT)
      await page.locator('#signin-form').waitFor(WAIT)
      t.pass('the operator console asks for the operator token')
      t.equal(await page.evaluate(async () => (await fetch('/__sandbox/admin/overview')).status), 401, 'the overview refuses the partner session')
      t.equal(await page.evaluate(async () => (await fetch('/__sandbox/admin/partners/partner-a/readiness')).status), 401, "so does the partner's own readiness, read as the operator")
      t.equal(await page.evaluate(async () => (await fetch('/__sandbox/state')).status), 200, 'while the partner session still works for the partner')
    })
    t.same(refused, ['401 /console/session', '401 /console/operator/session', '401 /__sandbox/admin/overview', '401 /__sandbox/admin/partners/partner-a/readiness'],
      'the only HTTP errors: not signed in at first to either console, and the operator endpoints refusing the partner session')
  })
})
