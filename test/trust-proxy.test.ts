import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ConfigError, loadConfig } from '../src/config.js'
import { buildServer } from '../src/server.js'
import { trustProxyOf } from '../src/trust-proxy.js'
import { token } from './calls.js'
import { PUBLIC_URL, SIGNING_KEY, build, freePort } from './helper.js'
import { replicaSkip } from './replicas/harness.js'

/*
 * Issue 50, "client addresses through proxies": SANDBOX_TRUST_PROXY (addresses, CIDR ranges or a hop count) makes
 * request.ip the client's own address behind a load balancer, for the request log line, the journal, rate limits and
 * lockouts. Shown behind the HAProxy of deploy/compose (its own haproxy.cfg, bound to test ports), with clients
 * sending from 127.0.0.2 and 127.0.0.3: with the option they are two addresses, without it one.
 */

const ADMIN = 'operator-secret-0123456789'

t.test('SANDBOX_TRUST_PROXY is read item by item: addresses, CIDR ranges, range names or a hop count', async (t) => {
  t.same(trustProxyOf(undefined), false, 'unset: no proxy trusted')
  t.same(trustProxyOf('10.0.0.0/8, 192.168.1.7,::1,fd00::/8,loopback'), ['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8', 'loopback'])
  t.same(trustProxyOf('10.1.0.0/255.255.0.0'), ['10.1.0.0/255.255.0.0'], 'an IPv4 netmask')
  const hops = trustProxyOf(' 2 ') as (address: string, hop: number) => boolean
  t.same([hops('10.0.0.1', 0), hops('10.0.0.2', 1), hops('10.0.0.3', 2)], [true, true, false], 'two hops: the peer and the one before it')
  for (const bad of ['0', '33', 'true', 'proxy.internal', '10.0.0.0/33', '::1/129', '10.0.0.0/', '10.0.0.0/8/8', '300.1.1.1', '10.0.0.1,', 'a'.repeat(4000)]) {
    t.throws(() => trustProxyOf(bad), `refused: ${bad.slice(0, 20)}`)
  }
  t.throws(() => loadConfig({ trustProxy: '10.0.0.0/40' }), new ConfigError('invalid option --trust-proxy / SANDBOX_TRUST_PROXY = "10.0.0.0/40": "10.0.0.0/40": the prefix length must be 0 to 32; expected addresses or CIDR ranges separated by commas, or a number of hops'))
  t.equal(loadConfig({ trustProxy: '1' }).trustProxy, '1', 'a flag or variable is text: a number stays the hop count')
})

t.test('with SANDBOX_TRUST_PROXY the address a trusted proxy forwards is the client address; without it, or from another peer, the forwarded value is ignored', async (t) => {
  for (const [trustProxy, peer, expected] of [['10.0.0.0/8', '10.1.2.3', '203.0.113.7'], [undefined, '10.1.2.3', '10.1.2.3'], ['10.0.0.0/8', '192.0.2.1', '192.0.2.1'], ['1', '192.0.2.1', '203.0.113.7']] as const) {
    const app = await build(t, { adminToken: ADMIN, addressLockoutFailures: 1, ...(trustProxy === undefined ? {} : { trustProxy }) })
    const headers = { authorization: 'Bearer wrong-token', 'x-forwarded-for': '198.51.100.1, 203.0.113.7' }
    t.equal((await app.inject({ url: '/__sandbox/admin/partners', headers, remoteAddress: peer })).statusCode, 401)
    const bearer = { authorization: `Bearer ${ADMIN}` }
    // the lock is on the address the request was counted under: the forwarded one, or the peer's
    const lockedAddress = (await app.inject({ url: '/__sandbox/admin/partners', headers: bearer, remoteAddress: expected })).statusCode
    t.equal(lockedAddress, 429, `trust ${String(trustProxy)}, peer ${peer}: counted under ${expected}`)
  }
})

/** deploy/compose/haproxy.cfg, as it is, on test ports and in front of one sandbox on 127.0.0.1 (no Docker DNS). */
function composeHaproxyConfig (port: number, monitorPort: number, sandboxPort: number): string {
  const out: string[] = []
  let inResolvers = false
  for (const line of readFileSync(join(import.meta.dirname, '..', 'deploy', 'compose', 'haproxy.cfg'), 'utf8').split('\n')) {
    const text = line.trim()
    if (text.startsWith('resolvers ')) inResolvers = true
    if (inResolvers) {
      inResolvers = text !== ''
      continue
    }
    if (text === 'bind :8080') out.push(`  bind 127.0.0.1:${port}`)
    else if (text === 'bind 127.0.0.1:8081') out.push(`  bind 127.0.0.1:${monitorPort}`)
    else if (text.startsWith('default-server ')) out.push('  default-server check inter 1s fall 2 rise 2')
    else if (text.startsWith('server sandbox-1')) out.push(line.replace('sandbox-1:8080', `127.0.0.1:${sandboxPort}`))
    else if (!text.startsWith('server ')) out.push(line)
  }
  return out.join('\n')
}

