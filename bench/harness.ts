// The bench harness: servers under test in child processes, autocannon comparisons in rounds of rotating order,
// and the table printer (bench/run.ts and the workload files use it).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { get } from 'node:http'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { freePort } from '../test/ports.js'
import { LAUNCH_FLAGS } from '../src/heap.js'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const RESULTS = join(ROOT, 'bench', 'results')
export const HOST = '127.0.0.1'
export const TOKEN_PATH = '/auth/realms/sandbox/protocol/openid-connect/token'
export const CLIENT = { id: 'partner-a', secret: 'partner-a-secret' }
export const AGENT_ID = '1001'
export const CUSTOMER_ID = '1001100000001'
export const W1_PATH = '/api/banks?page=0&size=10'
export const W2_PATH = `/api/customers/${CUSTOMER_ID}/messages`
export const MESSAGE = JSON.stringify({ message: 'YOUR STATEMENT FOR OCTOBER IS READY.', fromDepartment: 'CARD SERVICES', fromPerson: 'THANDI MOKOENA' })

export const DURATION = positive('BENCH_DURATION', 10)
export const ROUNDS = 4
export const WARMUP = positive('BENCH_WARMUP', 3)
/** Seconds of unmeasured load right before each measured round (see compare). */
export const REWARM = 1
export const CONNECTIONS = positive('BENCH_CONNECTIONS', 50)
export const LOG_LEVEL = process.env.BENCH_LOG_LEVEL
export const CPU_PROF = process.env.BENCH_CPU_PROF === '1'
export const CLK_TCK = clockTicks()

export function positive (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not "${raw}"`)
  return n
}

export function clockTicks (): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
}

export const say = (line: string): void => { process.stderr.write(`${line}\n`) }
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A free port of 127.0.0.1 (HOST), as the tests choose theirs. */
export { freePort }

export function healthStatus (port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = get({ host: HOST, port, path: '/health', agent: false, timeout: 1000 }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(0))
  })
}

/** A server under test: a child process of its own, on a free loopback port. */
/** Resident set size of a process in MB (Linux /proc, else ps). */
export function rssMbOf (pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    if (m !== null) return Number(m[1]) / 1024
  } catch { /* not Linux */ }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024
}

export class Server {
  stderr = ''
  exited: number | null | undefined
  startupMs = 0
  /** CPU time the process had used when it first answered /health with 200. */
  startupCpuMs = 0

  private constructor (readonly name: string, readonly port: number, readonly proc: ChildProcess) {
    proc.stderr?.setEncoding('utf8')
    proc.stderr?.on('data', (chunk: string) => { this.stderr = (this.stderr + chunk).slice(-8000) })
    proc.once('exit', (code, signal) => { this.exited = code ?? (signal === null ? -1 : 128) })
  }

  get base (): string { return `http://${HOST}:${this.port}` }
  get pid (): number { return this.proc.pid! }

  /** Spawns the process and waits for the first 200 on /health; startupMs is from spawn to that answer. */
  static async start (name: string, args: string[], env: NodeJS.ProcessEnv, port: number): Promise<Server> {
    const t0 = performance.now()
    const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
    const server = new Server(name, port, proc)
    const deadline = t0 + 60_000
    for (;;) {
      if (server.exited !== undefined) throw new Error(`${name} exited (${server.exited}) before answering /health:\n${server.stderr}`)
      if (await healthStatus(port) === 200) break
      if (performance.now() > deadline) {
        await server.stop()
        throw new Error(`${name} did not answer /health with 200 within 60 s:\n${server.stderr}`)
      }
      await pause(5)
    }
    server.startupMs = performance.now() - t0
    server.startupCpuMs = server.cpuSeconds() * 1000
    return server
  }

  /** Resident set size in MB. */
  rssMb (): number {
    return rssMbOf(this.pid)
  }

  /** CPU seconds (user + system) the process has used so far; NaN where /proc is missing. */
  cpuSeconds (): number {
    try {
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
    } catch {
      return Number.NaN
    }
  }

  /** SIGTERM (the sandbox stops gracefully and flushes its store), SIGKILL after 15 s. */
  async stop (): Promise<void> {
    if (this.exited !== undefined) return
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()))
    this.proc.kill('SIGTERM')
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(timer)
  }
}

