import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { CLI, ROOT, ensureBuilt, kill, startCli } from './built.js'

/*
 * The built command runs from the bundle (scripts/bundle.mjs): dist/cli.js loads dist/bundle.js and its
 * chunks instead of the compiled modules, and everything the bundle reads from files (package.json,
 * fixtures, scenarios, the console's files, Swagger UI's, the identity provider) is still found.
 */

// a module loaded before the command that reports every file it loads (module.registerHooks: Node 22.15+)
const REPORT_LOADS = 'data:text/javascript,' + encodeURIComponent(
  "import m from 'node:module'; m.registerHooks({ load (url, context, next) { if (url.startsWith('file:')) process.stderr.write('LOADED ' + url + '\\n'); return next(url, context) } })"
)

const dist = `${pathToFileURL(join(ROOT, 'dist')).href}/`

t.test('the built command loads the bundle, not the compiled modules, and serves what lives in files beside it', async (t) => {
  ensureBuilt()
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
  t.equal(execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' }).trim(), version, '--version reads package.json from the bundle')

  const server = await startCli({ LOG_LEVEL: 'warn', NODE_OPTIONS: `--import=${REPORT_LOADS}` })
  t.teardown(async () => await kill(server.child))
  const base = `http://127.0.0.1:${server.port}`
  const get = async (path: string, init?: RequestInit): Promise<{ status: number, text: string }> => {
    const res = await fetch(`${base}${path}`, init)
    return { status: res.status, text: await res.text() }
  }
  t.equal((await get('/health')).status, 200, 'serving')
  const loads = (): string[] => [...server.stderr().matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1])
  // what a start loads: the bundle, and the packages left outside it that the server needs at once (Swagger
  // UI and its dependencies); the modules of src/ and node_modules were some 760 files
  const atStart = loads().length
  t.ok(atStart < 200, `${atStart} files loaded by the start`)
  t.match((await get('/console')).text, /<html/, 'the console page (console/)')
  t.match((await get('/console/static/alpine.js')).text, /Alpine/, 'the UI library (node_modules, found from the bundle)')
  t.match((await get('/api/docs/apidocs/static/swagger-ui.css')).text, /swagger-ui/, "Swagger UI's own files (left outside the bundle)")
  const token = await get('/auth/realms/sandbox/protocol/openid-connect/token', {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  t.equal(token.status, 200, 'a token: the identity provider, loaded at its first use')
  const banks = await get('/api/banks', { headers: { authorization: `Bearer ${(JSON.parse(token.text) as { access_token: string }).access_token}`, 'agent-id': '1001' } })
  t.match(JSON.parse(banks.text), { page: { totalElements: Number }, banks: Array }, 'the API over the shipped fixtures and scenario')

  const ours = loads().filter((url) => url.startsWith(dist)).map((url) => url.slice(dist.length))
  t.ok(ours.includes('bundle.js') && ours.some((f) => /^bundle-server-.+\.js$/.test(f)), `the bundle and its server chunk are loaded (${ours.join(', ')})`)
  t.same(ours.filter((f) => f !== 'cli.js' && !/^bundle(-.+)?\.js$/.test(f)), [], 'no compiled module of dist/ besides cli.js')
})
