import { execFile } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { chromium, type Page } from 'playwright-core'
import { CHROMIUM, LAUNCH_ARGS, withChromium } from './chromium.js'
import { listen } from './helper.js'

/*
 * A partner's developer in the console, in headless Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core) at a laptop's 1366 x 768: sign in, see a request made with curl appear live, open it,
 * reset, save and restore a snapshot, sign out. Screenshots go to test/artifacts/ (gitignored); the README's
 * are copies of them.
 */

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url))
// a cold browser on a loaded 2-core machine is slow: generous waits (never an assertion on time)
const WAIT = { timeout: 60_000 }
const run = promisify(execFile)

/** A request exactly as a partner's shell would send it. */
async function curl (...args: string[]): Promise<string> {
  return (await run('curl', ['-s', ...args])).stdout
}

async function shot (page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: `${ARTIFACTS}${name}.png` })
}

/** Waits until the overview's agents table shows this many messages for agent 1001. */
async function messagesOf1001 (page: Page, n: number): Promise<void> {
  await page.locator('table.compact tbody tr', { hasText: 'ADAMS & MOKOENA ATTORNEYS' }).locator('td:nth-child(7)', { hasText: new RegExp(`^${n}$`) }).waitFor(WAIT)
}

withChromium(() => {
  t.test('a developer signs in, watches a curl request arrive, opens it, resets, saves and restores a snapshot, adds and removes a fault rule, moves the clock, and signs out', async (t) => {
    const { base } = await listen(t)
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS })
    t.teardown(() => browser.close())
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    // what the page's Content-Security-Policy refuses is reported on the console, not thrown
    page.on('console', (m) => { if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) errors.push(m.text()) })

    await page.goto(`${base}/console`, WAIT)
    await page.locator('#signin-form').waitFor(WAIT)
    await page.fill('input[name=clientId]', 'partner-a')
    await page.fill('input[name=clientSecret]', 'wrong-secret')
    await page.click('#signin-form button[type=submit]')
    await page.locator('.signin .error', { hasText: 'wrong client secret' }).waitFor(WAIT)
    t.pass('a wrong secret is refused on the page')
    await shot(page, 'console-sign-in')
    await page.fill('input[name=clientSecret]', 'partner-a-secret')
    await page.click('#signin-form button[type=submit]')
    await page.locator('.topbar .partner', { hasText: 'partner-a' }).waitFor(WAIT)
    await page.locator('table.compact tbody tr', { hasText: 'ADAMS & MOKOENA ATTORNEYS' }).waitFor(WAIT)
    t.match(await page.locator('.facts').first().innerText(), /Agents\s+2/, 'the overview shows the agents')
    const cookies = await page.context().cookies()
    t.match(cookies.find((c) => c.name === 'sandbox_console'), { httpOnly: true, sameSite: 'Strict' }, 'an HttpOnly, SameSite=Strict session cookie')
    t.equal(await page.evaluate('document.cookie'), '', 'the page script cannot read the session')
    await shot(page, 'console-overview')

    await page.click('[data-tab=requests]')
    await page.locator('.live.on').waitFor(WAIT)
    await page.locator('.requests .empty', { hasText: 'No requests yet' }).waitFor(WAIT)
    const token = JSON.parse(await curl('-u', 'partner-a:partner-a-secret', '-d', 'grant_type=client_credentials', `${base}/auth/realms/sandbox/protocol/openid-connect/token`)).access_token as string
    await curl('-X', 'POST', '-H', `Authorization: Bearer ${token}`, '-H', 'Agent-Id: 1001', '-H', 'Content-Type: application/json', '-H', 'X-Request-Id: curl-from-the-test',
      '-d', '{"message":"HELLO FROM CURL","fromDepartment":"CI","fromPerson":"BROWSER TEST"}', `${base}/api/customers/1001100000001/messages`)
    await curl('-H', `Authorization: Bearer ${token}`, '-H', 'Agent-Id: 1001', `${base}/api/customers/1001100000001`)
    const row = page.locator('tr[data-request-id="curl-from-the-test"]')
    await row.waitFor(WAIT)
    t.match(await row.innerText(), /POST[\s\S]*\/api\/customers\/1001100000001\/messages[\s\S]*200/, 'the curl request appeared live, without a reload')
    await row.click()
    await page.locator('.detail pre.json', { hasText: 'HELLO FROM CURL' }).first().waitFor(WAIT)
    const detail = await page.locator('.detail').innerText()
    t.match(detail, /authorization\s+\[REDACTED\]/, 'the token is redacted in the page')
    t.match(detail, /"fromPerson": "BROWSER TEST"/, 'the request body, pretty-printed')
    t.match(detail, /"dateCreated"/, 'the response body')
    await shot(page, 'console-requests')

    await page.click('[data-tab=snapshots]')
    await page.locator('.empty', { hasText: 'No snapshots yet' }).waitFor(WAIT)
    await page.fill('#snapshot-name', 'with-hello')
    await page.click('#save-snapshot')
    await page.locator('tr[data-snapshot="with-hello"]').waitFor(WAIT)
    await shot(page, 'console-snapshots')

    await page.click('[data-tab=overview]')
    await messagesOf1001(page, 34)
    t.pass('agent 1001 has the message curl created (33 of the scenario + 1)')
    await page.click('#reset')
    await page.locator('.toast', { hasText: 'Reset to default' }).waitFor(WAIT)
    await messagesOf1001(page, 33)
    t.pass('after the reset agent 1001 has its 33 messages of the scenario')

    await page.click('[data-tab=snapshots]')
    await page.locator('tr[data-snapshot="with-hello"] a.restore').click()
    await page.locator('.toast', { hasText: 'Back to snapshot with-hello' }).waitFor(WAIT)
    await page.click('[data-tab=overview]')
    await messagesOf1001(page, 34)
    t.pass('the snapshot brought the message back')
    const check = JSON.parse(await curl('-H', `Authorization: Bearer ${token}`, '-H', 'Agent-Id: 1001', `${base}/api/customers/1001100000001/messages?size=100`))
    t.ok(check.messages.some((m: { message: string }) => m.message === 'HELLO FROM CURL'), 'the API answers the restored message')

    await page.click('[data-tab=faults]')
    await page.locator('.empty', { hasText: 'No fault rules' }).waitFor(WAIT)
    await page.fill('input[aria-label=Path]', '/api/banks')
    await page.fill('input[aria-label=Fault]', 'status=503')
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.locator('tr', { hasText: 'status=503' }).waitFor(WAIT)
    t.equal(await curl('-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${token}`, '-H', 'Agent-Id: 1001', `${base}/api/banks`), '503',
      'the fault rule added in the page fails the matching request')
    await shot(page, 'console-faults')
    await page.getByRole('button', { name: 'Remove all' }).click()
    await page.locator('.empty', { hasText: 'No fault rules' }).waitFor(WAIT)
    t.equal(await curl('-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${token}`, '-H', 'Agent-Id: 1001', `${base}/api/banks`), '200', 'and removing it ends the fault')

    await page.click('[data-tab=clock]')
    await page.fill('input[aria-label="Advance by"]', 'P30D')
    await page.getByRole('button', { name: 'Advance' }).click()
    await page.locator('.facts dd', { hasText: 'offset' }).waitFor(WAIT)
    const clock = JSON.parse(await curl('-H', `Authorization: Bearer ${token}`, `${base}/__sandbox/clock`)) as { mode: string, now: string }
    t.equal(clock.mode, 'offset', 'the clock moved from the page')
    t.ok(Date.parse(clock.now) - Date.now() > 29 * 24 * 3600 * 1000, 'by 30 days')
    await shot(page, 'console-clock')
    await page.getByRole('button', { name: 'Back to real time' }).click()
    await page.locator('.facts dd', { hasText: 'real' }).waitFor(WAIT)

    await page.click('#sign-out')
    await page.locator('#signin-form').waitFor(WAIT)
    const after = await curl('-o', '/dev/null', '-w', '%{http_code}', '-b', `sandbox_console=${cookies.find((c) => c.name === 'sandbox_console')!.value}`, `${base}/__sandbox/state`)
    t.equal(after, '401', 'the old session no longer works')
    t.same(errors, [], 'no script errors on the page, nothing refused by its Content-Security-Policy')
  })
})
