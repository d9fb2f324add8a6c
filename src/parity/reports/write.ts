import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { har } from './har.js'
import { html } from './html.js'
import { junit } from './junit.js'
import type { ParityReport } from './model.js'

/** The report directory: parity.json, parity.junit.xml, parity.html, parity.har. */
export const REPORT_FILES = { json: 'parity.json', junit: 'parity.junit.xml', html: 'parity.html', har: 'parity.har' } as const

export async function writeReports (dir: string, report: ParityReport): Promise<Record<keyof typeof REPORT_FILES, string>> {
  await mkdir(dir, { recursive: true })
  const paths = Object.fromEntries(Object.entries(REPORT_FILES).map(([k, f]) => [k, join(dir, f)])) as Record<keyof typeof REPORT_FILES, string>
  const { exchanges, ...rest } = report
  await Promise.all([
    writeFile(paths.json, `${JSON.stringify(rest, null, 2)}\n`),
    writeFile(paths.junit, junit(report)),
    writeFile(paths.html, html(report)),
    writeFile(paths.har, `${JSON.stringify(har({ ...report, exchanges }), null, 2)}\n`)
  ])
  return paths
}
