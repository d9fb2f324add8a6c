import { readFile } from 'node:fs/promises'
import t from 'tap'
import type { Locator, Page } from 'playwright-core'
import { ARTIFACTS, WAIT, curl, shot, watchedPage, withoutComplaint } from './browser-page.js'
import { withChromium } from './chromium.js'
import { listen } from './helper.js'

/*
 * A partner's developer in the console, in headless Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core) at a laptop's 1366 x 768, through every view and control: sign in, the overview (reset to
 * a scenario, fresh agents), the live journal (filters, a request opened, faults shown, HAR, clear),
 * snapshots (save, download, upload, restore, delete), fault rules and magic values, state controls, the
 * clock, sign out; and the empty states of a sandbox without fault injection. The page must run under its
 * Content-Security-Policy without a complaint: a script error, a console error or warning (Alpine reports an
 * expression it cannot evaluate as a warning) or a securitypolicyviolation event fails the test. Screenshots
 * go to test/artifacts/ (gitignored); docs/screenshots are copies of them.
 */

/** Opens the console and signs in as partner-a with this secret. */
async function signIn (page: Page, base: string, secret = 'partner-a-secret'): Promise<void> {
  await page.goto(`${base}/console`, WAIT)
  await page.locator('#signin-form').waitFor(WAIT)
  await page.fill('input[name=clientId]', 'partner-a')
  await page.fill('input[name=clientSecret]', secret)
  await page.click('#signin-form button[type=submit]')
}

async function signedIn (page: Page): Promise<void> {
  await page.locator('.topbar .partner', { hasText: 'partner-a' }).waitFor(WAIT)
}

async function toast (page: Page, text: string | RegExp): Promise<void> {
  await page.locator('.toast', { hasText: text }).waitFor(WAIT)
}

/** The card of this title. */
function card (page: Page, title: string): Locator {
  return page.locator('article.card', { has: page.locator('h3', { hasText: new RegExp(`^${title}$`) }) })
}

/** Waits until the overview's agents table shows this many messages for agent 1001. */
async function messagesOf1001 (page: Page, n: number): Promise<void> {
  await page.locator('table.compact tbody tr', { hasText: 'ADAMS & MOKOENA ATTORNEYS' }).locator('td:nth-child(7)', { hasText: new RegExp(`^${n}$`) }).waitFor(WAIT)
}

