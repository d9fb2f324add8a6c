import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createPublicKey } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { ConfigError, OPTIONS, fromEnv, loadConfig } from '../src/config.js'
import { buildServer } from '../src/server.js'
import { logGenerations, readPartnerFiles } from '../src/store/persistence.js'

// The `banking-sandbox` command as a user runs it: a child process, flags, environment, signals.
const CLI = ['--import', 'tsx', 'src/cli.ts']
const ROOT = new URL('..', import.meta.url).pathname

/** The environment without any of the sandbox's own variables, so that the machine's settings do not leak in. */
function cleanEnv (extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const o of OPTIONS) delete env[o.env]
  // the management port (metrics) on a free port, as every spawned sandbox of the tests: they run side by side
  return { ...env, SANDBOX_MANAGEMENT_PORT: '0', ...extra }
}

interface Done { code: number | null, stdout: string, stderr: string }

/** Runs the command to its end (for the cases that must stop at once). */
function run (args: string[], env: Record<string, string> = {}): Promise<Done> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: cleanEnv(env) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    // generous: each run compiles the sources with tsx, and a loaded CI machine runs other test files beside
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

interface Running {
  child: ChildProcess
  url: string
  /** stdout so far, one log line per entry */
  lines: () => string[]
  stderr: () => string
  exit: Promise<number | null>
  /** resolves when a log line matches */
  logged: (match: (entry: Record<string, unknown>) => boolean) => Promise<void>
}

/** Starts the sandbox and waits for its banner (which gives the URL, also for --port 0). */
function start (t: Test, args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: cleanEnv(env) })
  let out = ''
  let err = ''
  const waiters: Array<{ match: (e: Record<string, unknown>) => boolean, resolve: () => void }> = []
  const lines = (): string[] => out.split('\n').filter((l) => l !== '')
  const check = (): void => {
    for (const w of [...waiters]) {
      if (lines().some((l) => { try { return w.match(JSON.parse(l)) } catch { return false } })) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    }
  }
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); check() })
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  t.teardown(() => {
    clearTimeout(killer)
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /^ {2}API +(\S+)\/api$/m.exec(err)
      if (m !== null && /^ {2}client /m.test(err)) {
        resolve({
          child,
          url: m[1],
          lines,
          stderr: () => err,
          exit,
          logged: (match) => new Promise((resolve) => { waiters.push({ match, resolve }); check() })
        })
      }
    })
    exit.then((code) => reject(new Error(`the sandbox exited (${code}) before its banner: ${err}`)), () => {})
  })
}

t.test('invalid configuration stops the start at once, naming the option, with exit code 2', async (t) => {
  const cases: Array<{ what: string, args: string[], env?: Record<string, string>, names: RegExp }> = [
    { what: 'a port that is not a number', args: ['--port', 'abc'], names: /invalid option --port \/ PORT = "abc": expected an integer from 0 to 65535/ },
    { what: 'a port out of range, by environment', args: [], env: { PORT: '70000' }, names: /--port \/ PORT = 70000/ },
    { what: 'an unknown flag', args: ['--prot', '8080'], names: /unknown argument "--prot" \(see --help\)/ },
    { what: 'a bad log level', args: ['--log-level', 'loud'], names: /--log-level \/ LOG_LEVEL = "loud": expected one of fatal, error, warn, info, debug, trace, silent/ },
    { what: 'a bad log level, by environment', args: [], env: { LOG_LEVEL: 'verbose' }, names: /--log-level \/ LOG_LEVEL = "verbose"/ },
    { what: 'a flag without its value', args: ['--scenario'], names: /option --scenario needs a value/ },
    { what: 'an unknown scenario', args: ['--scenario', 'nope', '--port', '0'], names: /--scenario \/ SANDBOX_SCENARIO = "nope": expected one of default, .*empty/ },
    { what: 'a public URL that is not a URL', args: ['--public-url', 'localhost:8080'], names: /--public-url \/ PUBLIC_URL = "localhost:8080"/ },
    { what: 'a token lifetime too short', args: ['--token-ttl=5'], names: /--token-ttl \/ SANDBOX_TOKEN_TTL = 5: expected an integer from 10 to 86400/ },
    { what: 'a real date that is not one', args: ['--deprecation-date', '2026-02-31'], names: /--deprecation-date \/ SANDBOX_DEPRECATION_DATE/ },
    { what: 'a too-short admin token', args: [], env: { SANDBOX_ADMIN_TOKEN: 'short-secret' }, names: /--admin-token \/ SANDBOX_ADMIN_TOKEN = \(hidden, 12 characters\): expected a string of at least 16 characters/ }
  ]
  // three at a time: eleven compiles at once on a two-core machine outran the runs' bound
  const results: Done[] = []
  for (let i = 0; i < cases.length; i += 3) results.push(...await Promise.all(cases.slice(i, i + 3).map((c) => run(c.args, c.env))))
  for (const [i, c] of cases.entries()) {
    const r = results[i]
    t.equal(r.code, 2, `${c.what}: exit code 2`)
    t.match(r.stderr, c.names, `${c.what}: the message names the option`)
    t.match(r.stderr, /^banking-sandbox: /m)
    t.equal(r.stdout, '', `${c.what}: nothing started, nothing logged`)
  }
  t.notMatch(results.at(-1)!.stderr, /short-secret/, 'a secret is never echoed, even a wrong one')
})

