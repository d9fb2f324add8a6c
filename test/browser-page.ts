import { execFile } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import { CHROMIUM, LAUNCH_ARGS } from './chromium.js'

/*
 * What the browser tests of the consoles (test/console-browser.test.ts, test/console-operator-browser.test.ts)
 * share: a page in headless Chromium at a laptop's 1366 x 768 whose every complaint is recorded, screenshots into
 * test/artifacts/ (gitignored; docs/screenshots are copies of them), and curl as a shell sends a request.
 */

export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url))
// a cold browser on a loaded 2-core machine is slow: generous waits (never an assertion on time)
export const WAIT = { timeout: 60_000 }
const run = promisify(execFile)
const FAILED_LOAD = /^Failed to load resource: the server responded with a status of (\d+)/

/** A request exactly as a partner's shell would send it; answers curl's output even when curl fails. */
export async function curl (...args: string[]): Promise<string> {
  return await run('curl', ['-s', ...args]).then((r) => r.stdout, (e: { stdout: string }) => e.stdout)
}

export async function shot (page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: `${ARTIFACTS}${name}.png` })
}

export interface Watched {
  page: Page
  /** Everything the browser complained of, but for the HTTP errors of refused: expected to stay empty. */
  problems: string[]
  /** The HTTP errors the browser reported on its console, as "status path". */
  refused: string[]
}

/**
 * A page at a laptop's size whose every complaint is recorded: script errors, console messages of type
 * error, warning or assert, and securitypolicyviolation events (listened for before the page's own scripts
 * run). The browser's console line for an HTTP error answer goes to refused, for the test to compare with
 * the errors it caused.
 */
export async function watchedPage (t: Test, base: string): Promise<Watched> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS })
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
  const watched: Watched = { page, problems: [], refused: [] }
  page.on('pageerror', (e) => watched.problems.push(`script error: ${e.message}`))
  page.on('console', (m) => {
    if (!['error', 'warning', 'assert'].includes(m.type())) return
    const status = FAILED_LOAD.exec(m.text())
    if (status !== null && m.location().url.startsWith(base)) watched.refused.push(`${status[1]} ${new URL(m.location().url).pathname}`)
    else watched.problems.push(`console ${m.type()}: ${m.text()}`)
  })
  await page.exposeFunction('reportViolation', (v: string) => watched.problems.push(`securitypolicyviolation: ${v}`))
  // runs in the page before its own scripts (a script of the browser's devtools: the policy does not apply to it)
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => reportViolation(e.violatedDirective + ' refused ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber))"
  })
  page.on('dialog', async (d) => { await d.accept() })
  return watched
}

/** Walks through the page, then tells whether the browser complained, even when the walk stopped short. */
export async function withoutComplaint (t: Test, watched: Watched, walk: () => Promise<void>): Promise<void> {
  try {
    await walk()
  } finally {
    t.same(watched.problems, [], 'no script error, console error or warning, nothing refused by the Content-Security-Policy')
  }
}
