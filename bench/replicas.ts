// npm run bench, third part: replicas sharing their state through Redis (issue 28). W1 and W2 against one
// Redis-mode replica side by side with the in-memory sandbox and bare Fastify (rounds of rotating order,
// bench/harness.ts); then the same load through HAProxy to one replica and to two. Needs redis-server and
// haproxy (Debian's packages); without them it says so and stops. Where taskset exists, the first replica
// runs on CPU 0 and everything else (this load generator, Redis, HAProxy, the second replica) is left to the
// scheduler: on a 2-core machine two replicas share the second core with the load generator, Redis and
// HAProxy, which caps what a second replica can add (the figures say how much CPU each part took).
// Knobs: BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS (bench/harness.ts). Writes bench/results/replicas.json.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLK_TCK, CONNECTIONS, DURATION, RESULTS, compare, fmt, freePort, once, pause, pct, reset, rssMbOf, say, startBaseline, startSandbox, table, verdict, w1Options, w2Options, type Server } from './harness.js'

const TARGETS = { w1OfMemory: 0.5, w2OfMemory: 0.4, twoOfOne: 1.5 }
const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0

/** CPU seconds a process has used (Linux /proc). */
function cpuOf (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}

async function waitFor (what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return
    await pause(50)
  }
  throw new Error(`${what} did not come up`)
}

async function startRedis (dir: string): Promise<{ url: string, child: ChildProcess }> {
  const port = await freePort()
  // the persistence the README asks for: AOF, fsync every second (appendfsync always costs each write a disk flush)
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'], { stdio: 'ignore' })
  await waitFor('redis-server', async () => spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG')
  return { url: `redis://127.0.0.1:${port}`, child }
}

async function startHaproxy (dir: string, port: number, backends: Server[]): Promise<ChildProcess> {
  const config = join(dir, `haproxy-${port}.cfg`)
  writeFileSync(config, ['global', '  maxconn 4096', 'defaults', '  mode http', '  timeout connect 2s', '  timeout client 30s', '  timeout server 30s', '  timeout check 2s',
    'frontend sandbox', `  bind 127.0.0.1:${port}`, '  default_backend replicas', 'backend replicas', '  balance roundrobin', '  option httpchk GET /ready',
    '  default-server inter 1s fall 2 rise 1', ...backends.map((b, i) => `  server replica${i + 1} 127.0.0.1:${b.port} check`), ''].join('\n'))
  const child = spawn('haproxy', ['-f', config, '-db'], { stdio: 'ignore' })
  await waitFor('haproxy', async () => await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status === 200, () => false))
  return child
}

/** A Server-shaped target for the load balancer (compare() reads its CPU: HAProxy's own). */
function balancer (name: string, port: number, child: ChildProcess): Server {
  return { name, port, base: `http://127.0.0.1:${port}`, pid: child.pid!, cpuSeconds: () => cpuOf(child.pid!), rssMb: () => rssMbOf(child.pid!) } as unknown as Server
}

if (!has('redis-server') || !has('haproxy')) {
  say('bench/replicas.ts: redis-server and haproxy are needed (apt-get install redis-server haproxy); skipped')
  process.exit(0)
}