t.test('--help lists every option with its flag and environment variable', async (t) => {
  const r = await run(['--help'])
  t.equal(r.code, 0)
  t.match(r.stdout, /^Usage: banking-sandbox \[options\]/)
  for (const o of OPTIONS) {
    t.match(r.stdout, new RegExp(`^ {2}--${o.flag} <(n|value)> +\\S`, 'm'), `--${o.flag}`)
    t.match(r.stdout, new RegExp(`^ +env ${o.env}$`, 'm'), o.env)
  }
  const version = await run(['--version'])
  t.equal(version.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)
})

t.test('environment variables feed the options; a flag wins; empty variables are ignored', async (t) => {
  const env = fromEnv({ PORT: '9090', LOG_LEVEL: '', SANDBOX_SCENARIO: 'empty', PUBLIC_URL: 'https://sandbox.example.com/' })
  t.same(env, { port: '9090', scenario: 'empty', publicUrl: 'https://sandbox.example.com/' })
  const config = loadConfig({ ...env, port: '0' })
  t.equal(config.port, 0, 'the flag wins over PORT')
  t.equal(config.publicUrl, 'https://sandbox.example.com', 'trailing slash dropped')
  t.equal(config.logLevel, 'info', 'an empty LOG_LEVEL is the default')
  t.equal(loadConfig({ port: '8081' }).publicUrl, 'http://localhost:8081', 'PUBLIC_URL defaults to localhost and the port')
  t.throws(() => loadConfig({ colour: 'red' }), new ConfigError('unknown option "colour"'))
  t.throws(() => loadConfig({ signingKey: '' }), /--signing-key \/ SANDBOX_SIGNING_KEY = \(hidden, 0 characters\)/)
})

t.test('the banner gives the API, docs and discovery URLs, the scenario and the partner credentials; SIGINT stops with 0', async (t) => {
  const s = await start(t, ['--port', '0', '--log-level', 'info'])
  t.match(s.url, /^http:\/\/localhost:\d+$/)
  t.notMatch(s.url, /:0$/, '--port 0: the banner shows the port actually used')
  const banner = s.stderr()
  t.match(banner, new RegExp(`^ {2}docs +${s.url}/api/docs/apidocs$`, 'm'))
  t.match(banner, new RegExp(`^ {2}discovery +${s.url}/auth/realms/sandbox/\\.well-known/openid-configuration$`, 'm'))
  t.match(banner, /^ {2}scenario +default \(in memory\)$/m)
  t.match(banner, /^ {2}client +partner-a \/ partner-a-secret +agents 1001, 1002 +users alice \/ alice-password$/m)
  t.match(banner, /^ {2}client +partner-b \/ partner-b-secret +agents 2001 +users bob \/ bob-password$/m)
  t.ok(banner.split('\n').length <= 12, 'one short banner')
  const discovery = await (await fetch(`${s.url}/auth/realms/sandbox/.well-known/openid-configuration`)).json() as { issuer: string }
  t.equal(discovery.issuer, `${s.url}/auth/realms/sandbox`, 'tokens carry the issuer the banner shows')
  t.equal((await fetch(`${s.url}/ready`)).status, 200)
  s.child.kill('SIGINT')
  t.equal(await s.exit, 0)
  const entries = s.lines().map((l) => JSON.parse(l) as Record<string, unknown>)
  t.ok(entries.every((e) => typeof e.level === 'number' && typeof e.time === 'number'), 'stdout is JSON log lines only')
  t.ok(entries.some((e) => e.msg === 'stopping' && e.signal === 'SIGINT'))
  t.ok(entries.some((e) => e.msg === 'stopped'))
  // package.json "engines": on the supported lines nothing (oidc-provider's "Unsupported runtime") warns
  if (Number(process.versions.node.split('.')[0]) >= 22) t.notMatch(s.stderr(), /warn/i, 'a start prints no warning')
})