withChromium(() => {
  t.test('a developer goes through every view and control of the console; the page runs under its policy without a complaint', async (t) => {
    const { base } = await listen(t)
    const watched = await watchedPage(t, base)
    const { page, refused } = watched
    let token = ''
    /** A call of agent 1001 with the partner's token, as its code would make it. */
    const api = async (path: string, ...args: string[]): Promise<string> => await curl('-H', `Authorization: Bearer ${token}`, '-H', 'Agent-Id: 1001', ...args, `${base}${path}`)
    const status = async (path: string): Promise<string> => await api(path, '-o', '/dev/null', '-w', '%{http_code}')

    await withoutComplaint(t, watched, async () => {
      // sign in
      await signIn(page, base, 'wrong-secret')
      await page.locator('.signin .error', { hasText: 'wrong client secret' }).waitFor(WAIT)
      t.pass('a wrong secret is refused on the page')
      await shot(page, 'console-sign-in')
      await page.fill('input[name=clientSecret]', 'partner-a-secret')
      await page.click('#signin-form button[type=submit]')
      await signedIn(page)
      t.match(await page.locator('.topbar .partner').getAttribute('title'), /Partner A/, "the partner's name on its id")
      t.same(await page.locator('nav.tabs a').allInnerTexts(), ['Overview', 'Requests', 'Snapshots', 'Advice', 'Faults', 'State', 'Clock'], 'the tabs')
      const cookies = await page.context().cookies()
      t.match(cookies.find((c) => c.name === 'sandbox_console'), { httpOnly: true, sameSite: 'Strict' }, 'an HttpOnly, SameSite=Strict session cookie')
      t.equal(await page.evaluate('document.cookie'), '', 'the page script cannot read the session')

      // overview: the scenario, reset to another, fresh agents
      await page.locator('table.compact tbody tr', { hasText: 'ADAMS & MOKOENA ATTORNEYS' }).waitFor(WAIT)
      const scenario = card(page, 'Scenario')
      t.match(await scenario.innerText(), /default\s+seed \d+/, 'the scenario and its seed')
      t.match(await scenario.locator('select option:checked').innerText(), /^default — /, 'the scenario chosen in the list, with its description')
      const facts = await page.locator('.facts').first().innerText()
      t.match(facts, /Agents\s+2\s+Records\s+[\d,]+\s+Guarantees\s+\d+\s+Test users\s+\S+/, 'the figures at a glance')
      t.match(await page.locator('#readiness-summary').innerText(), /Go-live readiness\s+0 of 8 passed · 0 failed · 8 not tried\s+No findings/, 'the readiness summary on the overview')
      await shot(page, 'console-overview')
      token = JSON.parse(await curl('-u', 'partner-a:partner-a-secret', '-d', 'grant_type=client_credentials', `${base}/auth/realms/sandbox/protocol/openid-connect/token`)).access_token as string
      await page.selectOption('.overview select', 'empty')
      await page.click('#reset')
      await toast(page, 'Reset to empty')
      await scenario.locator('strong', { hasText: 'empty' }).waitFor(WAIT)
      t.match(JSON.parse(await api('/__sandbox/state')), { scenario: 'empty' }, 'the reset reached the sandbox')
      await page.selectOption('.overview select', 'default')
      await page.click('#reset')
      await toast(page, 'Reset to default')
      await messagesOf1001(page, 33)
      await page.click('#new-agent')
      await toast(page, /^Fresh agent \d+ created: use Agent-Id \d+$/)
      const fresh = page.locator('table.compact tbody tr', { has: page.locator('.tag.fresh') })
      await fresh.waitFor(WAIT)
      const freshId = await fresh.locator('code').innerText()
      t.equal(await curl('-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${token}`, '-H', `Agent-Id: ${freshId}`, `${base}/api/banks`), '200', 'the fresh agent answers on the API')
      await fresh.getByText('reset').click()
      await toast(page, `Agent ${freshId} reset`)
      await fresh.getByText('delete').click()
      await toast(page, `Agent ${freshId} deleted`)
      await fresh.waitFor({ state: 'detached', ...WAIT })
      t.equal(await page.locator('table.compact tbody tr .tag:not(.fresh)', { hasText: 'scenario' }).count(), 2, 'the two scenario agents')
      t.equal(await page.locator('table.compact tbody tr a.danger:visible').count(), 0, 'which cannot be deleted')

      // requests: the live journal
      await page.click('[data-tab=requests]')
      await page.locator('.live.on', { hasText: 'Live' }).waitFor(WAIT)
      await page.locator('tr[data-request-id]').first().waitFor(WAIT)
      t.pass("the fresh agent's call is in the journal")
      await page.getByRole('button', { name: 'Clear' }).click()
      await toast(page, 'Journal emptied')
      await page.locator('.requests .empty', { hasText: 'No requests yet' }).waitFor(WAIT)
      const hint = await page.locator('pre.hint').innerText()
      t.match(hint, `curl -s -u partner-a:<secret> -d grant_type=client_credentials \\\n  ${base}/auth/realms/sandbox/protocol/openid-connect/token`, 'the curl example names the partner and this sandbox')
      t.match(hint, `curl -H "Authorization: Bearer $TOKEN" -H "Agent-Id: 1001" ${base}/api/banks`, 'and its first agent')
      await shot(page, 'console-requests-empty')
      await api('/api/customers/1001100000001/messages', '-X', 'POST', '-H', 'Content-Type: application/json', '-H', 'X-Request-Id: curl-from-the-test',
        '-d', '{"message":"HELLO FROM CURL","fromDepartment":"CI","fromPerson":"BROWSER TEST"}')
      await api('/api/customers/1001100000001')
      await api('/api/banks', '-H', 'Sandbox-Fault: status=503', '-H', 'X-Request-Id: curl-fault')
      await api('/api/banks', '-H', 'Sandbox-Fault: reset', '-H', 'X-Request-Id: curl-dropped')
      const row = page.locator('tr[data-request-id="curl-from-the-test"]')
      await row.waitFor(WAIT)
      t.match(await row.innerText(), /^\d\d:\d\d:\d\d\s+POST\s+\/api\/customers\/1001100000001\/messages\s+200\s+\d+\s+1001$/, 'the curl request appeared live, without a reload')
      await page.locator('tr[data-request-id="curl-dropped"]').waitFor(WAIT)
      t.match(await page.locator('tr[data-request-id="curl-fault"]').innerText(), /\s503\s*⚡/, 'an injected fault is marked')
      t.match(await page.locator('tr[data-request-id="curl-dropped"] .status.s0').innerText(), 'dropped', 'a dropped connection')
      const listed = page.locator('.requests-table tbody tr')
      await listed.nth(3).waitFor(WAIT)
      await page.fill('input[aria-label=Filter]', 'messages')
      await listed.nth(1).waitFor({ state: 'detached', ...WAIT })
      t.equal(await listed.getAttribute('data-request-id'), 'curl-from-the-test', 'the filter by path')
      await page.fill('input[aria-label=Filter]', '503')
      await listed.filter({ hasText: '/messages' }).waitFor({ state: 'detached', ...WAIT })
      t.equal(await listed.getAttribute('data-request-id'), 'curl-fault', 'the filter by status')
      await page.fill('input[aria-label=Filter]', 'nothing like this')
      await page.locator('.requests .empty', { hasText: 'Nothing matches the filter' }).waitFor(WAIT)
      await page.fill('input[aria-label=Filter]', '')
      await page.selectOption('.requests select[aria-label=Method]', 'POST')
      await listed.filter({ hasText: 'GET' }).first().waitFor({ state: 'detached', ...WAIT })
      t.equal(await listed.getAttribute('data-request-id'), 'curl-from-the-test', 'the filter by method')
      await page.selectOption('.requests select[aria-label=Method]', '')
      await listed.nth(3).waitFor(WAIT)
      await row.click()
      await page.locator('.detail pre.json', { hasText: 'HELLO FROM CURL' }).first().waitFor(WAIT)
      t.match(await row.getAttribute('class'), /\bselected\b/, 'the open request is marked in the list')
      const detail = await page.locator('.detail').innerText()
      t.match(detail, /^POST \/api\/customers\/1001100000001\/messages\s+200\s+\d+(\.\d+)? ms\s+\d.*\d.*\s+route \/api\/customers\/\{customerId\}\/messages\s+X-Request-Id curl-from-the-test\s+Request\s/, 'its status, time, date, route and request id')
      t.match(detail, /authorization\s+\[REDACTED\]/, 'the token is redacted in the page')
      t.match(detail, /"fromPerson": "BROWSER TEST"/, 'the request body, pretty-printed')
      t.match(detail, /"dateCreated"/, 'the response body')
      t.equal(await page.locator('.detail pre.json').first().locator('span.k', { hasText: '"fromPerson"' }).count(), 1, 'keys marked for colour')
      t.equal(await page.locator('.detail pre.json').first().locator('span.s', { hasText: '"BROWSER TEST"' }).count(), 1, 'strings marked for colour')
      t.notOk(await page.locator('.detail .fault-line').isVisible(), 'no fault line for a request without a fault')
      await shot(page, 'console-requests')
      await page.locator('tr[data-request-id="curl-dropped"]').click()
      await page.locator('.detail .status', { hasText: 'connection dropped' }).waitFor(WAIT)
      t.match(await page.locator('.detail .fault-line').innerText(), 'Fault applied: reset', 'the fault applied')
      // Alpine shows "No body." in an effect of its own, after the status (seen in CI: the headers read, the line not yet)
      const answer = page.locator('.detail .message').nth(1)
      await answer.getByText('No body.').waitFor(WAIT)
      t.match(await answer.innerText(), /No body\./, 'no response body for a dropped connection')
      t.notOk(await answer.locator('pre.json').isVisible(), 'and no body shown for it')
      const [har] = await Promise.all([page.waitForEvent('download', WAIT), page.getByText('Download HAR').click()])
      const harLog = JSON.parse(await readFile(await har.path(), 'utf8')) as { log: { entries: Array<{ request: { url: string } }> } }
      t.equal(harLog.log.entries.length, 4, 'the HAR download has the journal')
      await page.getByRole('button', { name: 'Clear' }).click()
      await toast(page, 'Journal emptied')
      await page.locator('.requests .empty', { hasText: 'No requests yet' }).waitFor(WAIT)
      t.ok(await page.locator('.detail .empty', { hasText: 'Select a request' }).isVisible(), 'the detail is emptied too')

      // snapshots: save, download, upload, restore, delete
      await page.click('[data-tab=snapshots]')
      await page.locator('.empty', { hasText: 'No snapshots yet' }).waitFor(WAIT)
      await page.fill('#snapshot-name', 'with-hello')
      await page.click('#save-snapshot')
      await toast(page, 'Saved as with-hello')
      await page.locator('tr[data-snapshot="with-hello"]').waitFor(WAIT)
      t.match(await page.locator('tr[data-snapshot="with-hello"]').innerText(), /^with-hello\t\d.*\d.*\t\d+(\.\d)? [KM]?B\trestore delete$/, 'its name, date, size and actions')
      t.equal(await page.inputValue('#snapshot-name'), '', 'the name box is emptied')
      await shot(page, 'console-snapshots')
      const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.getByRole('button', { name: 'Download', exact: true }).click()])
      t.equal(download.suggestedFilename(), 'partner-a-snapshot.json', 'the whole state downloads under the partner name')
      const stateFile = `${ARTIFACTS}partner-a-snapshot.json`
      await download.saveAs(stateFile)
      t.match(JSON.parse(await readFile(stateFile, 'utf8')), { snapshotFormat: Number }, 'a snapshot document')
      await page.setInputFiles('input[type=file]', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not json') })
      await toast(page, 'notes.txt is not JSON')

      await page.click('[data-tab=overview]')
      await messagesOf1001(page, 34)
      t.pass('agent 1001 has the message curl created (33 of the scenario + 1)')
      await page.click('#reset')
      await toast(page, 'Reset to default')
      await messagesOf1001(page, 33)
      t.pass('after the reset agent 1001 has its 33 messages of the scenario')
      await page.click('[data-tab=snapshots]')
      await page.locator('tr[data-snapshot="with-hello"] a.restore').click()
      await toast(page, 'Back to snapshot with-hello')
      await page.click('[data-tab=overview]')
      await messagesOf1001(page, 34)
      t.pass('the snapshot brought the message back')
      const check = JSON.parse(await api('/api/customers/1001100000001/messages?size=100'))
      t.ok(check.messages.some((m: { message: string }) => m.message === 'HELLO FROM CURL'), 'the API answers the restored message')
      await page.click('#reset')
      await messagesOf1001(page, 33)
      await page.click('[data-tab=snapshots]')
      await page.setInputFiles('input[type=file]', stateFile)
      await toast(page, 'Restored from partner-a-snapshot.json')
      await page.click('[data-tab=overview]')
      await messagesOf1001(page, 34)
      t.pass('the uploaded file brought the message back')
      await page.click('[data-tab=snapshots]')
      await page.locator('tr[data-snapshot="with-hello"] a.danger').click()
      await toast(page, 'Snapshot with-hello deleted')
      await page.locator('.empty', { hasText: 'No snapshots yet' }).waitFor(WAIT)

      // faults: rules and magic values
      await page.click('[data-tab=faults]')
      await page.locator('.empty', { hasText: 'No fault rules' }).waitFor(WAIT)
      const magic = card(page, 'Magic values').locator('tbody tr')
      t.ok(await magic.count() > 5, 'the magic values')
      t.match(await magic.filter({ hasText: 'SANDBOX-FAULT-503' }).first().innerText(), /^SANDBOX-FAULT-503\s+POST \/api\/\S+\s+\w+\s+\S/, 'each with its operation, field and effect')
      await page.selectOption('form.inline select[aria-label=Method]', 'GET')
      await page.fill('input[aria-label=Path]', '/api/banks')
      await page.fill('input[aria-label=Fault]', 'status=503')
      await page.getByRole('button', { name: 'Add rule' }).click()
      await toast(page, 'Fault rule added')
      const rule = page.locator('tr:visible', { hasText: 'status=503' })
      await rule.waitFor(WAIT)
      t.match(await rule.innerText(), /^GET \/api\/banks\s+status=503\s+1\s+0 \/ 0\s+remove$/, 'the rule: its match, fault, probability and counts')
      t.equal(await page.inputValue('input[aria-label=Fault]'), '', 'the fault box is emptied')
      t.equal(await status('/api/banks'), '503', 'the fault rule added in the page fails the matching request')
      await page.click('[data-tab=faults]')
      await page.locator('tr:visible', { hasText: 'status=503' }).locator('td', { hasText: /^1 \/ 1$/ }).waitFor(WAIT)
      t.pass('the counts follow')
      await page.selectOption('form.inline select[aria-label=Method]', '')
      await page.fill('input[aria-label=Path]', '')
      await page.fill('input[aria-label=Fault]', 'latency=10')
      await page.fill('input[aria-label=Probability]', '0.5')
      await page.getByRole('button', { name: 'Add rule' }).click()
      await page.locator('tr:visible', { hasText: 'latency=10' }).waitFor(WAIT)
      t.match(await page.locator('tr:visible', { hasText: 'latency=10' }).innerText(), /^every request\s+latency=10\s+0\.5\s+0 \/ 0/, 'a rule for every request, half the time')
      await shot(page, 'console-faults')
      await rule.getByText('remove').click()
      await toast(page, 'Fault rule removed')
      await rule.waitFor({ state: 'detached', ...WAIT })
      await page.getByRole('button', { name: 'Remove all' }).click()
      await toast(page, 'Every fault rule removed')
      await page.locator('.empty', { hasText: 'No fault rules' }).waitFor(WAIT)
      t.equal(await status('/api/banks'), '200', 'and removing them ends the fault')

      // state controls
      await page.click('[data-tab=state]')
      const account = card(page, 'Account')
      t.equal(await account.locator('select').first().inputValue(), '1001', 'the first agent is chosen')
      t.same(await account.locator('select').first().locator('option').allInnerTexts(), ['1001', '1002'], "the partner's agents")
      await account.locator('input[placeholder="1001200000001"]').fill('1001200000001')
      t.ok(await account.locator('input[type=number]').isDisabled(), 'no amount to close an account')
      await account.getByRole('button', { name: 'Apply' }).click()
      await toast(page, 'Account 1001200000001: close done')
      t.match(JSON.parse(await api('/api/accounts/1001200000001')), { closedDate: /^\d{4}-\d\d-\d\d$/ }, 'the account is closed')
      await account.locator('select').nth(1).selectOption('reopen')
      await account.getByRole('button', { name: 'Apply' }).click()
      await toast(page, 'Account 1001200000001: reopen done')
      t.notOk(JSON.parse(await api('/api/accounts/1001200000001')).closedDate, 'and open again')
      await account.locator('select').nth(1).selectOption('balance')
      t.ok(await account.locator('input[type=number]').isEnabled(), 'an amount to set a balance')
      await account.locator('input[type=number]').fill('1234.56')
      await account.getByRole('button', { name: 'Apply' }).click()
      await toast(page, 'Account 1001200000001: balance done')
      await account.locator('select').nth(1).selectOption('credit')
      await account.locator('input[type=number]').fill('10')
      await account.getByRole('button', { name: 'Apply' }).click()
      await toast(page, 'Account 1001200000001: credit done')
      await account.locator('select').nth(1).selectOption('debit')
      await account.locator('input[type=number]').fill('0.56')
      await account.getByRole('button', { name: 'Apply' }).click()
      await toast(page, 'Account 1001200000001: debit done')
      t.match(JSON.parse(await api('/api/accounts/1001200000001')), { balance: { amount: 1244 } }, 'set, credited, debited')
      await shot(page, 'console-state')
      await account.locator('input[placeholder="1001200000001"]').fill('9999999999999')
      await account.getByRole('button', { name: 'Apply' }).click()
      await page.locator('.toast.bad').waitFor(WAIT)
      t.pass('an unknown account is said in the page')
      const kyc = card(page, 'Customer KYC')
      await kyc.locator('input').fill('1001100000001')
      await kyc.locator('select').selectOption('false')
      await kyc.getByRole('button', { name: 'Set' }).click()
      await toast(page, 'Customer 1001100000001: KYC set')
      t.match(JSON.parse(await api('/api/customers/1001100000001')), { defaultCustomer: { kycStatus: false } }, 'the customer is not verified any more')

      // the advice: findings and the readiness checklist of the calls made above, and one to a deprecated version
      t.equal(await status('/4.0/api/banks'), '200')
      await page.click('[data-tab=advice]')
      const readiness = page.locator('table.readiness tbody tr')
      // the overview loaded the checklist before the deprecated call: its rows show until the tab's own load lands
      await page.locator('tr[data-case=USES_CURRENT_VERSION]', { hasText: 'failed' }).waitFor(WAIT)
      t.equal(await readiness.count(), 8, 'the 8 cases')
      t.match(await page.locator('tr[data-case=USES_CURRENT_VERSION]').innerText(), /failed\s+1 call to a deprecated API version/, 'a failed case with its reason')
      t.match(await page.locator('tr[data-case=PAGES_TO_THE_END]').innerText(), /not tried\s+Read a list of more than one page/, 'a case not tried, with how to try it')
      t.match(await page.locator('[data-finding=DEPRECATED_VERSION]').innerText(), /warning\s+DEPRECATED_VERSION\s+Calls to a deprecated API version\s+1×/, 'the finding')
      await shot(page, 'console-advice')
      await page.locator('[data-finding=DEPRECATED_VERSION] a.example').first().click()
      await page.locator('.detail-title', { hasText: '/4.0/api/banks' }).waitFor(WAIT)
      t.pass("a finding's example opens the request in the journal")
      await page.click('[data-tab=advice]')
      await page.click('#clear-advice')
      await toast(page, 'Advice and readiness cleared')
      await page.locator('.empty', { hasText: 'No findings' }).waitFor(WAIT)
      t.match(await page.locator('tr[data-case=USES_CURRENT_VERSION]').innerText(), /not tried/, 'started afresh')

      // the clock
      await page.click('[data-tab=clock]')
      const clockFacts = card(page, 'Your clock').locator('dd')
      await clockFacts.filter({ hasText: /^real$/ }).waitFor(WAIT)
      await page.fill('input[aria-label="Advance by"]', 'P30D')
      await page.getByRole('button', { name: 'Advance' }).click()
      await clockFacts.filter({ hasText: /^offset$/ }).waitFor(WAIT)
      const clock = JSON.parse(await api('/__sandbox/clock')) as { mode: string, now: string }
      t.equal(clock.mode, 'offset', 'the clock moved from the page')
      t.ok(Date.parse(clock.now) - Date.now() > 29 * 24 * 3600 * 1000, 'by 30 days')
      await shot(page, 'console-clock')
      await page.fill('input[aria-label="Set to"]', '2030-01-02T03:04')
      await page.getByRole('button', { name: 'Set', exact: true }).click()
      await clockFacts.filter({ hasText: /^2030-01-02$/ }).waitFor(WAIT)
      t.match(JSON.parse(await api('/__sandbox/clock')), { today: '2030-01-02' }, 'the clock set to a date and time')
      await page.getByRole('button', { name: 'Back to real time' }).click()
      await clockFacts.filter({ hasText: /^real$/ }).waitFor(WAIT)

      await page.click('#sign-out')
      await page.locator('#signin-form').waitFor(WAIT)
      const after = await curl('-o', '/dev/null', '-w', '%{http_code}', '-b', `sandbox_console=${cookies.find((c) => c.name === 'sandbox_console')!.value}`, `${base}/__sandbox/state`)
      t.equal(after, '401', 'the old session no longer works')
    })
    t.same(refused, ['401 /console/session', '401 /console/session', '404 /__sandbox/accounts/9999999999999/debit'],
      'the only HTTP errors are those of the test: not signed in at first, the wrong secret, the unknown account')
  })

  t.test('on a sandbox without fault injection the Faults, State and Clock tabs say so', async (t) => {
    const { base } = await listen(t)
    const watched = await watchedPage(t, base)
    const { page, refused } = watched
    // a sandbox of before the fault issue answers 404 there
    await page.route(/\/__sandbox\/(faults|magic|clock)$/, (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"status":404}' }))
    await withoutComplaint(t, watched, async () => {
      await signIn(page, base)
      await signedIn(page)
      for (const [tab, says] of [['faults', 'Fault injection is not available'], ['state', 'State controls are not available'], ['clock', 'The clock is not available']]) {
        await page.click(`[data-tab=${tab}]`)
        await page.locator('article.card', { hasText: says }).waitFor(WAIT)
        t.equal(await page.locator('section.page:visible article.card:visible').count(), 1, `${tab}: the notice only`)
        await shot(page, `console-${tab}-absent`)
      }
    })
    t.ok(refused.length > 0 && refused.every((r) => /^(401 \/console\/session|404 \/__sandbox\/(faults|magic|clock))$/.test(r)), 'the only HTTP errors: not signed in at first, the 404s')
  })
})
