import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { CLI, ROOT, ensureBuilt } from '../built.js'
import { freePort } from '../ports.js'

/*
 * Several replicas of the built sandbox sharing one Redis (SANDBOX_REDIS_URL), as the multi-replica tests need
 * them: a redis-server (or a three-master Redis Cluster) on a free port, replicas as child processes of
 * dist/cli.js, and HAProxy in front of them (round robin, health checks on /ready). Everything is started on
 * 127.0.0.1 and stopped when the test ends.
 *
 * redis-server, haproxy and openssl (the TLS Redis's throwaway CA) come from Debian's packages (.ci/run installs them). Without them the tests skip
 * with a message; where they must run (CI sets SANDBOX_REPLICA_TESTS=required) a missing tool fails instead.
 */

export const TOOLS = ['redis-server', 'redis-cli', 'haproxy', 'openssl'] as const

function has (tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0
}

/**
 * false when the replica tests can run here, else why not: the tests pass it as tap's `skip`. Where they must
 * run (SANDBOX_REPLICA_TESTS=required, as .ci/run sets it) a missing tool is an error instead;
 * SANDBOX_REPLICA_TESTS=skip skips them (.ci/run, on the Node lines older than the image's).
 */
export function replicaSkip (): string | false {
  if (process.env.SANDBOX_REPLICA_TESTS === 'skip') return 'SANDBOX_REPLICA_TESTS=skip: the replica tests run on another Node line'
  const missing = TOOLS.filter((tool) => !has(tool))
  if (missing.length === 0) return false
  const message = `the replica tests need ${missing.join(', ')} (Debian: apt-get install redis-server haproxy openssl)`
  if (process.env.SANDBOX_REPLICA_TESTS === 'required') throw new Error(message)
  return message
}

export { freePort }

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor (what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms
  for (;;) {
    if (await check()) return
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

function exited (child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

async function stopChild (child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (exited(child)) return
  const done = new Promise((resolve) => child.once('exit', resolve))
  child.kill(signal)
  await done
}

/** One signing key for every replica of a test (SANDBOX_SIGNING_KEY), as a real deployment shares one. */
export const SIGNING_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

function redisCli (port: number, ...args: string[]): string {
  const r = spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' })
  return r.stdout.trim()
}

export interface RedisServer {
  url: string
  port: number
  /** redis-cli against it, for looking at keys. */
  cli: (...args: string[]) => string
  /** SIGKILL (nothing flushed beyond what appendfsync made durable). */
  kill: () => Promise<void>
  /** Started again on the same port and directory (its AOF read back). */
  start: () => Promise<void>
  stop: () => Promise<void>
}

/**
 * A redis-server on a free port with the persistence the sandbox needs (AOF, appendfsync always: every
 * acknowledged write survives a crash of Redis itself), in a directory of its own.
 */
export async function startRedis (t: Test, extra: string[] = []): Promise<RedisServer> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-redis-'))
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', ...extra], { stdio: 'ignore' })
    await waitFor(`redis-server on port ${port}`, () => redisCli(port, 'ping') === 'PONG')
  }
  await start()
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    cli: (...args) => redisCli(port, ...args),
    kill: async () => { if (child !== undefined) await stopChild(child, 'SIGKILL') },
    start,
    stop: async () => { if (child !== undefined) await stopChild(child, 'SIGTERM') }
  }
  t.teardown(async () => {
    await server.kill()
    rmSync(dir, { recursive: true, force: true })
  })
  return server
}

export interface SecureRedis {
  /** rediss://sandbox:<password>@127.0.0.1:<port>: the ACL user of users.acl.example, over TLS */
  url: string
  port: number
  /** The PEM file of the throwaway CA that signed the server's certificate (SANDBOX_REDIS_CA). */
  ca: string
  /** redis-cli over TLS, signed in as the sandbox's user. */
  cli: (...args: string[]) => string
  /** redis-cli over TLS, as an administrator the test adds (to read the server's settings). */
  admin: (...args: string[]) => string
  /** redis-cli over TLS, not signed in. */
  anonymous: (...args: string[]) => string
}

