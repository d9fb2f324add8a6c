// npm run bench: the built sandbox (node dist/cli.js) against a bare Fastify baseline (bench/baseline.ts),
// each in a child process of its own on 127.0.0.1, measured with autocannon from this process in
// alternating rounds so that both see the same machine conditions. Prints a table and writes
// bench/results/latest.json. Knobs (environment): BENCH_DURATION (seconds per target and workload,
// default 10, split in 4 rounds), BENCH_WARMUP (default 3), BENCH_CONNECTIONS (default 50),
// BENCH_LOG_LEVEL (default: the product's default, info), BENCH_CPU_PROF=1 (V8 CPU profiles of the
// sandboxes in bench/results/profiles), BENCH_STRICT=1 (exit 1 when a target is missed).
// W1 and W2 also run against a third sandbox at LOG_LEVEL=warn (no per-request log line), for
// information only: the targets are judged on the sandbox at the product's log level.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { createServer } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RESULTS = join(ROOT, 'bench', 'results')
const HOST = '127.0.0.1'
const TOKEN_PATH = '/auth/realms/sandbox/protocol/openid-connect/token'
const CLIENT = { id: 'partner-a', secret: 'partner-a-secret' }
const AGENT_ID = '1001'
const CUSTOMER_ID = '1001100000001'
const W1_PATH = '/api/banks?page=0&size=10'
const W2_PATH = `/api/customers/${CUSTOMER_ID}/messages`
const MESSAGE = JSON.stringify({ message: 'YOUR STATEMENT FOR OCTOBER IS READY.', fromDepartment: 'CARD SERVICES', fromPerson: 'THANDI MOKOENA' })

const DURATION = positive('BENCH_DURATION', 10)
const ROUNDS = 4
const WARMUP = positive('BENCH_WARMUP', 3)
const CONNECTIONS = positive('BENCH_CONNECTIONS', 50)
const TOKEN_CONNECTIONS = 10
const TOKEN_DURATION = 5
const RESETS = 20
// the large scenario: 100,000 customers of agent 1001, so page 4999 of size 20 is the last one
const PAGE_SIZE = 20
const DEEP_PAGE = 4999
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL
const PRODUCT_LOG_LEVEL = 'info'
const QUIET_LOG_LEVEL = 'warn'
const CPU_PROF = process.env.BENCH_CPU_PROF === '1'
const STRICT = process.env.BENCH_STRICT === '1'
const TARGETS = { w1: 0.6, w2: 0.6, w2Disk: 0.4, resetMs: 50 }
const CLK_TCK = clockTicks()

function positive (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not "${raw}"`)
  return n
}

function clockTicks (): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
}

const say = (line: string): void => { process.stderr.write(`${line}\n`) }
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, HOST, () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

function healthStatus (port: number): Promise<number> {
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
class Server {
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

  /** Resident set size in MB (Linux /proc, else ps). */
  rssMb (): number {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'))
      if (m !== null) return Number(m[1]) / 1024
    } catch { /* not Linux */ }
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(this.pid)], { encoding: 'utf8' }).trim()) / 1024
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
function sandboxEnv (port: number, dataDir?: string, logLevel = LOG_LEVEL): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(PORT|HOST|PUBLIC_URL|LOG_LEVEL|SANDBOX_.*|NODE_OPTIONS)$/.test(k)) continue
    env[k] = v
  }
  env.PORT = String(port)
  env.HOST = HOST
  env.PUBLIC_URL = `http://${HOST}:${port}`
  if (logLevel !== undefined) env.LOG_LEVEL = logLevel
  if (dataDir !== undefined) env.SANDBOX_DATA_DIR = dataDir
  return env
}

async function startSandbox (name: string, dataDir?: string, logLevel?: string, scenario?: string): Promise<Server> {
  const port = await freePort()
  const prof = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles')}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : []
  const env = sandboxEnv(port, dataDir, logLevel)
  if (scenario !== undefined) env.SANDBOX_SCENARIO = scenario
  return await Server.start(name, [...prof, 'dist/cli.js'], env, port)
}

