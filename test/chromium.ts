import { existsSync } from 'node:fs'
import t from 'tap'

/** Debian's Chromium, which the browser tests drive with playwright-core (CHROMIUM_PATH overrides). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Runs a browser test file's tests when Chromium is there; else skips them on a laptop and fails in CI. */
export function withChromium (run: () => void): void {
  if (existsSync(CHROMIUM)) return run()
  if (process.env.CI !== undefined) {
    t.fail(`Chromium not found at ${CHROMIUM}: the browser test must run in CI (install Debian's chromium package, or set CHROMIUM_PATH)`)
  } else {
    t.plan(0, `skipped: Chromium not found at ${CHROMIUM} (install Debian's chromium package or set CHROMIUM_PATH; in CI this is a failure)`)
  }
}