/** The environment of a sandbox: none of the caller's sandbox options leak in, only what the bench sets. */
export function sandboxEnv (port: number, dataDir?: string, logLevel = LOG_LEVEL): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(PORT|HOST|PUBLIC_URL|LOG_LEVEL|SANDBOX_.*|NODE_OPTIONS)$/.test(k)) continue
    env[k] = v
  }
  env.PORT = String(port)
  env.HOST = HOST
  env.PUBLIC_URL = `http://${HOST}:${port}`
  // metrics on, as by default, on a free management port (several sandboxes side by side)
  env.SANDBOX_MANAGEMENT_PORT = '0'
  if (logLevel !== undefined) env.LOG_LEVEL = logLevel
  if (dataDir !== undefined) env.SANDBOX_DATA_DIR = dataDir
  return env
}

export async function startSandbox (name: string, dataDir?: string, logLevel?: string, scenario?: string, extra: NodeJS.ProcessEnv = {}): Promise<Server> {
  const port = await freePort()
  const prof = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles')}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : []
  const env = { ...sandboxEnv(port, dataDir, logLevel), ...extra }
  if (scenario !== undefined) env.SANDBOX_SCENARIO = scenario
  // launched as npm start, the bin and the image launch it (src/heap.ts LAUNCH_FLAGS)
  return await Server.start(name, [...prof, ...LAUNCH_FLAGS, 'dist/cli.js'], env, port)
}

/** Bare Fastify (bench/baseline.ts); with answerBatching, plus the sandbox's answer batching. */
export async function startBaseline (banksFile: string, answerBatching = false): Promise<Server> {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST, BASELINE_BANKS_FILE: banksFile, BASELINE_ANSWER_BATCHING: answerBatching ? '1' : '0' }
  delete env.NODE_OPTIONS
  return await Server.start(answerBatching ? 'baseline-batched' : 'baseline', ['--import', 'tsx', 'bench/baseline.ts'], env, port)
}

/** The operator token of the sandboxes the bench starts with SANDBOX_ADMIN_TOKEN (partners, journal). */
export const ADMIN_TOKEN = 'bench-operator-token-0123456789'

/** A call of the operator API (/__sandbox/admin); anything but 200 stops the bench. */
export async function admin (server: Server, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${server.base}/__sandbox/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  if (res.status !== 200) throw new Error(`${method} /__sandbox/admin${path} answered ${res.status}: ${await res.text()}`)
  return await res.json()
}

