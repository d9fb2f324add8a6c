import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import { CHROMIUM, LAUNCH_ARGS, withChromium } from './chromium.js'
import { listen } from './helper.js'

/*
 * A person on the docs page, in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core):
 * Authorize against the embedded provider, then "Try it out" and Execute. The app listens on 127.0.0.1
 * with its public URL equal to the URL the browser uses, so the OAuth redirect comes back to the page.
 * Screenshots go to test/artifacts/ (gitignored).
 */

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url))
// a cold browser on a loaded 2-core machine renders Swagger UI slowly: generous waits (never an assertion on time)
const WAIT = { timeout: 90_000 }

withChromium(run)

async function launch (t: Test): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS })
  t.teardown(() => browser.close())
  return browser
}

async function openDocs (browser: Browser, base: string, path = '/api/docs/apidocs'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } })
  await page.goto(`${base}${path}`, WAIT)
  await page.waitForSelector('.opblock', WAIT)
  return page
}

/** Opens the Authorize dialog: one block per OAuth flow and one for a pasted bearer token. */
async function authorizeDialog (page: Page): Promise<void> {
  await page.click('.scheme-container button.authorize', WAIT)
  await page.waitForSelector('.modal-ux .auth-container', WAIT)
}

/** "Try it out" on one operation: fill the Agent-Id header, Execute, and wait for the answer. */
async function execute (page: Page, operationId: string, tag: string, agentId: string): Promise<{ status: string, body: string }> {
  const op = page.locator(`#operations-${tag.replace(/ /g, '_')}-${operationId}`)
  await op.locator('.opblock-summary').first().click(WAIT)
  const tryOut = op.locator('button.try-out__btn')
  if (await tryOut.count() > 0 && (await tryOut.innerText()).trim() === 'Try it out') await tryOut.click(WAIT)
  const header = op.locator('tr[data-param-name="agent-id"] input')
  await header.fill(agentId, WAIT)
  await op.locator('button.execute').click(WAIT)
  const status = op.locator('.live-responses-table .response .response-col_status').first()
  await status.waitFor(WAIT)
  const body = op.locator('.live-responses-table .response-col_description .highlight-code .microlight').first()
  await body.waitFor(WAIT)
  await op.scrollIntoViewIfNeeded()
  return { status: (await status.innerText()).trim(), body: await body.innerText() }
}

/**
 * Authorize with the authorization code flow (PKCE) as test user alice: the provider's login page in a
 * popup, back through the OAuth2 redirect page beside the docs page, the code exchanged for a token.
 */
