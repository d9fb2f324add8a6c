import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import autocannon from 'autocannon'
import { clientToken, startSandbox, type Sandbox } from './server.js'

/** One partner's paced traffic: latency percentiles of its requests. */
export interface Paced { count: number, failed: number, p50: number, p99: number }

export interface FairnessRun {
  rateLimit: number
  quiet: Paced
  loaded: Paced
  /** p99 loaded / p99 quiet */
  ratio: number
  flood: { perSecond: number, ok: number, limited: number, other: number }
  /** server CPU time per answered request during the loaded phase (both partners) */
  cpuMicrosPerRequest: number
  /** share of one core the server used during the loaded phase */
  cpuShare: number
}

const TICK = (() => { try { return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100 } catch { return 100 } })()

function cpuSeconds (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICK
}

function percentile (sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
}

/** partner-b's requests, one every `everyMs`, each timed from write to the end of the answer. */
async function paced (sandbox: Sandbox, token: string, seconds: number, everyMs: number): Promise<Paced> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  const times: number[] = []
  let failed = 0
  const one = (): Promise<void> => new Promise((resolve) => {
    const t0 = performance.now()
    const req = request({ host: '127.0.0.1', port: sandbox.port, agent, path: '/api/customers/2001100000001', headers: { authorization: `Bearer ${token}`, 'agent-id': '2001' } }, (res) => {
      res.resume()
      res.on('end', () => {
        if (res.statusCode === 200) times.push(performance.now() - t0)
        else failed++
        resolve()
      })
    })
    req.on('error', () => { failed++; resolve() })
    req.end()
  })
  const pending: Array<Promise<void>> = []
  const end = Date.now() + seconds * 1000
  while (Date.now() < end) {
    pending.push(one())
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  await Promise.all(pending)
  agent.destroy()
  times.sort((a, b) => a - b)
  const round = (ms: number): number => Math.round(ms * 100) / 100
  return { count: times.length, failed, p50: round(percentile(times, 0.5)), p99: round(percentile(times, 0.99)) }
}

/**
 * partner-b's paced traffic alone (quiet), then while partner-a floods on `connections` connections
 * (loaded); the sandbox on CPU `core` when given, this process (the load) elsewhere.
 */
export async function fairness (opts: { rateLimit: number, seconds: number, connections: number, core?: number }): Promise<FairnessRun> {
  const sandbox = await startSandbox({ SANDBOX_RATE_LIMIT: String(opts.rateLimit), SANDBOX_MAX_EVENT_LOOP_DELAY: '60000' }, opts.core)
  try {
    const a = await clientToken(sandbox.base, 'partner-a', 'partner-a-secret')
    const b = await clientToken(sandbox.base, 'partner-b', 'partner-b-secret')
    await paced(sandbox, b, 1, 20) // warm-up
    const quiet = await paced(sandbox, b, opts.seconds, 20)
    const cpu0 = cpuSeconds(sandbox.child.pid!)
    const t0 = Date.now()
    const flood = autocannon({
      url: `${sandbox.base}/api/customers/1001100000001`,
      connections: opts.connections,
      duration: opts.seconds + 1,
      headers: { authorization: `Bearer ${a}`, 'agent-id': '1001' }
    })
    await new Promise((resolve) => setTimeout(resolve, 500))
    const loaded = await paced(sandbox, b, opts.seconds, 20)
    const floodResult = await flood
    const cpu = cpuSeconds(sandbox.child.pid!) - cpu0
    const elapsed = (Date.now() - t0) / 1000
    const codes = floodResult.statusCodeStats
    const ok = codes['200']?.count ?? 0
    const limited = codes['429']?.count ?? 0
    const total = floodResult['2xx'] + floodResult.non2xx
    const answered = total + loaded.count + loaded.failed
    return {
      rateLimit: opts.rateLimit,
      quiet,
      loaded,
      ratio: Math.round((loaded.p99 / Math.max(quiet.p99, 0.01)) * 100) / 100,
      flood: { perSecond: Math.round(total / floodResult.duration), ok, limited, other: total - ok - limited },
      cpuMicrosPerRequest: Math.round(cpu * 1e6 / Math.max(1, answered)),
      cpuShare: Math.round(100 * cpu / elapsed)
    }
  } finally {
    sandbox.child.kill('SIGTERM')
    await sandbox.exited
  }
}
