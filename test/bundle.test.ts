import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { CLI, ROOT, clientToken, ensureBuilt, kill, startCli } from './built.js'

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
// names that only the OpenTelemetry SDK's chunk holds (class names survive the bundle: names are not mangled).
// Not the OpenTelemetry API (a facade of some 30 KB, ProxyTracerProvider among its classes): prom-client's process
// CPU metric reads the active span through it for its exemplars, so a sandbox with metrics loads it
const OTEL_MARKS = ['BatchSpanProcessor', 'OTLPTraceExporter', 'NodeTracerProvider']

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
  // what a start loads: the bundle, and the packages left outside it that the server needs at once; the
  // modules of src/ and node_modules were some 760 files
  const atStart = loads().length
  t.ok(atStart < 200, `${atStart} files loaded by the start`)
  const swaggerUi = (): string[] => loads().filter((url) => /\/node_modules\/@fastify\/(swagger-ui|static)\//.test(url))
  t.same(swaggerUi(), [], 'Swagger UI (@fastify/swagger-ui, @fastify/static) is not loaded by the start')
  t.match((await get('/console')).text, /<html/, 'the console page (console/)')
  t.match((await get('/console/static/alpine.js')).text, /Alpine/, 'the UI library (node_modules, found from the bundle)')
  t.match((await get('/api/docs/apidocs')).text, /swagger-ui-bundle\.js/, 'the docs page')
  t.ok(swaggerUi().some((url) => url.endsWith('/@fastify/swagger-ui/index.js')), 'Swagger UI is loaded at the first request of a docs page, from node_modules')
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
  // V8 keeps a script's source for the life of the process, at two bytes a character unless it is all ASCII
  for (const f of ours.filter((f) => /^bundle(-.+)?\.js$/.test(f))) {
    const text = readFileSync(join(ROOT, 'dist', f), 'latin1')
    t.equal(/[\u0080-\uffff]/.exec(text)?.index, undefined, `${f} is ASCII (one byte a character in the heap)`)
    // Node's http module taken the CommonJS way (src/node-http.ts): an ES import of it loads undici and http2
    t.notMatch(text, /from"(node:)?http"/, `${f} has no ES import of node:http`)
    // the Redis client (its debug namespaces are "ioredis:...") is a chunk of its own, for SANDBOX_REDIS_URL only
    t.notOk(text.includes('"ioredis:'), `${f} holds no Redis client: a sandbox without Redis does not load it`)
    // and so is OpenTelemetry's SDK (its tracer provider, span processor and exporter), for the OTEL_* variables only
    t.notOk(OTEL_MARKS.some((mark) => text.includes(mark)), `${f} holds nothing of OpenTelemetry: a sandbox without traces does not load it`)
  }
  const chunks = readdirSync(join(ROOT, 'dist')).filter((f) => /^bundle-.+\.js$/.test(f))
  const redisChunks = chunks.filter((f) => readFileSync(join(ROOT, 'dist', f), 'latin1').includes('"ioredis:'))
  t.equal(redisChunks.length, 1, `the bundle has the Redis client, in a chunk of its own (${redisChunks.join(', ')})`)
  // OpenTelemetry's chunk shares no module of the sandbox's own with a start without traces (such a module would
  // be a chunk of its own, one more file for every start to load) and a start loads none of OpenTelemetry's
  const otel = chunks.filter((f) => /^bundle-otel-.+\.js$/.test(f))
  t.equal(otel.length, 1, `OpenTelemetry is a chunk of its own (${otel.join(', ')})`)
  const imported = [...readFileSync(join(ROOT, 'dist', otel[0]), 'latin1').matchAll(/from"\.\/(bundle-[^"]+\.js)"/g)].map((m) => m[1])
  const sources = (f: string): string[] => (JSON.parse(readFileSync(join(ROOT, 'dist', `${f}.map`), 'utf8')) as { sources: string[] }).sources
  const shared = imported.filter((f) => ours.includes(f)).flatMap(sources)
  t.same(shared.filter((s) => s.startsWith('../src/') || /opentelemetry\/(?!api\/)|fastify\/otel/.test(s)), [],
    `the chunks it shares with a start hold packages both use (the OpenTelemetry API among them), nothing of the sandbox's or of OpenTelemetry's SDK (${[...new Set(shared.map((s) => s.split('/').slice(2, 3).join('')))].join(', ')})`)
  // written without whitespace: a stack trace's places are the bundle's, mapped back to src/ by the source maps
  // (the chunk that holds src/server.ts: named after it, or a chunk it shares with another dynamic import, such as
  // the parity kit's, which starts a sandbox too)
  const serverChunk = ours.find((f) => existsSync(join(ROOT, 'dist', `${f}.map`)) && sources(f).includes('../src/server.ts'))
  t.ok(serverChunk, `a chunk's source map leads back to the TypeScript sources (${serverChunk})`)
  t.ok(readFileSync(join(ROOT, 'dist', serverChunk!), 'latin1').trimEnd().endsWith(`//# sourceMappingURL=${serverChunk}.map`), 'and the chunk names its source map')
})

// node's own options and a module loaded before the command. The first SIGUSR2 runs a full garbage collection
// (from a signal's callback, so with no tick object of Node's in use), the way one can happen at any moment
// under load; the second prints V8's own description of process.nextTick (with its feedback: what V8 learnt
// about each operation in it), then exits. V8 writes that to stdout itself, which drops what a full pipe
// refuses unless the pipe blocks
const PROBE_NEXT_TICK = ['--allow-natives-syntax', '--expose-gc', '--import=data:text/javascript,' + encodeURIComponent(`
  let signals = 0
  process.on('SIGUSR2', () => {
    if (++signals === 1) return gc()
    process.stdout._handle.setBlocking(true)
    new Function('f', 'return %DebugPrint(f)')(process.nextTick)
    process.exit(0)
  })`
)]

t.test("Node's process.nextTick keeps building its tick objects on V8's fast path after a full garbage collection", async (t) => {
  ensureBuilt()
  const server = await startCli({ LOG_LEVEL: 'warn' }, undefined, PROBE_NEXT_TICK)
  t.teardown(async () => await kill(server.child))
  const base = `http://127.0.0.1:${server.port}`
  const token = await clientToken(server.port, 'partner-a', 'partner-a-secret')
  const load = async (): Promise<void> => {
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 20 }, async () => {
        const res = await fetch(`${base}/api/banks`, { headers: { authorization: `Bearer ${token}`, 'agent-id': '1001' } })
        await res.arrayBuffer()
      }))
    }
  }
  await load()
  server.child.kill('SIGUSR2')
  await new Promise((resolve) => setTimeout(resolve, 200))
  await load()
  const closed = new Promise((resolve) => server.child.once('close', resolve))
  server.child.kill('SIGUSR2')
  await closed
  // the tick object's literal: one slot per property. A slot that saw a second shape is MEGAMORPHIC for good,
  // and then every tick object is built in V8's runtime (src/cli.ts keeps one tick object alive against that)
  const states = [...server.stdout().matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1])
  t.ok(states.length >= 2, `the description names the literal's slots (${states.length}): ${server.stdout().slice(0, 200)}`)
  t.same(states.filter((s) => s === 'MEGAMORPHIC'), [], `no slot of the tick object's literal is megamorphic (${states.join(', ')})`)
})