const work = mkdtempSync(join(tmpdir(), 'sandbox-bench-replicas-'))
const children: ChildProcess[] = []
const servers: Server[] = []
try {
  const redis = await startRedis(work)
  children.push(redis.child)
  const lbPorts = [await freePort(), await freePort()]
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  // every replica has the load balancers' URL as its public URL (the tokens' issuer): the one-replica load balancer's
  const shared: NodeJS.ProcessEnv = { SANDBOX_REDIS_URL: redis.url, SANDBOX_SIGNING_KEY: key, PUBLIC_URL: `http://127.0.0.1:${lbPorts[0]}` }
  say('starting the in-memory sandbox, bare Fastify, and two Redis-mode replicas')
  const memory = await startSandbox('sandbox-memory')
  servers.push(memory)
  const replica1 = await startSandbox('replica-1', undefined, undefined, undefined, shared)
  servers.push(replica1)
  const replica2 = await startSandbox('replica-2', undefined, undefined, undefined, shared)
  servers.push(replica2)
  if (has('taskset')) spawnSync('taskset', ['-p', '-c', '0', String(replica1.pid)])
  const w1Bytes = await once(await w1Options(memory))
  const banksFile = join(work, 'banks.json')
  writeFileSync(banksFile, w1Bytes.text)
  const baseline = await startBaseline(banksFile)
  servers.push(baseline)

  const w1 = await compare('W1 (Redis)', [
    { key: 'replica', server: replica1, options: () => w1Options(replica1) },
    { key: 'memory', server: memory, options: () => w1Options(memory) },
    { key: 'baseline', server: baseline, options: () => w1Options(baseline, memory) }
  ])
  const w2 = await compare('W2 (Redis)', [
    { key: 'replica', server: replica1, options: () => w2Options(replica1), before: () => reset(replica1) },
    { key: 'memory', server: memory, options: () => w2Options(memory), before: () => reset(memory) },
    { key: 'baseline', server: baseline, options: () => w2Options(baseline, memory) }
  ])
  await memory.stop()
  await baseline.stop()

  say('HAProxy to one replica and to two')
  const one = await startHaproxy(work, lbPorts[0], [replica1])
  const two = await startHaproxy(work, lbPorts[1], [replica1, replica2])
  children.push(one, two)
  const lbOne = balancer('haproxy-1', lbPorts[0], one)
  const lbTwo = balancer('haproxy-2', lbPorts[1], two)
  const cpu0 = { r1: replica1.cpuSeconds(), r2: replica2.cpuSeconds(), redis: cpuOf(redis.child.pid!) }
  const lbW1 = await compare('W1 through HAProxy', [
    { key: 'one', server: lbOne, options: () => w1Options(lbOne, replica1) },
    { key: 'two', server: lbTwo, options: () => w1Options(lbTwo, replica1) }
  ])
  const lbW2 = await compare('W2 through HAProxy', [
    { key: 'one', server: lbOne, options: () => w2Options(lbOne, replica1), before: () => reset(replica1) },
    { key: 'two', server: lbTwo, options: () => w2Options(lbTwo, replica1), before: () => reset(replica1) }
  ])
  const cpuUsed = { replica1: replica1.cpuSeconds() - cpu0.r1, replica2: replica2.cpuSeconds() - cpu0.r2, redis: cpuOf(redis.child.pid!) - cpu0.redis }
  const redisInfo = spawnSync('redis-cli', ['-u', redis.url, 'info', 'commandstats'], { encoding: 'utf8' }).stdout

  const ratios = { w1OfMemory: w1.replica.rps / w1.memory.rps, w2OfMemory: w2.replica.rps / w2.memory.rps, w1Two: lbW1.two.rps / lbW1.one.rps, w2Two: lbW2.two.rps / lbW2.one.rps }
  const met = { w1OfMemory: ratios.w1OfMemory >= TARGETS.w1OfMemory, w2OfMemory: ratios.w2OfMemory >= TARGETS.w2OfMemory, twoOfOne: ratios.w2Two >= TARGETS.twoOfOne }
  const lat = (m: { latencyMs: { p50: number, p99: number } }): string => `${fmt(m.latencyMs.p50, 1)} / ${fmt(m.latencyMs.p99, 1)}`
  const lines = [
    '',
    'Replicas on Redis (issue 28)',
    table([
      ['Figure', 'req/s', 'p50 / p99 ms', 'CPU us/req', 'result', 'goal'],
      ['W1, one Redis-mode replica', fmt(w1.replica.rps), lat(w1.replica), fmt(w1.replica.cpuUsPerRequest), pct(ratios.w1OfMemory), `>=50% of in memory ${verdict(met.w1OfMemory)}`],
      ['W1, in memory', fmt(w1.memory.rps), lat(w1.memory), fmt(w1.memory.cpuUsPerRequest), '', ''],
      ['W1, bare Fastify', fmt(w1.baseline.rps), lat(w1.baseline), fmt(w1.baseline.cpuUsPerRequest), '', ''],
      ['W2, one Redis-mode replica', fmt(w2.replica.rps), lat(w2.replica), fmt(w2.replica.cpuUsPerRequest), pct(ratios.w2OfMemory), `>=40% of in memory ${verdict(met.w2OfMemory)}`],
      ['W2, in memory', fmt(w2.memory.rps), lat(w2.memory), fmt(w2.memory.cpuUsPerRequest), '', ''],
      ['W2, bare Fastify', fmt(w2.baseline.rps), lat(w2.baseline), fmt(w2.baseline.cpuUsPerRequest), '', ''],
      ['W1 through HAProxy, one replica', fmt(lbW1.one.rps), lat(lbW1.one), '', '', ''],
      ['W1 through HAProxy, two replicas', fmt(lbW1.two.rps), lat(lbW1.two), '', `${fmt(ratios.w1Two, 2)}x`, ''],
      ['W2 through HAProxy, one replica', fmt(lbW2.one.rps), lat(lbW2.one), '', '', ''],
      ['W2 through HAProxy, two replicas', fmt(lbW2.two.rps), lat(lbW2.two), '', `${fmt(ratios.w2Two, 2)}x`, `>=1.5x ${verdict(met.twoOfOne)}`]
    ]),
    `  CPU seconds during the HAProxy rounds: replica 1 ${fmt(cpuUsed.replica1, 1)}, replica 2 ${fmt(cpuUsed.replica2, 1)}, redis-server ${fmt(cpuUsed.redis, 1)} (of ${fmt(DURATION * 4 + 8 * 4, 0)} s of load on 2 cores)`
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, 'replicas.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, connections: CONNECTIONS, durationSeconds: DURATION, w1, w2, lbW1, lbW2, ratios, met, cpuUsed, redisCommandStats: redisInfo }, null, 2)}\n`)
} finally {
  await Promise.all(servers.map(async (s) => await s.stop()))
  for (const c of children) c.kill('SIGKILL')
  rmSync(work, { recursive: true, force: true })
}
