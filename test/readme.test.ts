import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { configTable } from '../scripts/config-table.js'
import { OPTIONS } from '../src/config.js'
import { CATALOGUE } from '../src/errors.js'
import { build, listen, tokenFor } from './helper.js'

// The README and the pages of docs/ are the partners' manual: what they list must be what the code has, their
// links must lead somewhere, and their curl commands must work as written.
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

t.test('the manual says once which control endpoints take an Agent-Id: those the control API document and its routes require it of', async (t) => {
  const app = await build(t)
  type Op = { parameters?: Array<{ in: string, name: string, required?: boolean }> }
  const doc = app.sandboxSwagger() as unknown as { paths: Record<string, Record<string, Op>> }
  const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })))
  const agentHeader = (op: Op): { required?: boolean } | undefined => op.parameters?.find((p) => p.in === 'header' && p.name === 'agent-id')
  const taking = ops.filter(({ op }) => agentHeader(op) !== undefined)
  t.ok(taking.length > 0 && taking.every(({ op }) => agentHeader(op)?.required === true), `${taking.length} control operations take an Agent-Id, and require it`)

  // said once: docs/control-api.md names exactly those, in the paragraph that says which take one
  const statement = read('docs/control-api.md').split('\n\n').find((p) => p.includes('`Agent-Id`')) ?? ''
  const named = [...statement.matchAll(/`(GET|POST|PUT|DELETE) (\/__sandbox\/[^`]*)`/g)].map((m) => `${m[1]} ${m[2]}`)
  t.same(named.sort(), taking.map((o) => o.name).sort(), 'docs/control-api.md names the control endpoints that take an Agent-Id')
  for (const page of PAGES) {
    t.notMatch(read(page), /partner endpoints take[^.]*\bno\b\**\s*`Agent-Id`/i, `${page} does not say that no control endpoint takes one`)
  }

  // and the routes do what the document says: none sent to one that takes it is a 400 saying so; one
  // sent to another is not looked at (an agent that is not the partner's changes nothing)
  const token = await tokenFor(app)
  const bodies: Record<string, unknown> = { balance: { amount: 10 }, credit: { amount: 10 }, debit: { amount: 10 }, kyc: { kycStatus: true } }
  for (const { name } of taking) {
    const [method, path] = name.split(' ')
    const url = path.replace('{accountId}', '1001200000003').replace('{customerId}', '1001100000002')
    const body = bodies[url.split('/').pop()!]
    const res = await app.inject({ method: method as 'POST', url, headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { payload: body as object }) })
    t.equal(res.statusCode, 400, `${name} without an Agent-Id: 400`)
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_AGENT_ID_MISSING', `${name}: says Agent-Id is missing`)
  }
  for (const url of ['/__sandbox/state', '/__sandbox/faults', '/__sandbox/readiness']) {
    const res = await app.inject({ url, headers: { authorization: `Bearer ${token}`, 'agent-id': '2001' } })
    t.equal(res.statusCode, 200, `GET ${url} with another partner's Agent-Id: answered as without one`)
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
// (links are looked for outside inline code too: a code span may show a regular expression with "](" in it)
const withoutAnyCode = (markdown: string): string => withoutCode(markdown).replace(/`[^`\n]*`/g, '')

t.test('every link between the README and the pages of docs/ leads to a file and a heading that exist', async (t) => {
  for (const page of PAGES) {
    for (const [, target] of withoutAnyCode(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
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

/** The top-level commands of a page's sh blocks that run curl (a line continued with \ joined to the next). */
function curlCommands (markdown: string): string[] {
  const commands: string[] = []
  for (const [, block] of markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    const lines = block.split('\n')
    for (let i = 0; i < lines.length; i++) {
      let command = lines[i]
      while (command.endsWith('\\') && i + 1 < lines.length) command += `\n${lines[++i]}`
      if (/^(curl |[A-Z_]+=\$\(curl )/.test(command)) commands.push(command)
    }
  }
  return commands
}

interface Expected { status: (s: number) => boolean, describe: string, exit: number }

/** What a command's own words say it gets: an injected fault's status, the status or curl error in its comment, else a 2xx. */
function expectation (command: string): Expected {
  const exit = Number(/curl: \((\d+)\)/.exec(command)?.[1] ?? (/ -sN /.test(command) ? 28 : 0))
  const asked = /Sandbox-Fault: [^"]*status=(\d{3})/.exec(command) ?? /Prefer: code=(\d{3})/.exec(command) ??
    /SANDBOX-FAULT-(\d{3})/.exec(command) ?? /#\s*(\d{3})$/.exec(command)
  if (/Sandbox-Fault: reset/.test(command)) return { status: (s) => s === 0, describe: 'no answer', exit }
  if (asked !== null) return { status: (s) => s === Number(asked[1]), describe: asked[1], exit }
  return { status: (s) => s >= 200 && s < 300, describe: '2xx', exit }
}

/**
 * Runs a page's curl commands in order in one bash (so $TOKEN carries over), against a sandbox of its own on a
 * free port: http://localhost:8080 in the commands becomes its URL, and a page that uses $TOKEN without getting
 * one first starts with the README's token command. The operator's commands find the sandbox's operator token in
 * $SANDBOX_ADMIN_TOKEN, as on the operator's own machine. Each command is curl as installed, with -w writing the
 * status to stderr (stdout stays the command's own) and a time limit (2 s for a live tail, which never ends).
 */
async function runCurls (t: Test, page: string, commands: string[]): Promise<void> {
  const adminToken = 'readme-operator-token-0123456789'
  const { app, base } = await listen(t, { adminToken })
  // the management port (metrics: docs/observability.md) is the page's http://localhost:9000
  const management = (await app.management.start())!
  const dir = mkdtempSync(join(tmpdir(), 'readme-curl-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const readmeToken = curlCommands(README).find((c) => c.startsWith('TOKEN='))!
  const preamble = commands.some((c) => c.startsWith('TOKEN=')) || !commands.some((c) => c.includes('$TOKEN')) ? [] : [readmeToken]
  const all = [...preamble, ...commands]
  const script = [
    'set -o pipefail',
    'CURL_MAX_TIME=30',
    `SANDBOX_ADMIN_TOKEN=${adminToken}`,
    'curl () { command curl --max-time "$CURL_MAX_TIME" -w \'%{stderr}@@status %{http_code}\\n\' "$@"; }',
    ...all.flatMap((c, i) => [
      `echo "@@begin ${i}" >&2`,
      `${/ -sN /.test(c) ? 'CURL_MAX_TIME=2 ' : ''}${c.replaceAll('http://localhost:8080', base).replaceAll('http://localhost:9000', management)}`,
      `echo "@@end ${i} $?" >&2`,
      ...(/^[A-Z_]+=/.test(c) ? [`echo "@@value ${i} \${${/^([A-Z_]+)=/.exec(c)![1]}:0:3}" >&2`] : [])
    ])
  ].join('\n')
  const stderr = await new Promise<string>((resolve) => {
    execFile('bash', ['-c', script], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (_error, _stdout, stderr) => resolve(stderr))
  })
  all.forEach((command, i) => {
    const part = new RegExp(`@@begin ${i}\\n([\\s\\S]*?)@@end ${i} (\\d+)`).exec(stderr)
    const method = /-X (\w+)/.exec(command)?.[1] ?? (/ (-d|--data-binary) /.test(command) ? 'POST' : 'GET')
    const name = `${page}, command ${i + 1 - preamble.length}: ${method} ${/localhost:(?:8080|9000)([^\s"']*)/.exec(command)?.[1] ?? ''}`
    if (part === null) return t.fail(`${name}: did not run`, { stderr })
    const statuses = [...part[1].matchAll(/@@status (\d{3})/g)].map((m) => Number(m[1]))
    const expected = expectation(command)
    t.equal(Number(part[2]), expected.exit, `${name}: exit status ${expected.exit}`, { stderr: part[1] })
    t.ok(statuses.length === 1 && expected.status(statuses[0]), `${name}: one answer, ${expected.describe} (got ${statuses.join(', ')})`, { stderr: part[1] })
    const value = new RegExp(`@@value ${i} (.*)`).exec(stderr)
    if (value !== null) t.equal(value[1], 'eyJ', `${name}: the variable holds a JWT`)
  })
}

t.test('every curl command of the README and of docs/ works as written against a running sandbox', async (t) => {
  const pages = PAGES.map((page) => ({ page, commands: curlCommands(read(page)) })).filter((p) => p.commands.length > 0)
  t.ok(pages.find((p) => p.page === 'README.md')!.commands.length >= 15, 'the README has its curl commands')
  for (const { page, commands } of pages) await t.test(page, (t) => runCurls(t, page, commands))
})
