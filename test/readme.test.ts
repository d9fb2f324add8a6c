import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { configTable } from '../scripts/config-table.js'
import { OPTIONS } from '../src/config.js'
import { CATALOGUE } from '../src/errors.js'
import { build } from './helper.js'

// The README and the pages of docs/ are the partners' manual: what they list must be what the code has, and
// their links must lead somewhere.
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]
const read = (page: string): string => readFileSync(join(ROOT, page), 'utf8')
const README = read('README.md')
const ALL = PAGES.map(read).join('\n')

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

t.test('docs/errors.md lists every error code of the catalogue with its status', async (t) => {
  const errors = read('docs/errors.md')
  for (const [code, { status }] of Object.entries(CATALOGUE)) {
    t.match(errors, new RegExp(`^\\| \`${code}\` \\| ${status} \\|`, 'm'), code)
  }
  const listed = [...ALL.matchAll(/^\| `(SANDBOX_ERR_[A-Z_]+)` \|/gm)].map((m) => m[1])
  t.same(listed.filter((c) => !(c in CATALOGUE)), [], 'no code that does not exist')
})

t.test('every control endpoint the README and docs/ list is in the published control API document', async (t) => {
  const app = await build(t)
  const doc = app.sandboxSwagger() as unknown as { paths: Record<string, Record<string, unknown>> }
  const rows = [...ALL.matchAll(/^\| `(GET|POST|PUT|DELETE) (\/__sandbox\/[^`]*)` \|/gm)]
  t.ok(rows.length >= 25, `${rows.length} endpoints listed`)
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

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to '-', repeats numbered. */
function anchors (markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    out.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return out
}

const withoutCode = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '')

t.test('every link between the README and the pages of docs/ leads to a file and a heading that exist', async (t) => {
  for (const page of PAGES) {
    for (const [, target] of withoutCode(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue
      const [path, hash] = target.split('#')
      const file = path === '' ? page : normalize(join(dirname(page), path))
      t.ok(existsSync(join(ROOT, file)), `${page}: ${target}: ${file} exists`)
      if (hash !== undefined && existsSync(join(ROOT, file))) {
        t.ok(anchors(read(file)).has(hash), `${page}: ${target}: #${hash} is a heading of ${file}`)
      }
    }
  }
  for (const page of PAGES.slice(1)) t.ok(README.includes(`](${page})`), `the README links ${page}`)
})
