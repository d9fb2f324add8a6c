import { pathToFileURL } from 'node:url'
import { OPTIONS } from '../src/config.js'

const value = (v: unknown): string => v === undefined ? '' : `\`${String(v)}\``
const cell = (text: string): string => text.replace(/\|/g, '\\|')

/**
 * The README's configuration table, from the one config schema (src/config.ts): every option with its
 * environment variable, flag, default and hosted profile's default where that differs. Run
 * `npx tsx scripts/config-table.ts` and paste the output between the markers in README.md;
 * test/readme.test.ts fails when the README's copy is out of date.
 */
export function configTable (): string {
  const rows = OPTIONS.map((o) => `| \`${o.env}\` | \`--${o.flag}\` | ${value(o.default)} | ${value(o.hosted)} | ${cell(o.description)} |`)
  return ['| Environment variable | Flag | Default | Hosted | Meaning |', '|---|---|---|---|---|', ...rows].join('\n')
}

/**
 * docs/hosting.md's table of local against hosted: every option whose default the hosted profile changes, and
 * the operator credential it requires. `npx tsx scripts/config-table.ts hosting` prints it.
 */
export function hostingTable (): string {
  const rows = OPTIONS.filter((o) => o.hosted !== undefined).map((o) => `| \`${o.env}\` | ${value(o.default)} | ${value(o.hosted)} | ${cell(o.description)} |`)
  const credential = OPTIONS.find((o) => o.key === 'adminToken')!
  return [
    '| Setting | Local | Hosted | Meaning |', '|---|---|---|---|', ...rows,
    `| \`${credential.env}\` | optional | required (the start stops without it) | ${cell(credential.description)} |`
  ].join('\n')
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${process.argv[2] === 'hosting' ? hostingTable() : configTable()}\n`)
}
