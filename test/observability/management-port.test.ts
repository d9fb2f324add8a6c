import { readFileSync, readdirSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { ConfigError, loadConfig } from '../../src/config.js'
import { LAUNCH_FLAGS } from '../../src/heap.js'
import { ROOT, ensureBuilt, kill, startCli, type Started } from '../built.js'
import { scrape, total } from './scrape.js'

/*
 * SANDBOX_MANAGEMENT_PORT as the command takes it: the value, the banner, a port in use, and `off`, with which
 * prom-client is not even loaded.
 */

// a module loaded before the command that reports every file it loads (as test/bundle.test.ts)
const REPORT_LOADS = 'data:text/javascript,' + encodeURIComponent(
  "import m from 'node:module'; m.registerHooks({ load (url, context, next) { if (url.startsWith('file:')) process.stderr.write('LOADED ' + url + '\\n'); return next(url, context) } })"
)

t.test('the option takes a port, 0 or off; anything else is refused naming it', async (t) => {
  t.equal(loadConfig({}).managementPort, 0, 'a free port by default (the image and deploy/ set 9000)')
  t.equal(loadConfig({ managementPort: '9100' }).managementPort, 9100, 'a port, from the environment or a flag')
  t.equal(loadConfig({ managementPort: '0' }).managementPort, 0, '0: a free port')
  t.equal(loadConfig({ managementPort: 'off' }).managementPort, 'off')
  for (const wrong of ['on', '65536', '-1', '9000x']) {
    t.throws(() => loadConfig({ managementPort: wrong }), new ConfigError(`invalid option --management-port / SANDBOX_MANAGEMENT_PORT = ${JSON.stringify(/^-?\d+$/.test(wrong) ? Number(wrong) : wrong)}: expected an integer from 0 to 65535 or off`), wrong)
  }
  t.throws(() => loadConfig({ metricsPartners: '2' }), /--metrics-partners \/ SANDBOX_METRICS_PARTNERS = 2: expected an integer from 0 to 1/)
})

t.test('the command: the banner names the management port, 0 a free one; /metrics is there and not on the main port', async (t) => {
  ensureBuilt()
  const server = await startCli({ LOG_LEVEL: 'warn' })
  t.teardown(async () => await kill(server.child))
  const m = /^ {2}metrics +(http:\/\/127\.0\.0\.1:(\d+))\/metrics \(management port: \/health, \/ready\)$/m.exec(server.stderr())
  t.ok(m !== null, `the banner's metrics line:\n${server.stderr()}`)
  t.not(Number(m![2]), 0, 'a free port, not 0')
  t.not(Number(m![2]), server.port)
  const { samples } = await scrape(m![1])
  t.equal(total(samples, 'sandbox_ready'), 1, 'metrics on the management port')
  t.equal((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status, 404, 'none on the main port')
})

t.test('two sandboxes on one machine, as `npm start` runs them with distinct PORTs and no management port: both serve', async (t) => {
  ensureBuilt()
  // npm start's command (its launch flags), the management port left to its default, the main ports free ones
  const start = async (): Promise<Started> => await startCli({ LOG_LEVEL: 'info', SANDBOX_MANAGEMENT_PORT: undefined }, undefined, [...LAUNCH_FLAGS])
  const first = await start()
  t.teardown(async () => await kill(first.child))
  const second = await start().catch((err: Error) => err)
  if (second instanceof Error) {
    t.fail(`the second sandbox did not start: ${second.message}`)
    return
  }
  t.teardown(async () => await kill(second.child))
  const managementOf = (s: Started): string => /^ {2}metrics +(http:\/\/\S+)\/metrics/m.exec(s.stderr())![1]
  t.not(managementOf(first), managementOf(second), 'a management port each')
  for (const [name, s] of [['first', first], ['second', second]] as const) {
    t.equal((await fetch(`http://127.0.0.1:${s.port}/health`)).status, 200, `the ${name} answers /health`)
    t.equal((await fetch(`${managementOf(s)}/health`)).status, 200, 'on its management port too')
    t.match(s.stdout(), `"msg":"management port listening at ${managementOf(s)}"`, 'which the log names, as the banner does')
  }
})

t.test('a management port in use stops the start, naming the option', async (t) => {
  ensureBuilt()
  const busy: Server = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => busy.close())
  const port = (busy.address() as { port: number }).port
  const err = await startCli({ SANDBOX_MANAGEMENT_PORT: String(port) }).then(async (s) => { await kill(s.child); return undefined }, (e: Error) => e)
  t.ok(err !== undefined, 'the command exits')
  t.match(err?.message, `banking-sandbox: cannot start: management port 127.0.0.1:${port} is in use: choose another with --management-port / SANDBOX_MANAGEMENT_PORT (0: a free port, off: no management port and no metrics)`)
  t.match(err?.message, /exited \(1\)/, 'with exit code 1')
})

t.test('off: no management port, no metrics line, and prom-client is never loaded; on, it is loaded by the first scrape', async (t) => {
  ensureBuilt()
  const dist = `${pathToFileURL(join(ROOT, 'dist')).href}/`
  // the chunk of the bundle that holds prom-client (scripts/bundle.mjs: loaded at its first use)
  const promChunks = readdirSync(join(ROOT, 'dist')).filter((f) => /^bundle-.+\.js$/.test(f) && readFileSync(join(ROOT, 'dist', f), 'latin1').includes('nodejs_eventloop_lag_seconds'))
  t.equal(promChunks.length, 1, `prom-client is a chunk of its own (${promChunks.join(', ')})`)
  const loaded = (stderr: string): string[] => [...stderr.matchAll(/^LOADED (\S+)$/gm)].map((l) => l[1].slice(dist.length))

  const off = await startCli({ LOG_LEVEL: 'warn', SANDBOX_MANAGEMENT_PORT: 'off', NODE_OPTIONS: `--import=${REPORT_LOADS}` })
  t.teardown(async () => await kill(off.child))
  t.notMatch(off.stderr(), /^ {2}metrics /m, 'no metrics line in the banner')
  const res = await fetch(`http://127.0.0.1:${off.port}/api/banks`)
  t.equal(res.status, 401, 'serving')
  t.notOk(loaded(off.stderr()).includes(promChunks[0]), 'prom-client not loaded')

  const on = await startCli({ LOG_LEVEL: 'warn', SANDBOX_MANAGEMENT_PORT: '0', NODE_OPTIONS: `--import=${REPORT_LOADS}` })
  t.teardown(async () => await kill(on.child))
  t.notOk(loaded(on.stderr()).includes(promChunks[0]), 'with metrics on, a start does not load it either (it would hold up the first requests)')
  const management = /^ {2}metrics +(http:\/\/\S+)\/metrics/m.exec(on.stderr())![1]
  t.equal((await fetch(`${management}/metrics`)).status, 200, 'the first scrape')
  t.ok(loaded(on.stderr()).includes(promChunks[0]), 'loads it (the check is not blind)')
})
