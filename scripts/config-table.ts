import { pathToFileURL } from 'node:url'
import { OPTIONS } from '../src/config.js'

/**
 * The README's configuration table, from the one config schema (src/config.ts): every option with its
 * environment variable, flag and default. Run `npx tsx scripts/config-table.ts` and paste the output
 * between the markers in README.md; test/readme.test.ts fails when the README's copy is out of date.
 */
export function configTable (): string {
  const rows = OPTIONS.map((o) => {
    const def = o.default === undefined ? '' : `\`${String(o.default)}\``
    return `| \`${o.env}\` | \`--${o.flag}\` | ${def} | ${o.description.replace(/\|/g, '\\|')} |`
  })
  return ['| Environment variable | Flag | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${configTable()}\n`)
}
