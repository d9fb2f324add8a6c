import { readFileSync } from 'node:fs'
import t from 'tap'
import { configTable } from '../scripts/config-table.js'
import { OPTIONS } from '../src/config.js'
import { CATALOGUE } from '../src/errors.js'
import { build } from './helper.js'

// The README is the partners' manual: what it lists must be what the code has.
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

t.test('the README has the quick start of two commands', async (t) => {
  const quick = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)
  t.ok(quick)
  const commands = quick![1].split('\n').filter((l) => l.trim() !== '').map((l) => l.replace(/\s+#.*$/, '').trim())
  t.same(commands, ['npm ci && npm start', 'npm test'])
})

t.test('the README configuration table is the one generated from src/config.ts', async (t) => {
  const m = /<!-- config-table:start[^\n]*-->\n([\s\S]*?)\n<!-- config-table:end -->/.exec(README)
  t.ok(m, 'the table markers are there')
  t.equal(m?.[1], configTable(), 'up to date: run `npx tsx scripts/config-table.ts` and paste its output')
  for (const o of OPTIONS) {
    t.ok(README.includes(`\`${o.env}\``), `${o.env} is documented`)
    t.ok(README.includes(`\`--${o.flag}\``), `--${o.flag} is documented`)
  }
})

t.test('the README lists every error code of the catalogue with its status', async (t) => {
  for (const [code, { status }] of Object.entries(CATALOGUE)) {
    t.match(README, new RegExp(`^\\| \`${code}\` \\| ${status} \\|`, 'm'), code)
  }
  const listed = [...README.matchAll(/^\| `(SANDBOX_ERR_[A-Z_]+)` \|/gm)].map((m) => m[1])
  t.same(listed.filter((c) => !(c in CATALOGUE)), [], 'no code that does not exist')
})

t.test('every control endpoint the README lists is in the published control API document', async (t) => {
  const app = await build(t)
  const doc = app.sandboxSwagger() as unknown as { paths: Record<string, Record<string, unknown>> }
  const rows = [...README.matchAll(/^\| `(GET|POST|PUT|DELETE) (\/__sandbox\/[^`]*)` \|/gm)]
  t.ok(rows.length >= 10, `${rows.length} endpoints listed`)
  for (const [, method, path] of rows) {
    t.ok(doc.paths[path]?.[method.toLowerCase()], `${method} ${path}`)
  }
})

t.test('the documentation URLs the README gives answer', async (t) => {
  const app = await build(t)
  for (const url of ['/api/docs/apidocs/openapi.json', '/api/docs/apidocs/swagger.json', '/4.0/api/docs/apidocs', '/__sandbox/docs/openapi.json', '/health', '/ready', '/auth/realms/sandbox/.well-known/openid-configuration']) {
    t.ok(README.includes(url.replace('/4.0/', '/{version}/').replace('/auth/realms/sandbox', '')), `${url} is in the README`)
    t.equal((await app.inject({ url })).statusCode, 200, url)
  }
  const json = await app.inject({ url: '/api/docs/apidocs', headers: { accept: 'application/json' } })
  t.match(json.json(), { openapi: /^3\./ })
  t.equal((await app.inject({ url: '/' })).headers.location, '/api/docs/apidocs')
})