async function signInAsAlice (t: Test, page: Page): Promise<void> {
  await authorizeDialog(page)
  const flow = page.locator('.modal-ux .auth-container').filter({ hasText: 'authorizationCode' })
  t.match(await flow.innerText(), /with PKCE/, 'Swagger UI uses PKCE')
  await flow.locator('#client_id_authorizationCode').fill('partner-a')
  await flow.locator('#client_secret_authorizationCode').fill('partner-a-secret')
  const [popup] = await Promise.all([page.waitForEvent('popup', WAIT), flow.locator('button.authorize').click()])
  await popup.waitForSelector('#username', WAIT)
  t.match(popup.url(), /^http:\/\/127\.0\.0\.1:\d+\/auth\/realms\/sandbox\//, 'the login page of the embedded provider')
  t.match(new URL(page.url()).origin, new URL(popup.url()).origin)
  await popup.fill('#username', 'alice')
  await popup.fill('#password', 'alice-password')
  await Promise.all([popup.waitForEvent('close', WAIT), popup.click('button[type="submit"]')])
  await flow.locator('button', { hasText: 'Logout' }).waitFor(WAIT)
  t.equal(await flow.locator('.errors').count(), 0, 'the code was exchanged for a token')
  await page.locator('.modal-ux button.close-modal').click()
}

function run (): void {
  t.test('a person authorizes with partner-a\'s client credentials and runs GET /api/banks from the docs page', async (t) => {
    const { base } = await listen(t)
    const browser = await launch(t)
    const page = await openDocs(browser, base)
    t.match(await page.locator('.info .title').innerText(), /Banking Agent REST Service \(sandbox\)/, 'the bank API document is shown')

    await authorizeDialog(page)
    const flow = page.locator('.modal-ux .auth-container').filter({ hasText: 'clientCredentials' })
    await flow.locator('#client_id_clientCredentials').fill('partner-a')
    await flow.locator('#client_secret_clientCredentials').fill('partner-a-secret')
    await flow.locator('button.authorize').click()
    await flow.locator('button', { hasText: 'Logout' }).waitFor(WAIT)
    t.equal(await flow.locator('.errors').count(), 0, 'the token endpoint gave a token')
    await page.locator('.modal-ux button.close-modal').click()

    const res = await execute(page, 'listBanks', 'banks', '1001')
    t.equal(res.status, '200', 'GET /api/banks answered 200 in the page')
    const body = JSON.parse(res.body)
    t.same(body.banks.slice(0, 3).map((b: { shortName: string }) => b.shortName), ['ABSA', 'AFRICAN BANK', 'BIDVEST BANK'], 'bank names in the response panel')
    t.equal(body.page.totalElements, 30)
    const curl = await page.locator('#operations-banks-listBanks .curl-command').innerText()
    t.match(curl, /Authorization: Bearer ey/, 'the request carried the access token')
    t.match(curl, /agent-id: 1001/)

    await mkdir(ARTIFACTS, { recursive: true })
    await page.locator('#operations-banks-listBanks').screenshot({ path: `${ARTIFACTS}docs-get-banks.png` })
    await page.locator('.information-container').scrollIntoViewIfNeeded()
    await page.screenshot({ path: `${ARTIFACTS}docs-page.png` })
    t.ok(existsSync(`${ARTIFACTS}docs-get-banks.png`), 'screenshot saved to test/artifacts/docs-get-banks.png')
  })

  t.test('test user alice signs in through the authorization code flow with PKCE and lists her customers', async (t) => {
    const { base } = await listen(t)
    const browser = await launch(t)
    const page = await openDocs(browser, base)
    await signInAsAlice(t, page)

    const res = await execute(page, 'listCurrentUserCustomers', 'customers', '1001')
    t.equal(res.status, '200')
    const body = JSON.parse(res.body)
    t.same(body.customers.map((c: { customerId: string }) => c.customerId), ['1001100000001', '1001100000002', '1001100000003'], 'alice\'s three customers')
    await mkdir(ARTIFACTS, { recursive: true })
    await page.locator('#operations-customers-listCurrentUserCustomers').screenshot({ path: `${ARTIFACTS}docs-alice-customers.png` })
  })

  t.test('the page of a deprecated version shows that version, authorizes through its own redirect page and tries it at its own path', async (t) => {
    const { base } = await listen(t)
    const browser = await launch(t)
    const page = await openDocs(browser, base, '/4.0/api/docs/apidocs')
    t.match(await page.locator('.info .title').innerText(), /4\.0\.0/, 'the 4.0 document')
    t.match(await page.locator('.info').innerText(), /Version 4\.0 is deprecated/)
    t.ok(await page.locator('.opblock.opblock-deprecated').count() > 10, 'operations are shown deprecated')
    t.match(await page.locator('.servers select, .servers').first().innerText(), new RegExp(`${base.replace(/[.:/]/g, '\\$&')}/4\\.0`), 'the server is /4.0')
    const select = page.locator('.topbar select')
    t.same(await select.locator('option').allInnerTexts(), ['Banking Agent REST Service 4.0', 'Sandbox control API'], 'the bank document of 4.0 and the sandbox control API')
    // Authorize from this page: its OAuth2 redirect page (beside it, /4.0/api/docs/apidocs/static/) is registered
    await signInAsAlice(t, page)
    const res = await execute(page, 'listCurrentUserCustomers', 'customers', '1001')
    t.equal(res.status, '200', 'GET /4.0/api/customers answered 200 in the page')
    await mkdir(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: `${ARTIFACTS}docs-page-4.0.png` })
  })
}
