import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import t from 'tap'
import { chromium } from 'playwright-core'
import { listen } from '../helper.js'

/*
 * keycloak-js (Keycloak's browser adapter, from npm) in real Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core): a single-page app on its own origin signs alice in through the sandbox's login page with
 * the public client partner-a-web (PKCE), checks the login status through the sandbox's iframes, refreshes
 * its token, and the token opens the API.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const WAIT = { timeout: 90_000 }
const KEYCLOAK_JS = readFileSync(createRequire(import.meta.url).resolve('keycloak-js'), 'utf8')

const page = (sandbox: string): string => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>SPA</title></head><body><p id="status">starting</p>
<script type="module">
import Keycloak from '/keycloak.js'
const keycloak = new Keycloak({ url: '${sandbox}/auth', realm: 'sandbox', clientId: 'partner-a-web' })
try {
  const authenticated = await keycloak.init({ onLoad: 'login-required', pkceMethod: 'S256' })
  const first = keycloak.token
  const refreshed = await keycloak.updateToken(-1)
  // the login-status iframe is loaded only when the 3p-cookies check passed; a "changed" answer would fail updateToken
  const iframe = document.querySelector('iframe[src*="login-status-iframe.html"]') !== null
  window.result = { authenticated, refreshed, iframe, username: keycloak.tokenParsed.preferred_username, azp: keycloak.tokenParsed.azp, changed: keycloak.token !== first, token: keycloak.token, sessionId: keycloak.sessionId }
} catch (e) {
  window.result = { error: String((e && (e.message || e.error)) || e) }
}
document.getElementById('status').textContent = 'done'
</script></body></html>`

if (!existsSync(CHROMIUM)) {
  if (process.env.CI !== undefined) t.fail(`Chromium not found at ${CHROMIUM}: the keycloak-js test must run in CI`)
  else t.plan(0, `skipped: Chromium not found at ${CHROMIUM} (install Debian's chromium package or set CHROMIUM_PATH)`)
} else {
  t.test('keycloak-js signs a test user in through the sandbox login page, and refreshes the token', async (t) => {
    const { base } = await listen(t)
    const spa = createServer((req, res) => {
      if (req.url === '/keycloak.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(KEYCLOAK_JS)
      else res.writeHead(200, { 'content-type': 'text/html' }).end(page(base))
    })
    await new Promise<void>((resolve) => spa.listen(0, '127.0.0.1', resolve))
    t.teardown(() => spa.close())
    const app = `http://127.0.0.1:${(spa.address() as AddressInfo).port}/`

    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS })
    t.teardown(() => browser.close())
    const tab = await browser.newPage()
    await tab.goto(app, WAIT)
    await tab.waitForURL(/\/auth\/realms\/sandbox\/login\//, WAIT)
    t.pass('keycloak-js sent the browser to the sandbox login page')
    await tab.fill('#username', 'alice', WAIT)
    await tab.fill('#password', 'alice-password', WAIT)
    await tab.click('button[type="submit"]', WAIT)
    await tab.waitForFunction(() => (globalThis as unknown as { result?: unknown }).result !== undefined, undefined, WAIT)
    const result = await tab.evaluate(() => (globalThis as unknown as { result: Record<string, unknown> }).result)
    t.equal(result.error, undefined, `no error (${String(result.error)})`)
    t.match(result, { authenticated: true, refreshed: true, username: 'alice', azp: 'partner-a-web', changed: true })
    t.equal(result.iframe, true, "keycloak-js checks the session through the sandbox's login-status iframe (3p-cookies check passed)")
    t.type(result.sessionId, 'string', 'keycloak-js has the session (sid)')
    const api = await fetch(`${base}/api/users/current/customers`, { headers: { authorization: `Bearer ${String(result.token)}`, 'agent-id': '1001' } })
    t.equal(api.status, 200, "the refreshed token opens the API for alice's agent")
  })
}