interface Answer { status: number, json: any }

/** A request sent from a source address of the machine's loopback (127.0.0.2, 127.0.0.3: every 127/8 address is local on Linux). */
async function from (source: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return await new Promise((resolve, reject) => {
    const req = request(url, { localAddress: source, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode!, json: text === '' ? null : JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** A sandbox (its log lines kept) behind HAProxy with deploy/compose's config; the base URL is HAProxy's. */
async function behindHaproxy (t: Test, trustProxy: string | undefined): Promise<{ base: string, lines: string[] }> {
  const lines: string[] = []
  const sandboxPort = await freePort()
  const config = loadConfig({
    logLevel: 'info',
    signingKey: SIGNING_KEY,
    publicUrl: PUBLIC_URL,
    maxEventLoopDelay: 60000,
    managementPort: 0,
    port: sandboxPort,
    host: '127.0.0.1',
    adminToken: ADMIN,
    addressLockoutFailures: 2,
    ...(trustProxy === undefined ? {} : { trustProxy })
  })
  const app = await buildServer(config, undefined, { log: { write: (line) => { lines.push(line) } } })
  t.teardown(() => app.close())
  await app.listen({ port: sandboxPort, host: '127.0.0.1' })
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-haproxy-'))
  writeFileSync(join(dir, 'haproxy.cfg'), composeHaproxyConfig(port, await freePort(), sandboxPort))
  const haproxy = spawn('haproxy', ['-f', join(dir, 'haproxy.cfg'), '-db'], { stdio: 'ignore' })
  t.teardown(() => {
    haproxy.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })
  const base = `http://127.0.0.1:${port}`
  for (let tries = 0; (await fetch(`${base}/ready`).then((r) => r.status, () => 0)) !== 200; tries++) {
    if (tries > 200) throw new Error('HAProxy did not answer /ready')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { base, lines }
}

const skip = replicaSkip()

t.test("deploy/compose's HAProxy forwards the client's address and the replicas trust it", async (t) => {
  t.match(readFileSync(join(import.meta.dirname, '..', 'deploy', 'compose', 'haproxy.cfg'), 'utf8'), /^\s*option forwardfor\b/m, 'HAProxy sets X-Forwarded-For from the real source')
  t.match(readFileSync(join(import.meta.dirname, '..', 'deploy', 'compose', 'compose.yaml'), 'utf8'), /^\s*SANDBOX_TRUST_PROXY: /m, 'the replicas trust it')
})

for (const trusted of [true, false]) {
  t.test(`behind deploy/compose's HAProxy ${trusted ? 'with SANDBOX_TRUST_PROXY=127.0.0.1 two clients are two addresses' : 'without SANDBOX_TRUST_PROXY every client is HAProxy\'s address'}: in the log, the journal and the lockout`, { skip }, async (t) => {
    const { base, lines } = await behindHaproxy(t, trusted ? '127.0.0.1' : undefined)
    const tok = await token(base)
    // each client also sends an X-Forwarded-For of its own: HAProxy adds the real source after it, which is the one believed
    const forged = { 'x-forwarded-for': '203.0.113.9' }
    for (const source of ['127.0.0.2', '127.0.0.3']) {
      t.equal((await from(source, `${base}/api/banks`, { ...forged, authorization: `Bearer ${tok}`, 'agent-id': '1001' })).status, 200, `a call from ${source}`)
    }
    const clients = trusted ? ['127.0.0.2', '127.0.0.3'] : ['127.0.0.1', '127.0.0.1']
    const journal = await from('127.0.0.1', `${base}/__sandbox/requests?path=/api/banks`, { authorization: `Bearer ${tok}` })
    t.same(journal.json.requests.map((e: { clientAddress: string }) => e.clientAddress).reverse(), clients, 'the journal')
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.msg === 'request completed' && e.url === '/api/banks')
    t.same(logged.map((e) => e.remoteAddress), clients, 'the request log lines')

    for (let i = 0; i < 2; i++) t.equal((await from('127.0.0.2', `${base}/__sandbox/admin/partners`, { ...forged, authorization: `Bearer wrong-${i}` })).status, 401, 'a wrong operator token from 127.0.0.2')
    t.equal((await from('127.0.0.2', `${base}/__sandbox/admin/partners`, { authorization: `Bearer ${ADMIN}` })).status, 429, '127.0.0.2 is locked')
    t.equal((await from('127.0.0.3', `${base}/__sandbox/admin/partners`, { authorization: `Bearer ${ADMIN}` })).status, trusted ? 200 : 429,
      trusted ? '127.0.0.3 has a count of its own' : '127.0.0.3 shares the lock of every client behind HAProxy')
  })
}
