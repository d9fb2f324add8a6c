import { spawn } from 'node:child_process'
import t from 'tap'
import { startSandbox } from '../src/library.js'
import { ROOT } from './built.js'

/*
 * startSandbox, the package's root export, as a test suite uses it: in its own process, several at once, and
 * gone after stop(). The guest's manners are checked in a child process of their own, where setting a V8 flag,
 * exiting or writing to standard output throws or is counted.
 */

const TOKEN_PATH = '/auth/realms/sandbox/protocol/openid-connect/token'

async function clientToken (tokenUrl: string, clientId: string, secret: string): Promise<string> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

t.test('two sandboxes in one process, each on its own port with its own partners, issuer and data', async (t) => {
  const [a, b] = await Promise.all([startSandbox(), startSandbox({ scenario: 'edge-cases' })])
  t.teardown(async () => { await Promise.all([a.stop(), b.stop()]) })
  t.not(a.url, b.url, 'two URLs')
  t.match(a.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'on loopback, on a free port')
  t.equal(a.issuer, `${a.url}/auth/realms/sandbox`, 'the issuer is the URL the tests use')
  t.equal(a.tokenUrl, `${a.url}${TOKEN_PATH}`)
  const discovery = await (await fetch(`${a.issuer}/.well-known/openid-configuration`)).json() as { issuer: string, token_endpoint: string }
  t.equal(discovery.issuer, a.issuer, 'discovery names the same issuer')
  t.equal(discovery.token_endpoint, a.tokenUrl, 'and the same token endpoint')

  const partnerA = a.partners.find((p) => p.clientId === 'partner-a')
  t.same(partnerA, { clientId: 'partner-a', clientSecret: 'partner-a-secret', name: partnerA?.name, agents: ['1001', '1002'], users: [{ username: 'alice', password: 'alice-password' }] }, 'partners with their secrets, agents and users')
  t.ok(b.partners.length > 0, 'the other scenario has its own partners')

  const token = await clientToken(a.tokenUrl, 'partner-a', 'partner-a-secret')
  const customer = await fetch(`${a.url}/api/customers/1001100000001`, { headers: { authorization: `Bearer ${token}`, 'agent-id': '1001' } })
  t.equal(customer.status, 200, 'a token of one answers its API')
  const elsewhere = await fetch(`${b.url}/api/customers/1001100000001`, { headers: { authorization: `Bearer ${token}`, 'agent-id': '1001' } })
  t.equal(elsewhere.status, 401, 'and is refused by the other: each signs with keys of its own')
})

t.test('its options are the configuration keys, checked like the command\'s', async (t) => {
  await t.rejects(startSandbox({ scenario: 'no-such-scenario' }), /scenario/, 'an unknown scenario is refused with a message naming it')
  await t.rejects(startSandbox({ tokenTtl: 1 }), /--token-ttl \/ SANDBOX_TOKEN_TTL/, 'a value out of range names the option')
  await t.rejects(startSandbox({ nonsense: 1 } as never), /unknown option "nonsense"/, 'an unknown key is refused')
})

t.test('a stopped sandbox answers no more, and stop() may be called twice', async (t) => {
  const s = await startSandbox()
  t.equal((await fetch(`${s.url}/ready`)).status, 200, 'ready once started')
  await s.stop()
  await s.stop()
  await t.rejects(fetch(`${s.url}/health`), 'the port is closed')
})

t.test('log lines go where they are asked to, and nowhere by default', async (t) => {
  const lines: string[] = []
  const s = await startSandbox({ log: { write: (line) => { lines.push(line) } } })
  await fetch(`${s.url}/api/banks`)
  await s.stop()
  const request = lines.map((l) => JSON.parse(l) as { msg?: string, url?: string }).find((l) => l.msg === 'request completed')
  t.equal(request?.url, '/api/banks', 'the request line reached the sink given')
})

/** Runs a module in a child (tsx, from the repository's root); resolves with its exit and what it wrote. */
function child (code: string): Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' } })
    let stdout = ''
    let stderr = ''
    proc.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    // a process that does not end by itself fails the test here (generous: a busy CI machine is slow)
    const timer = setTimeout(() => proc.kill('SIGKILL'), 90_000)
    proc.once('error', reject)
    proc.once('close', (exit, signal) => { clearTimeout(timer); resolve({ code: exit, signal, stdout, stderr }) })
  })
}

t.test('a guest in someone else\'s process: no V8 flag, no signal handler, no exit, no output, nothing left after stop', async (t) => {
  const run = await child(`
    import v8 from 'node:v8'
    import { syncBuiltinESMExports } from 'node:module'
    const seen = []
    v8.setFlagsFromString = (flag) => { seen.push('V8 flag ' + flag); throw new Error('a V8 flag was set') }
    syncBuiltinESMExports()
    process.exit = (code) => { seen.push('exit ' + code); throw new Error('the process was exited') }
    const written = []
    const stdoutWrite = process.stdout.write.bind(process.stdout)
    process.stdout.write = (chunk, ...rest) => { written.push(String(chunk)); return true }
    const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'].map((s) => process.listenerCount(s))
    const { startSandbox } = await import('./src/library.ts')
    const sandboxes = await Promise.all([startSandbox(), startSandbox(), startSandbox({ seed: 7 })])
    for (const s of sandboxes) {
      const res = await fetch(s.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=partner-a&client_secret=partner-a-secret' })
      if (res.status !== 200) throw new Error('token ' + res.status)
      await res.arrayBuffer()
      await (await fetch(s.url + '/api/banks')).arrayBuffer()
    }
    const handlers = ['SIGTERM', 'SIGINT', 'SIGHUP'].map((s) => process.listenerCount(s))
    await Promise.all(sandboxes.map((s) => s.stop()))
    process.stdout.write = stdoutWrite
    // what keeps the process alive after the stops: nothing of the sandboxes' (fetch's own idle sockets are closed by undici itself)
    process.once('exit', () => {
      process.stderr.write(JSON.stringify({ seen, written: written.length, signals, handlers, ports: new Set(sandboxes.map((s) => s.url)).size }) + '\\n')
    })
  `)
  t.equal(run.signal, null, 'the process ended by itself after stop()')
  t.equal(run.code, 0, `with exit code 0 (${run.stderr.slice(-3000)})`)
  const report = JSON.parse(run.stderr.trim().split('\n').at(-1)!) as { seen: string[], written: number, signals: number[], handlers: number[], ports: number }
  t.same(report.seen, [], 'no V8 flag set, no exit called')
  t.equal(report.written, 0, 'nothing written to standard output')
  t.same(report.handlers, report.signals, 'no signal handler installed')
  t.equal(report.ports, 3, 'three at once, on three ports')
  t.equal(run.stdout, '', 'the process\'s standard output stayed empty')
})