const DEPLOY_REDIS = join(ROOT, 'deploy', 'kubernetes', 'redis')

/**
 * A redis-server as deploy/ runs it (issue 51): deploy/kubernetes/redis/redis.conf (TLS only, protected mode,
 * the ACL file) with users.acl.example's rules and a password of its own, and a certificate for 127.0.0.1 that a
 * throwaway CA signed (both made with openssl in a directory of its own). Only the paths and the port differ.
 */
export async function startSecureRedis (t: Test): Promise<SecureRedis> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-redis-tls-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const at = (name: string): string => join(dir, name)
  const openssl = (...args: string[]): void => {
    const made = spawnSync('openssl', args, { encoding: 'utf8' })
    if (made.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${made.stderr}`)
  }
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('ca.key'), '-out', at('ca.crt'), '-days', '1', '-subj', '/CN=test CA')
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('tls.key'), '-out', at('tls.crt'), '-days', '1', '-subj', '/CN=redis',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:FALSE', '-CA', at('ca.crt'), '-CAkey', at('ca.key'))
  const password = randomBytes(24).toString('hex')
  const hash = createHash('sha256').update(password).digest('hex')
  writeFileSync(at('users.acl'), readFileSync(join(DEPLOY_REDIS, 'users.acl.example'), 'utf8').replace('PASSWORD_SHA256', hash) +
    `user test-admin on #${hash} ~* &* +@all\n`)
  const child = spawn('redis-server', [join(DEPLOY_REDIS, 'redis.conf'), '--tls-port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--tls-cert-file', at('tls.crt'), '--tls-key-file', at('tls.key'), '--tls-ca-cert-file', at('ca.crt'), '--aclfile', at('users.acl')], { stdio: 'ignore' })
  t.teardown(async () => { await stopChild(child, 'SIGKILL') })
  const tls = ['--tls', '--cacert', at('ca.crt'), '-h', '127.0.0.1', '-p', String(port)]
  const run = (args: string[]): string => spawnSync('redis-cli', args, { encoding: 'utf8' }).stdout.trim()
  const as = (user: string) => (...args: string[]): string => run([...tls, '--user', user, '--pass', password, '--no-auth-warning', ...args])
  const cli = as('sandbox')
  await waitFor(`redis-server (TLS) on port ${port}`, () => {
    if (exited(child)) throw new Error('redis-server did not start with deploy/kubernetes/redis/redis.conf and TLS')
    return cli('ping') === 'PONG'
  })
  return { url: `rediss://sandbox:${password}@127.0.0.1:${port}`, port, ca: at('ca.crt'), cli, admin: as('test-admin'), anonymous: (...args) => run([...tls, ...args]) }
}

/** A Redis Cluster of three masters (no replicas) on free ports; url names its first node. */
export async function startRedisCluster (t: Test): Promise<{ url: string, ports: number[] }> {
  const nodes: RedisServer[] = []
  for (let i = 0; i < 3; i++) nodes.push(await startRedis(t, ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000']))
  const create = spawnSync('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' })
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`)
  await waitFor('the cluster', () => nodes.every((n) => /cluster_state:ok/.test(n.cli('cluster', 'info'))))
  return { url: nodes[0].url, ports: nodes.map((n) => n.port) }
}

export interface Replica {
  port: number
  base: string
  child: ChildProcess
  log: () => string
  /** SIGTERM: the graceful stop (resolves when the process has exited). */
  stop: () => Promise<void>
  /** SIGKILL, at once. */
  kill: () => Promise<void>
  /** Started again on the same port. */
  start: () => Promise<void>
}

export interface ReplicaOptions {
  redisUrl: string
  /** The URL clients use (the load balancer's): the same for every replica (it is the tokens' issuer). */
  publicUrl: string
  env?: Record<string, string>
  port?: number
}

/** A replica of the built sandbox on a free port of 127.0.0.1, resolved once /ready answers 200. */
export async function startReplica (t: Test, opts: ReplicaOptions): Promise<Replica> {
  ensureBuilt()
  const port = opts.port ?? await freePort()
  let child!: ChildProcess
  let output = ''
  const start = async (): Promise<void> => {
    output = ''
    child = spawn(process.execPath, [CLI], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: opts.publicUrl,
        SANDBOX_REDIS_URL: opts.redisUrl,
        SANDBOX_SIGNING_KEY: SIGNING_KEY,
        LOG_LEVEL: 'warn',
        // a busy test machine must not turn requests into 503s: these tests are about shared state
        SANDBOX_MAX_EVENT_LOOP_DELAY: '60000',
        // as behind any load balancer: serve on while its health checks (every 250 ms, two failures) see /ready fail
        SANDBOX_SHUTDOWN_DRAIN: '1500',
        // the management port (metrics) on a free port; the banner says which
        SANDBOX_MANAGEMENT_PORT: '0',
        ...opts.env
      },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    child.stdout!.on('data', (d: Buffer) => { output += d.toString() })
    child.stderr!.on('data', (d: Buffer) => { output += d.toString() })
    await waitFor(`replica on port ${port}`, async () => {
      if (exited(child)) throw new Error(`the replica on port ${port} exited (${child.exitCode ?? child.signalCode}):\n${output}`)
      return await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status === 200, () => false)
    }, 60_000)
  }
  await start()
  const replica: Replica = {
    port,
    base: `http://127.0.0.1:${port}`,
    get child () { return child },
    log: () => output,
    stop: async () => await stopChild(child, 'SIGTERM'),
    kill: async () => await stopChild(child, 'SIGKILL'),
    start
  }
  t.teardown(async () => await replica.kill())
  return replica
}

/** n replicas on one Redis: the first (which builds the start scenario's partners), then the others together. */
export async function startReplicas (t: Test, n: number, opts: ReplicaOptions): Promise<Replica[]> {
  const first = await startReplica(t, opts)
  return [first, ...await Promise.all(Array.from({ length: n - 1 }, async () => await startReplica(t, opts)))]
}

/**
 * HAProxy on `port` in front of the replicas: round robin, a health check of GET /ready every 250 ms (two
 * failures take a replica out, one success brings it back; a check may take 2 s on a busy machine), requests
 * that failed to connect sent to another; the replicas again as backups without checks, for when all are out.
 */
export async function startHaproxy (t: Test, port: number, replicas: Replica[]): Promise<{ base: string, stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-haproxy-'))
  const config = join(dir, 'haproxy.cfg')
  writeFileSync(config, [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout check 2s',
    '  retries 3',
    '  option redispatch',
    'frontend sandbox',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /ready',
    '  http-check expect status 200',
    '  default-server inter 250ms fall 2 rise 1',
    ...replicas.map((r, i) => `  server replica${i + 1} 127.0.0.1:${r.port} check`),
    // as deploy/compose/haproxy.cfg: with every replica out (none reaches Redis) the replicas answer as backups
    ...replicas.map((r, i) => `  server replica${i + 1}-fallback 127.0.0.1:${r.port} backup`),
    ''
  ].join('\n'))
  const child = spawn('haproxy', ['-f', config, '-db'], { stdio: 'ignore' })
  await waitFor(`haproxy on port ${port}`, async () => await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status === 200, () => false))
  const stop = async (): Promise<void> => await stopChild(child, 'SIGTERM')
  t.teardown(async () => {
    await stopChild(child, 'SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })
  return { base: `http://127.0.0.1:${port}`, stop }
}

/** A client_credentials token (any replica can issue it; every replica accepts it). */
export { token } from '../calls.js'

/** fetch with the token and Agent-Id, JSON in and out. */
export async function call (base: string, tok: string, method: string, path: string, body?: unknown, agentId = '1001'): Promise<{ status: number, json: any, headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${tok}`, 'agent-id': agentId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  let json: unknown
  try { json = text === '' ? null : JSON.parse(text) } catch { json = text }
  return { status: res.status, json, headers: res.headers }
}