/** A key made by openssl as a user makes it (a command and its arguments; -out is added), its PEM text. */
function openssl (t: Test, command: string, ...args: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-key-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  // genrsa wants its key size last
  execFileSync('openssl', [command, '-out', join(dir, 'key.pem'), ...args], { stdio: 'ignore' })
  return readFileSync(join(dir, 'key.pem'), 'utf8')
}

t.test('--signing-key / SANDBOX_SIGNING_KEY takes an RSA key of openssl genrsa -traditional (PKCS#1) or openssl genpkey (PKCS#8): tokens are signed with it', async (t) => {
  const pkcs1 = openssl(t, 'genrsa', '-traditional', '2048')
  const pkcs8 = openssl(t, 'genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048')
  t.match(pkcs1, /^-----BEGIN RSA PRIVATE KEY-----\n/, 'genrsa -traditional writes PKCS#1')
  t.match(pkcs8, /^-----BEGIN PRIVATE KEY-----\n/, 'genpkey writes PKCS#8')
  const started = await Promise.all([start(t, ['--port', '0'], { SANDBOX_SIGNING_KEY: pkcs1 }), start(t, ['--port', '0', '--signing-key', pkcs8])])
  for (const [i, s] of started.entries()) {
    const pem = [pkcs1, pkcs8][i]
    const form = ['PKCS#1 by environment', 'PKCS#8 by flag'][i]
    const res = await fetch(`${s.url}/auth/realms/sandbox/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=partner-a&client_secret=partner-a-secret'
    })
    t.equal(res.status, 200, `${form}: a token is issued`)
    const token = (await res.json() as { access_token: string }).access_token
    const certs = await (await fetch(`${s.url}/auth/realms/sandbox/protocol/openid-connect/certs`)).json() as { keys: Array<{ n: string }> }
    t.same(certs.keys.map((k) => k.n), [createPublicKey(pem).export({ format: 'jwk' }).n], `${form}: certs publishes the public half of the key given`)
    const { payload } = await jwtVerify(token, createPublicKey(pem), { algorithms: ['RS256'] })
    t.equal(payload.client_id, 'partner-a', `${form}: the token verifies with the key given`)
    t.ok(await jwtVerify(token, createRemoteJWKSet(new URL(`${s.url}/auth/realms/sandbox/protocol/openid-connect/certs`))), `${form}: and with the published certs`)
    s.child.kill('SIGTERM')
    t.equal(await s.exit, 0)
  }
})

t.test('a signing key that is no usable RSA private key stops the start and says why, never echoing the key', async (t) => {
  const rsa = openssl(t, 'genrsa', '-traditional', '2048')
  const publicPem = execFileSync('openssl', ['rsa', '-pubout'], { input: rsa, stdio: ['pipe', 'pipe', 'ignore'] }).toString()
  const ec = openssl(t, 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256')
  const ACCEPTED = 'expected an unencrypted RSA private key of 2048 bits or more: PEM, PKCS#1 "BEGIN RSA PRIVATE KEY" or PKCS#8 "BEGIN PRIVATE KEY", or JWK JSON'
  /** No line of the key (PEM lines, or the whole of a one-line value) in a message. */
  const echoed = (key: string, text: string): string[] => key.split(/\n|\\n/).filter((l) => l.length > 16 && !l.startsWith('-----') && text.includes(l.slice(0, 16)))

  await t.test('the command: exit code 2 and the reason on stderr', async (t) => {
    const r = await run(['--port', '0'], { SANDBOX_SIGNING_KEY: ec })
    t.equal(r.code, 2)
    t.match(r.stderr, /^banking-sandbox: cannot start: invalid option --signing-key \/ SANDBOX_SIGNING_KEY: a key of type EC, not RSA/m)
    t.ok(r.stderr.includes(ACCEPTED), 'says what is accepted')
    t.same(echoed(ec, r.stderr), [], 'no line of the key')
    t.equal(r.stdout, '', 'nothing started, nothing logged')
  })

  await t.test('each kind of key: the start (buildServer, as the command runs it) refuses it with its reason', async (t) => {
    const cases: Array<[string, string, RegExp]> = [
      ['an EC key (openssl ecparam -genkey, with its parameters block)', execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString(), /a key of type EC, not RSA/],
      ['an Ed25519 key', openssl(t, 'genpkey', '-algorithm', 'ed25519'), /a key of type ED25519, not RSA/],
      ['an RSA-PSS key', openssl(t, 'genpkey', '-algorithm', 'RSA-PSS'), /an RSA-PSS key, which cannot sign RS256/],
      ['an RSA key of 1024 bits', openssl(t, 'genrsa', '-traditional', '1024'), /an RSA key of 1024 bits \(RS256 needs 2048 or more\)/],
      ['the public half', publicPem, /a public key \("BEGIN PUBLIC KEY"\), not the private key/],
      ['a PKCS#8 key encrypted with a passphrase', openssl(t, 'genpkey', '-algorithm', 'RSA', '-aes128', '-pass', 'pass:sandbox'), /encrypted with a passphrase/],
      ['a PKCS#1 key encrypted with a passphrase', openssl(t, 'genrsa', '-traditional', '-aes128', '-passout', 'pass:sandbox', '2048'), /encrypted with a passphrase/],
      ['a PEM with \\n in place of line breaks', rsa.trim().split('\n').join('\\n'), /the two characters \\n where its line breaks belong/],
      ['a public JWK', JSON.stringify(createPublicKey(rsa).export({ format: 'jwk' })), /expected a private RSA JWK/],
      ['broken JSON', `{"kty":"RSA","d":"${'x'.repeat(40)}`, /not valid JSON/],
      ['garbage', 'not-a-key-at-all-but-maybe-secret', /neither PEM .* nor JSON/]
    ]
    for (const [what, key, why] of cases) {
      const err = await buildServer(loadConfig({ logLevel: 'silent', port: 0, signingKey: key })).then(async (app) => { await app.close() }, (e: Error) => e)
      t.ok(err instanceof ConfigError, `${what}: a configuration error (exit code 2)`)
      t.match(err?.message, why, `${what}: says why`)
      t.ok(err?.message.includes(ACCEPTED), `${what}: says what is accepted`)
      t.same(echoed(key, err?.message ?? ''), [], `${what}: no line of the key in the message`)
    }
  })
})