export async function clientToken (server: Server, client = CLIENT): Promise<string> {
  const res = await fetch(`${server.base}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=openid'
  })
  if (res.status !== 200) throw new Error(`${server.name}: token request answered ${res.status}: ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

/** A partner's request headers: a real access token of `tokens` (the baseline gets the same bytes and ignores them). */
export async function apiHeaders (tokens: Server): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await clientToken(tokens)}`, 'agent-id': AGENT_ID }
}

export async function w1Options (server: Server, tokens = server): Promise<autocannon.Options> {
  return { url: `${server.base}${W1_PATH}`, headers: await apiHeaders(tokens) }
}

export async function w2Options (server: Server, tokens = server): Promise<autocannon.Options> {
  return { url: `${server.base}${W2_PATH}`, method: 'POST', headers: { ...await apiHeaders(tokens), 'content-type': 'application/json' }, body: MESSAGE }
}

/** Client-credentials token requests of partner-a (HTTP Basic), as a partner's backend sends them. */
export function tokenOptions (server: Server): autocannon.Options {
  return {
    url: `${server.base}${TOKEN_PATH}`,
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=openid'
  }
}

/** Back to the start of the default scenario (the messages of earlier rounds go). */
export async function reset (server: Server): Promise<void> {
  const res = await fetch(`${server.base}/__sandbox/reset`, { method: 'POST', headers: { authorization: `Bearer ${await clientToken(server)}` } })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`${server.name}: reset answered ${res.status}`)
}

export async function once (o: autocannon.Options): Promise<{ status: number, text: string }> {
  const res = await fetch(o.url, { method: o.method ?? 'GET', headers: o.headers, body: o.body })
  return { status: res.status, text: await res.text() }
}

export interface Measured {
  /** 2xx answers per second over the measured rounds. */
  rps: number
  ok: number
  non2xx: number
  errors: number
  timeouts: number
  seconds: number
  /**
   * Of the 2xx answers of the measured rounds, from each answer's own latency (autocannon's, unrounded):
   * autocannon's histogram keeps whole milliseconds (cut, not rounded), so its p99 of 5.9 ms reads 5 and of
   * 9.1 reads 9, a step of 10-20% in a ratio of two p99s. p99Autocannon is its figure, for comparison.
   */
  latencyMs: { p50: number, p90: number, p99: number, p99_9: number, max: number, average: number, p99Autocannon: number }
  /** CPU time of the server process per 2xx answer, in microseconds (the figure least moved by other load). */
  cpuUsPerRequest: number
  statusCodes: Record<string, number>
  /**
   * Resident memory under load: the largest RSS of the server read the moment each of its measured rounds
   * ended, so that every contender is read at the same point of its own load (see compare).
   */
  rssUnderLoadMb: number
  /** Each measured round's own figures, in the order run (p99 of that round's answers, CPU per answer of it). */
  rounds: Array<{ rps: number, ok: number, seconds: number, after: number, rssMb: number, p99Ms: number, cpuUsPerRequest: number }>
}

export interface Contender {
  key: string
  server: Server
  /** The run's options, made again for every run (a fresh access token each time: long runs outlive a token). */
  options: () => Promise<autocannon.Options>
  /** Run before each measured round (after the warm-up too). */
  before?: () => Promise<void>
  /** Run after each measured round; its answer is kept in the round's figures. */
  after?: () => number
}

/**
 * The order of round r: the contenders rotated by r (A B C D, B C D A, C D A B, D A B C), so that over the
 * rounds each takes every place once and waits about as long between its rounds as the others. Reversing
 * every other round (A B C D, D C B A) gave the first contender waits of none and of the whole order, and a
 * contender that had waited longest was measured slowest (bench/ab.ts, four sandboxes of one build,
 * 2026-11-24: 55-59 us of CPU per W2 request for the first against 48-51 for the middle ones, run after run);
 * compare's re-warm below removes what is left of that.
 */
export function roundOrder<T> (contenders: readonly T[], round: number): T[] {
  const shift = round % contenders.length
  return [...contenders.slice(shift), ...contenders.slice(0, shift)]
}

/**
 * Warm-up for each, then ROUNDS rounds of DURATION/ROUNDS seconds each, in the order of roundOrder, each
 * round preceded by REWARM seconds of the same load that are not measured: a contender that had been idle
 * for some twenty seconds while the others loaded both cores spent up to a fifth more CPU per request in its
 * next round, bare Fastify as much as the sandbox (ab.ts, 2026-11-24: four sandboxes of one build at 46-61
 * us per W2 request by round, 44-52 with the re-warm; bare Fastify 26-32 against 22-25).
 */
export async function compare (label: string, contenders: Contender[], connections = CONNECTIONS): Promise<Record<string, Measured>> {
  for (const c of contenders) {
    say(`${label}: warm-up ${c.key} (${WARMUP} s)`)
    await autocannon({ ...await c.options(), connections, duration: WARMUP, skipAggregateResult: true })
  }
  const raw = new Map<string, autocannon.RawResult[]>(contenders.map((c) => [c.key, []]))
  const cpu = new Map<string, number>(contenders.map((c) => [c.key, 0]))
  const after = new Map<string, number[]>(contenders.map((c) => [c.key, []]))
  const rss = new Map<string, number[]>(contenders.map((c) => [c.key, []]))
  const latencies = new Map<string, number[]>(contenders.map((c) => [c.key, []]))
  const roundP99 = new Map<string, number[]>(contenders.map((c) => [c.key, []]))
  const roundCpu = new Map<string, number[]>(contenders.map((c) => [c.key, []]))
  for (let r = 0; r < ROUNDS; r++) {
    const order = roundOrder(contenders, r)
    for (const c of order) {
      await c.before?.()
      const options = await c.options()
      // steady state: a process that sat idle while the others ran met its round slower (bare Fastify too)
      await autocannon({ ...options, connections, duration: REWARM, skipAggregateResult: true })
      await pause(500)
      const before = c.server.cpuSeconds()
      const run = autocannon({ ...options, connections, duration: DURATION / ROUNDS, skipAggregateResult: true })
      const times: number[] = []
      run.on('response', (_client, status, _bytes, ms) => { if (status >= 200 && status < 300) times.push(ms) })
      const result = await run
      const used = c.server.cpuSeconds() - before
      cpu.set(c.key, cpu.get(c.key)! + used)
      for (const t of times) latencies.get(c.key)!.push(t)
      roundP99.get(c.key)!.push(percentiles(times).p99)
      roundCpu.get(c.key)!.push(result['2xx'] > 0 ? used * 1e6 / result['2xx'] : Number.NaN)
      rss.get(c.key)!.push(c.server.rssMb())
      raw.get(c.key)!.push(result)
      after.get(c.key)!.push(c.after?.() ?? Number.NaN)
      say(`${label}: round ${r + 1}/${ROUNDS} ${c.key}: ${Math.round(result['2xx'] / result.duration)} req/s` +
        (result.non2xx + result.errors > 0 ? ` (non-2xx ${result.non2xx}, errors ${result.errors})` : ''))
    }
  }
  const out: Record<string, Measured> = {}
  for (const c of contenders) {
    const runs = raw.get(c.key)!
    const merged = autocannon.aggregateResult(runs, { url: (await c.options()).url, connections })
    const ok = runs.reduce((n, x) => n + x['2xx'], 0)
    const seconds = runs.reduce((n, x) => n + x.duration, 0)
    const statusCodes: Record<string, number> = {}
    for (const [code, s] of Object.entries(merged.statusCodeStats)) statusCodes[code] = s.count
    out[c.key] = {
      rps: ok / seconds,
      ok,
      non2xx: merged.non2xx,
      errors: merged.errors,
      timeouts: merged.timeouts,
      seconds,
      latencyMs: { ...percentiles(latencies.get(c.key)!), max: merged.latency.max, average: merged.latency.average, p99Autocannon: merged.latency.p99 },
      cpuUsPerRequest: ok > 0 ? cpu.get(c.key)! * 1e6 / ok : Number.NaN,
      statusCodes,
      rssUnderLoadMb: Math.max(...rss.get(c.key)!),
      rounds: runs.map((x, i) => ({ rps: x['2xx'] / x.duration, ok: x['2xx'], seconds: x.duration, after: after.get(c.key)![i], rssMb: rss.get(c.key)![i], p99Ms: roundP99.get(c.key)![i], cpuUsPerRequest: roundCpu.get(c.key)![i] }))
    }
  }
  return out
}

/** Nearest-rank percentiles of latencies in ms (NaN for none). */
export function percentiles (ms: number[]): { p50: number, p90: number, p99: number, p99_9: number } {
  const sorted = Float64Array.from(ms).sort()
  const at = (q: number): number => sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), p99_9: at(0.999) }
}

export const fmt = (n: number, digits = 0): string => Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a'
export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
export const verdict = (ok: boolean): string => ok ? 'met' : 'MISSED'

export function table (rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)))
  return rows.map((r, j) => {
    const line = r.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join('  ')
    return j === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line
  }).join('\n')
}

/** W1 and W2 against two sandboxes that differ in one feature, on and off (bench/journal.ts, bench/metrics.ts, bench/tracing.ts). */
export async function compareOnOff (on: Server, off: Server): Promise<{ w1: Record<'on' | 'off', Measured>, w2: Record<'on' | 'off', Measured> }> {
  const w1 = await compare('W1', [
    { key: 'on', server: on, options: () => w1Options(on) },
    { key: 'off', server: off, options: () => w1Options(off) }
  ])
  const w2 = await compare('W2', [
    { key: 'on', server: on, options: () => w2Options(on), before: () => reset(on) },
    { key: 'off', server: off, options: () => w2Options(off), before: () => reset(off) }
  ])
  return { w1, w2 }
}

/** A change in percent with its sign: +3.8% or -5.8%. */
export const signedPercent = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`