/** A page of agent 1001's customers (the paging-depth figure, on the large scenario). */
async function customerPage (server: Server, page: number): Promise<autocannon.Options> {
  return { url: `${server.base}/api/customers?page=${page}&size=${PAGE_SIZE}`, headers: await apiHeaders(server) }
}

async function startBaseline (banksFile: string): Promise<Server> {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST, BASELINE_BANKS_FILE: banksFile }
  delete env.NODE_OPTIONS
  return await Server.start('baseline', ['--import', 'tsx', 'bench/baseline.ts'], env, port)
}

async function clientToken (server: Server): Promise<string> {
  const res = await fetch(`${server.base}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=openid'
  })
  if (res.status !== 200) throw new Error(`${server.name}: token request answered ${res.status}: ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

/** A partner's request headers: a real access token of `tokens` (the baseline gets the same bytes and ignores them). */
async function apiHeaders (tokens: Server): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await clientToken(tokens)}`, 'agent-id': AGENT_ID }
}

async function w1Options (server: Server, tokens = server): Promise<autocannon.Options> {
  return { url: `${server.base}${W1_PATH}`, headers: await apiHeaders(tokens) }
}

async function w2Options (server: Server, tokens = server): Promise<autocannon.Options> {
  return { url: `${server.base}${W2_PATH}`, method: 'POST', headers: { ...await apiHeaders(tokens), 'content-type': 'application/json' }, body: MESSAGE }
}

/** Back to the start of the default scenario (the messages of earlier rounds go). */
async function reset (server: Server): Promise<void> {
  const res = await fetch(`${server.base}/__sandbox/reset`, { method: 'POST', headers: { authorization: `Bearer ${await clientToken(server)}` } })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`${server.name}: reset answered ${res.status}`)
}

async function once (o: autocannon.Options): Promise<{ status: number, text: string }> {
  const res = await fetch(o.url, { method: o.method ?? 'GET', headers: o.headers, body: o.body })
  return { status: res.status, text: await res.text() }
}

interface Measured {
  /** 2xx answers per second over the measured rounds. */
  rps: number
  ok: number
  non2xx: number
  errors: number
  timeouts: number
  seconds: number
  latencyMs: { p50: number, p90: number, p99: number, max: number, average: number }
  /** CPU time of the server process per 2xx answer, in microseconds (the figure least moved by other load). */
  cpuUsPerRequest: number
  statusCodes: Record<string, number>
  rounds: Array<{ rps: number, ok: number, seconds: number, after: number }>
}

interface Contender {
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
 * Warm-up for each, then ROUNDS rounds of DURATION/ROUNDS seconds each, the order reversed every
 * round (A B C, C B A) so that no contender always runs first or last.
 */
async function compare (label: string, contenders: Contender[], connections = CONNECTIONS): Promise<Record<string, Measured>> {
  for (const c of contenders) {
    say(`${label}: warm-up ${c.key} (${WARMUP} s)`)
    await autocannon({ ...await c.options(), connections, duration: WARMUP, skipAggregateResult: true })
  }
  const raw = new Map<string, autocannon.RawResult[]>(contenders.map((c) => [c.key, []]))
  const cpu = new Map<string, number>(contenders.map((c) => [c.key, 0]))
  const after = new Map<string, number[]>(contenders.map((c) => [c.key, []]))
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? contenders : [...contenders].reverse()
    for (const c of order) {
      await c.before?.()
      const options = await c.options()
      await pause(500)
      const before = c.server.cpuSeconds()
      const result = await autocannon({ ...options, connections, duration: DURATION / ROUNDS, skipAggregateResult: true })
      cpu.set(c.key, cpu.get(c.key)! + c.server.cpuSeconds() - before)
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
      latencyMs: { p50: merged.latency.p50, p90: merged.latency.p90, p99: merged.latency.p99, max: merged.latency.max, average: merged.latency.average },
      cpuUsPerRequest: ok > 0 ? cpu.get(c.key)! * 1e6 / ok : Number.NaN,
      statusCodes,
      rounds: runs.map((x, i) => ({ rps: x['2xx'] / x.duration, ok: x['2xx'], seconds: x.duration, after: after.get(c.key)![i] }))
    }
  }
  return out
}

interface ResetStats { count: number, medianMs: number, maxMs: number, minMs: number, cpuMsPerReset: number, allMs: number[] }

/** RESETS resets of the partner's data to the default scenario, one after another (no body: current scenario). */
async function resets (server: Server): Promise<ResetStats> {
  const authorization = `Bearer ${await clientToken(server)}`
  const times: number[] = []
  const cpu0 = server.cpuSeconds()
  for (let i = 0; i < RESETS; i++) {
    const t0 = performance.now()
    const res = await fetch(`${server.base}/__sandbox/reset`, { method: 'POST', headers: { authorization } })
    await res.arrayBuffer()
    const ms = performance.now() - t0
    if (res.status !== 200) throw new Error(`${server.name}: reset answered ${res.status}`)
    times.push(ms)
  }
  const cpuMsPerReset = (server.cpuSeconds() - cpu0) * 1000 / RESETS
  const sorted = [...times].sort((a, b) => a - b)
  const mid = sorted.length / 2
  const median = sorted.length % 2 === 0 ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[Math.floor(mid)]
  return { count: times.length, medianMs: median, maxMs: sorted[sorted.length - 1], minMs: sorted[0], cpuMsPerReset, allMs: times }
}

async function messageCount (server: Server): Promise<number> {
  const o = await w2Options(server)
  const res = await once({ url: `${server.base}${W2_PATH}?page=0&size=1`, headers: o.headers })
  if (res.status !== 200) throw new Error(`${server.name}: message list answered ${res.status}`)
  return (JSON.parse(res.text) as { page: { totalElements: number } }).page.totalElements
}

// ---------------------------------------------------------------------------------------------------

const fmt = (n: number, digits = 0): string => Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a'
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
const verdict = (ok: boolean): string => ok ? 'met' : 'MISSED'

function table (rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)))
  return rows.map((r, j) => {
    const line = r.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join('  ')
    return j === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line
  }).join('\n')
}

async function main (): Promise<void> {
  const started = new Date()
  const load0 = loadavg()
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-bench-data-'))
  const work = mkdtempSync(join(tmpdir(), 'sandbox-bench-'))
  mkdirSync(RESULTS, { recursive: true })
  const servers: Server[] = []
  const track = (s: Server): Server => { servers.push(s); return s }
  try {
    say(`starting the sandbox (in memory), the sandbox (SANDBOX_DATA_DIR=${dataDir}), the sandbox at LOG_LEVEL=${QUIET_LOG_LEVEL} and the baseline, one after another`)
    const memory = track(await startSandbox('sandbox-memory'))
    const disk = track(await startSandbox('sandbox-disk', dataDir))
    const quiet = track(await startSandbox('sandbox-quiet', undefined, QUIET_LOG_LEVEL))

    // the baseline answers the bytes the sandbox answers for W1
    const w1Memory = await w1Options(memory)
    const sandboxW1 = await once(w1Memory)
    if (sandboxW1.status !== 200) throw new Error(`sandbox W1 answered ${sandboxW1.status}: ${sandboxW1.text}`)
    const banksFile = join(work, 'banks.json')
    writeFileSync(banksFile, sandboxW1.text)
    const baseline = track(await startBaseline(banksFile))

    const w1Baseline = await w1Options(baseline, memory)
    const baselineW1 = await once(w1Baseline)
    if (baselineW1.text !== sandboxW1.text) throw new Error('the baseline does not answer W1 with the sandbox\'s bytes')
    const w2Memory = await w2Options(memory)
    const w2Disk = await w2Options(disk)
    const w2Baseline = await w2Options(baseline, memory)
    const shapes = await Promise.all([w2Memory, w2Disk, w2Baseline].map(async (o) => {
      const r = await once(o)
      if (r.status !== 200) throw new Error(`W2 check answered ${r.status}: ${r.text}`)
      return Object.keys(JSON.parse(r.text) as object).join(',')
    }))
    if (new Set(shapes).size !== 1) throw new Error(`W2 answers differ in shape: ${shapes.join(' | ')}`)
    say(`checked: W1 answers are byte-identical (${sandboxW1.text.length} bytes); W2 answers have the keys ${shapes[0]}`)

    const idleRss = { sandboxMemory: memory.rssMb(), sandboxDisk: disk.rssMb(), baseline: baseline.rssMb() }

    const w1 = await compare('W1', [
      { key: 'sandbox', server: memory, options: () => w1Options(memory) },
      { key: 'baseline', server: baseline, options: () => w1Options(baseline, memory) },
      { key: 'sandboxQuiet', server: quiet, options: () => w1Options(quiet) }
    ])
    // every W2 round of a sandbox starts from the default data (reset first), so that no round writes a
    // partner file grown by the rounds before it; the file size each disk round reached is reported
    const partnerFile = join(dataDir, 'partners', `${CLIENT.id}.json`)
    const w2 = await compare('W2', [
      { key: 'sandbox', server: memory, options: () => w2Options(memory), before: () => reset(memory) },
      { key: 'baseline', server: baseline, options: () => w2Options(baseline, memory) },
      { key: 'sandboxDisk', server: disk, options: () => w2Options(disk), before: () => reset(disk), after: () => statSync(partnerFile).size },
      { key: 'sandboxQuiet', server: quiet, options: () => w2Options(quiet), before: () => reset(quiet) }
    ])
    const diskFileBytes = Math.max(...w2.sandboxDisk.rounds.map((r) => r.after))
    const loadedRss = { sandboxMemory: memory.rssMb(), sandboxDisk: disk.rssMb(), baseline: baseline.rssMb() }
    await quiet.stop()
    servers.splice(servers.indexOf(quiet), 1)
    const diskMessages = await messageCount(disk)

    say(`token endpoint: client_credentials for ${TOKEN_DURATION} s, ${TOKEN_CONNECTIONS} connections`)
    const tokenOptions: autocannon.Options = {
      url: `${memory.base}${TOKEN_PATH}`,
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=openid'
    }
    await autocannon({ ...tokenOptions, connections: TOKEN_CONNECTIONS, duration: 1, skipAggregateResult: true })
    const tokenBefore = memory.cpuSeconds()
    const tokenRun = await autocannon({ ...tokenOptions, connections: TOKEN_CONNECTIONS, duration: TOKEN_DURATION })
    const tokenCpu = memory.cpuSeconds() - tokenBefore
    const tokens = {
      perSecond: tokenRun['2xx'] / tokenRun.duration,
      ok: tokenRun['2xx'],
      non2xx: tokenRun.non2xx,
      errors: tokenRun.errors,
      latencyMs: { p50: tokenRun.latency.p50, p99: tokenRun.latency.p99 },
      cpuUsPerToken: tokenRun['2xx'] > 0 ? tokenCpu * 1e6 / tokenRun['2xx'] : Number.NaN
    }

    say(`restart of the data-dir sandbox holding the W2 data (${diskMessages} messages of customer ${CUSTOMER_ID})`)
    await disk.stop()
    servers.splice(servers.indexOf(disk), 1)
    const diskAgain = track(await startSandbox('sandbox-disk-restart', dataDir))
    const restoredMessages = await messageCount(diskAgain)
    if (restoredMessages !== diskMessages) throw new Error(`after the restart the data dir holds ${restoredMessages} messages, not ${diskMessages}`)

    say(`paging depth: the large scenario (100,000 customers of agent ${AGENT_ID}), page 0 against page ${DEEP_PAGE} (size ${PAGE_SIZE})`)
    const large = track(await startSandbox('sandbox-large', undefined, undefined, 'large'))
    const deepPage = await once(await customerPage(large, DEEP_PAGE))
    if (deepPage.status !== 200 || (JSON.parse(deepPage.text) as { customers: unknown[] }).customers.length !== PAGE_SIZE) {
      throw new Error(`page ${DEEP_PAGE} of the large scenario answered ${deepPage.status}: ${deepPage.text.slice(0, 300)}`)
    }
    const paging = await compare('Paging', [
      { key: 'first', server: large, options: () => customerPage(large, 0) },
      { key: 'deep', server: large, options: () => customerPage(large, DEEP_PAGE) }
    ])
    await large.stop()
    servers.splice(servers.indexOf(large), 1)

    say(`resets: ${RESETS} in memory, ${RESETS} with a data dir`)
    const resetMemory = await resets(memory)
    const resetDisk = await resets(diskAgain)
    const finalRss = { sandboxMemory: memory.rssMb(), sandboxDisk: diskAgain.rssMb(), baseline: baseline.rssMb() }

    const ratios = {
      w1: w1.sandbox.rps / w1.baseline.rps,
      w2: w2.sandbox.rps / w2.baseline.rps,
      w2Disk: w2.sandboxDisk.rps / w2.sandbox.rps,
      w1Cpu: w1.baseline.cpuUsPerRequest / w1.sandbox.cpuUsPerRequest,
      w2Cpu: w2.baseline.cpuUsPerRequest / w2.sandbox.cpuUsPerRequest,
      w1Quiet: w1.sandboxQuiet.rps / w1.baseline.rps,
      w2Quiet: w2.sandboxQuiet.rps / w2.baseline.rps
    }
    const met = {
      w1: ratios.w1 >= TARGETS.w1,
      w2: ratios.w2 >= TARGETS.w2,
      w2Disk: ratios.w2Disk >= TARGETS.w2Disk,
      resetMemory: resetMemory.medianMs < TARGETS.resetMs,
      resetDisk: resetDisk.medianMs < TARGETS.resetMs
    }
    const load1 = loadavg()
    const logLevel = LOG_LEVEL ?? `${PRODUCT_LOG_LEVEL} (the product default; stdout to /dev/null)`

    const lat = (m: Measured): string => `${fmt(m.latencyMs.p50, 1)} / ${fmt(m.latencyMs.p99, 1)}`
    const bad = (m: Measured): string => m.non2xx + m.errors + m.timeouts > 0 ? `  !! non-2xx ${m.non2xx} ${JSON.stringify(m.statusCodes)}, errors ${m.errors}, timeouts ${m.timeouts}` : ''
    const lines: string[] = []
    lines.push('Banking Agent Sandbox benchmark')
    lines.push(`  ${started.toISOString()}, Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'CPU'}`)
    lines.push(`  load average before ${load0.map((x) => x.toFixed(2)).join(' ')}, after ${load1.map((x) => x.toFixed(2)).join(' ')} (other work on the machine makes the figures noisy)`)
    lines.push(`  sandbox: node dist/cli.js, scenario default, LOG_LEVEL ${logLevel}${CPU_PROF ? ', with --cpu-prof' : ''}`)
    lines.push('  baseline: bare Fastify (no logger, no schemas, no token check) sent the same request bytes (token included)')
    lines.push(`  autocannon in this process, ${CONNECTIONS} connections, ${WARMUP} s warm-up, then ${ROUNDS} alternating rounds of ${DURATION / ROUNDS} s per contender; loopback only`)
    lines.push('  W2 rounds of a sandbox start from the default data (POST /__sandbox/reset before each)')
    lines.push('')
    lines.push(table([
      ['Workload', 'sandbox req/s', 'baseline req/s', 'ratio', 'target', 'sandbox p50/p99 ms', 'baseline p50/p99 ms', 'CPU us/req sandbox', 'CPU us/req baseline'],
      [`W1 GET ${W1_PATH}`, fmt(w1.sandbox.rps), fmt(w1.baseline.rps), pct(ratios.w1), `>=60% ${verdict(met.w1)}`, lat(w1.sandbox), lat(w1.baseline), fmt(w1.sandbox.cpuUsPerRequest), fmt(w1.baseline.cpuUsPerRequest)],
      ['W2 POST /api/customers/{id}/messages', fmt(w2.sandbox.rps), fmt(w2.baseline.rps), pct(ratios.w2), `>=60% ${verdict(met.w2)}`, lat(w2.sandbox), lat(w2.baseline), fmt(w2.sandbox.cpuUsPerRequest), fmt(w2.baseline.cpuUsPerRequest)],
      [`W1, sandbox at LOG_LEVEL=${QUIET_LOG_LEVEL} (info only)`, fmt(w1.sandboxQuiet.rps), fmt(w1.baseline.rps), pct(ratios.w1Quiet), '', lat(w1.sandboxQuiet), lat(w1.baseline), fmt(w1.sandboxQuiet.cpuUsPerRequest), fmt(w1.baseline.cpuUsPerRequest)],
      [`W2, sandbox at LOG_LEVEL=${QUIET_LOG_LEVEL} (info only)`, fmt(w2.sandboxQuiet.rps), fmt(w2.baseline.rps), pct(ratios.w2Quiet), '', lat(w2.sandboxQuiet), lat(w2.baseline), fmt(w2.sandboxQuiet.cpuUsPerRequest), fmt(w2.baseline.cpuUsPerRequest)]
    ]))
    lines.push(`  (baseline CPU per request / sandbox CPU per request: W1 ${pct(ratios.w1Cpu)}, W2 ${pct(ratios.w2Cpu)} - the same comparison, less moved by other load;`)
    lines.push(`   the LOG_LEVEL=${QUIET_LOG_LEVEL} rows show what the one log line per request costs: they are not the targets' figures)`)
    lines.push('')
    lines.push(table([
      ['Figure', 'value', 'target'],
      ['W2-disk (SANDBOX_DATA_DIR) req/s', fmt(w2.sandboxDisk.rps), ''],
      ['W2-disk as a share of in-memory W2', pct(ratios.w2Disk), `>=40% ${verdict(met.w2Disk)}`],
      ['W2-disk latency p50 / p99 ms', lat(w2.sandboxDisk), ''],
      ['W2-disk CPU us/req', fmt(w2.sandboxDisk.cpuUsPerRequest), ''],
      ['W2-disk partner file size at the end of a round (largest) KB', fmt(diskFileBytes / 1024), ''],
      [`Token endpoint, client_credentials (${TOKEN_CONNECTIONS} conn.) tokens/s`, fmt(tokens.perSecond), ''],
      [`Paging, large scenario: page 0 / page ${DEEP_PAGE} of 100,000 customers, req/s`, `${fmt(paging.first.rps)} / ${fmt(paging.deep.rps)} (${pct(paging.deep.rps / paging.first.rps)})`, ''],
      [`Paging, large scenario: page 0 / page ${DEEP_PAGE}, p50 / p99 ms`, `${lat(paging.first)} and ${lat(paging.deep)}`, ''],
      ['Token endpoint latency p50 / p99 ms, CPU us/token', `${fmt(tokens.latencyMs.p50, 1)} / ${fmt(tokens.latencyMs.p99, 1)}, ${fmt(tokens.cpuUsPerToken)}`, ''],
      [`Reset default scenario, one partner, in memory (median / max of ${RESETS}) ms`, `${fmt(resetMemory.medianMs, 1)} / ${fmt(resetMemory.maxMs, 1)}`, `<50 ms ${verdict(met.resetMemory)}`],
      [`Reset default scenario, one partner, data dir (median / max of ${RESETS}) ms`, `${fmt(resetDisk.medianMs, 1)} / ${fmt(resetDisk.maxMs, 1)}`, `<50 ms ${verdict(met.resetDisk)}`],
      ['Reset, server CPU per reset ms: in memory / data dir', `${fmt(resetMemory.cpuMsPerReset, 1)} / ${fmt(resetDisk.cpuMsPerReset, 1)}`, ''],
      ['Start-up to first 200 on /health, in memory ms (CPU ms)', `${fmt(memory.startupMs)} (${fmt(memory.startupCpuMs)})`, ''],
      ['Start-up to first 200 on /health, empty data dir ms (CPU ms)', `${fmt(disk.startupMs)} (${fmt(disk.startupCpuMs)})`, ''],
      [`Start-up to first 200 on /health, data dir after load (${fmt(diskMessages)} messages) ms (CPU ms)`, `${fmt(diskAgain.startupMs)} (${fmt(diskAgain.startupCpuMs)})`, ''],
      ['Start-up to first 200 on /health, baseline (tsx) ms (CPU ms)', `${fmt(baseline.startupMs)} (${fmt(baseline.startupCpuMs)})`, ''],
      ['RSS idle MB: sandbox memory / sandbox disk / baseline', `${fmt(idleRss.sandboxMemory)} / ${fmt(idleRss.sandboxDisk)} / ${fmt(idleRss.baseline)}`, ''],
      ['RSS after load MB: sandbox memory / sandbox disk / baseline', `${fmt(loadedRss.sandboxMemory)} / ${fmt(loadedRss.sandboxDisk)} / ${fmt(loadedRss.baseline)}`, ''],
      ['RSS at the end MB (after resets; disk sandbox restarted)', `${fmt(finalRss.sandboxMemory)} / ${fmt(finalRss.sandboxDisk)} / ${fmt(finalRss.baseline)}`, '']
    ]))
    const problems = [bad(w1.sandbox), bad(w1.baseline), bad(w1.sandboxQuiet), bad(w2.sandbox), bad(w2.baseline), bad(w2.sandboxDisk), bad(w2.sandboxQuiet), bad(paging.first), bad(paging.deep)].filter((x) => x !== '')
    if (tokens.non2xx + tokens.errors > 0) problems.push(`  !! token endpoint: non-2xx ${tokens.non2xx}, errors ${tokens.errors}`)
    if (problems.length > 0) lines.push('', 'Failed requests (not counted in req/s):', ...problems)
    const missed = Object.entries(met).filter(([, ok]) => !ok).map(([k]) => k)
    lines.push('', missed.length === 0 ? 'All targets met.' : `Targets missed: ${missed.join(', ')}`)
    process.stdout.write(`${lines.join('\n')}\n`)

    const json = {
      date: started.toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      loadAverage: { before: load0, after: load1 },
      settings: { durationSeconds: DURATION, rounds: ROUNDS, warmupSeconds: WARMUP, connections: CONNECTIONS, logLevel: LOG_LEVEL ?? PRODUCT_LOG_LEVEL, cpuProfile: CPU_PROF },
      targets: TARGETS,
      w1: { path: W1_PATH, ...w1, ratio: ratios.w1, cpuRatio: ratios.w1Cpu, quietRatio: ratios.w1Quiet },
      w2: { path: W2_PATH, ...w2, ratio: ratios.w2, cpuRatio: ratios.w2Cpu, diskRatio: ratios.w2Disk, quietRatio: ratios.w2Quiet },
      quietLogLevel: QUIET_LOG_LEVEL,
      tokens,
      paging: { pageSize: PAGE_SIZE, deepPage: DEEP_PAGE, ...paging },
      resets: { memory: resetMemory, dataDir: resetDisk },
      w2DiskFileBytes: diskFileBytes,
      startupMs: { memory: memory.startupMs, emptyDataDir: disk.startupMs, dataDirAfterLoad: diskAgain.startupMs, dataDirMessages: diskMessages, baseline: baseline.startupMs },
      startupCpuMs: { memory: memory.startupCpuMs, emptyDataDir: disk.startupCpuMs, dataDirAfterLoad: diskAgain.startupCpuMs, baseline: baseline.startupCpuMs },
      rssMb: { idle: idleRss, afterLoad: loadedRss, end: finalRss },
      met,
      missed
    }
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`)
    say(`results written to ${join(RESULTS, 'latest.json')}`)
    if (STRICT && missed.length > 0) process.exitCode = 1
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