/** Waits until the server has read the headers of a request sent with Expect: 100-continue. */
function held (port: number, head: string): Promise<{ socket: Socket, answer: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head))
    socket.setEncoding('utf8')
    let text = ''
    let continued = false
    const answer = new Promise<string>((resolve) => socket.once('close', () => resolve(text)))
    socket.on('data', (chunk: string) => {
      text += chunk
      if (!continued && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        continued = true
        text = text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length)
        resolve({ socket, answer })
      }
    })
    socket.once('error', reject)
  })
}

t.test('SIGTERM with requests in flight: every one is answered, the store is flushed, the exit code is 0', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-stop-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  // the overload answer (503 while the event loop falls a second behind) is not what this test is about: a
  // machine busy with the rest of the suite once starved the child that long, and every create met it
  const s = await start(t, ['--port', '0', '--data-dir', dataDir, '--max-event-loop-delay', '60000'])
  const port = Number(new URL(s.url).port)
  const tokenRes = await fetch(`${s.url}/auth/realms/sandbox/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=partner-a&client_secret=partner-a-secret'
  })
  const token = (await tokenRes.json() as { access_token: string }).access_token

  // 20 creates whose headers the server has read (100 Continue) and whose bodies are still to come
  const COUNT = 20
  const body = (i: number): string => JSON.stringify({ message: `IN FLIGHT ${i}`, fromDepartment: 'OPS', fromPerson: 'STOP TEST' })
  const creates = await Promise.all(Array.from({ length: COUNT }, (_, i) => held(port,
    'POST /api/customers/1001100000001/messages HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\n' +
    `Authorization: Bearer ${token}\r\nAgent-Id: 1001\r\nX-Request-Id: stop-${i}\r\nExpect: 100-continue\r\n` +
    `Content-Length: ${Buffer.byteLength(body(i))}\r\n\r\n`)))

  s.child.kill('SIGTERM')
  await s.logged((e) => e.msg === 'stopping' && e.signal === 'SIGTERM')
  for (const [i, c] of creates.entries()) c.socket.write(body(i))
  const answers = await Promise.all(creates.map((c) => c.answer))
  t.equal(await s.exit, 0, 'exit code 0: stopped within the shutdown timeout')

  const ids: string[] = []
  for (const [i, text] of answers.entries()) {
    t.match(text, /^HTTP\/1\.1 200 OK\r\n/, `create ${i} answered 200`)
    t.match(text, new RegExp(`\\r\\nx-request-id: stop-${i}\\r\\n`, 'i'))
    t.match(text, /\r\nconnection: close\r\n/i, 'the client is told the connection ends')
    const created = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { id: string, message: string }
    t.equal(created.message, `IN FLIGHT ${i}`)
    ids.push(created.id)
  }
  t.equal(new Set(ids).size, COUNT)

  // the partner's file has every answered create
  const partners = join(dataDir, 'partners')
  const file = (await readPartnerFiles(partners, 'partner-a', logGenerations(readdirSync(partners)).get('partner-a') ?? [])).data
  const stored = new Set(file.agents.flatMap((a) => a.messages.map((m) => m.id)))
  t.same(ids.filter((id) => !stored.has(id)), [], 'no answered create is missing from the data dir')

  // the log: JSON lines, the request id on each request's line, the stop from signal to end
  const entries = s.lines().map((l) => JSON.parse(l) as Record<string, unknown>)
  for (let i = 0; i < COUNT; i++) {
    t.ok(entries.some((e) => e.reqId === `stop-${i}` && e.msg === 'request completed' && e.statusCode === 200 && e.partner === 'partner-a' && e.agent === '1001'), `log line of stop-${i}`)
  }
  t.ok(entries.some((e) => e.msg === 'stopped'))
  t.notOk(entries.some((e) => Number(e.level) >= 50), 'no error logged')
  t.notMatch(s.lines().join('\n'), new RegExp(token.split('.')[2]), 'the token is not in the log')
})

t.test('SIGTERM: requests written on open keep-alive connections after the stop began are answered with Connection: close, never reset', async (t) => {
  const s = await start(t, ['--port', '0'])
  const port = Number(new URL(s.url).port)
  const request = 'GET /health HTTP/1.1\r\nHost: sandbox\r\n\r\n'
  // eight clients, each with one answered request on a connection kept alive
  const clients = await Promise.all(Array.from({ length: 8 }, async () => await new Promise<{ socket: Socket, text: () => string, ended: Promise<string> }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    socket.setEncoding('utf8')
    let text = ''
    const ended = new Promise<string>((resolve) => {
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'))
      socket.once('close', () => resolve('closed'))
    })
    socket.on('data', (chunk: string) => {
      text += chunk
      if (/\r\n\r\n\{"status":"UP"\}$/.test(text)) resolve({ socket, text: () => text, ended })
    })
    socket.once('error', reject)
  })))
  for (const c of clients) t.notMatch(c.text(), /connection: close/i, 'kept alive before the stop')
  s.child.kill('SIGTERM')
  // the stop has begun once new connections are refused (sooner than its log line, which is batched)
  while (await new Promise<boolean>((resolve) => {
    const probe = connect(port, '127.0.0.1', () => { probe.destroy(); resolve(true) })
    probe.once('error', () => resolve(false))
  })) await new Promise((resolve) => setTimeout(resolve, 5))
  for (const c of clients) c.socket.write(request)
  const endings = await Promise.all(clients.map((c) => c.ended))
  t.same(endings, clients.map(() => 'closed'), 'every connection closed by the server, none reset')
  for (const c of clients) {
    const answers = c.text().split(/(?=HTTP\/1\.1 )/)
    t.equal(answers.length, 2, 'the request written after the stop began was answered')
    t.match(answers[1], /^HTTP\/1\.1 (200|503) /)
    t.match(answers[1], /\r\nconnection: close\r\n/i, 'with Connection: close')
  }
  t.equal(await s.exit, 0)
  await t.rejects(fetch(`${s.url}/health`), 'a new connection is refused once stopped')
})
