// npm run bench, second part: the cost of the request journal (issue 12). W1 and W2 against two built
// sandboxes side by side, one with the journal at its default size and one with SANDBOX_JOURNAL_SIZE=0, in
// alternating rounds; then the resident memory of a sandbox whose 100 partners each filled their journal.
// Knobs: BENCH_DURATION (seconds per workload and sandbox, default 10, in 4 rounds), BENCH_CONNECTIONS (50),
// BENCH_PARTNERS (100), BENCH_JOURNAL_SIZE (the journal's size in the "on" sandbox; default the product's). Writes
// bench/results/journal.json.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const HOST = '127.0.0.1'
const TOKEN_PATH = '/auth/realms/sandbox/protocol/openid-connect/token'
const ADMIN = 'bench-operator-token-0123456789'
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const PARTNERS = Number(process.env.BENCH_PARTNERS ?? 100)
const ROUNDS = 4
const MESSAGE = JSON.stringify({ message: 'YOUR STATEMENT FOR OCTOBER IS READY.', fromDepartment: 'CARD SERVICES', fromPerson: 'THANDI MOKOENA' })
const say = (line: string): void => { process.stderr.write(`${line}\n`) }

async function freePort (): Promise<number> {
  return await new Promise((resolve) => {
    const srv = createServer().listen(0, HOST, () => { const { port } = srv.address() as { port: number }; srv.close(() => resolve(port)) })
  })
}

/** A built sandbox in a child process; stopped with SIGTERM. */
class Sandbox {
  private constructor (readonly base: string, readonly proc: ChildProcess) {}

  static async start (env: Record<string, string>): Promise<Sandbox> {
    const port = await freePort()
    const base = `http://${HOST}:${port}`
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(PORT|HOST|PUBLIC_URL|SANDBOX_.*|NODE_OPTIONS)$/.test(k)))
    const proc = spawn(process.execPath, ['dist/cli.js'], { cwd: ROOT, env: { ...clean, PORT: String(port), HOST, PUBLIC_URL: base, SANDBOX_ADMIN_TOKEN: ADMIN, ...env }, stdio: 'ignore' })
    for (let i = 0; i < 600; i++) {
      const ok = await fetch(`${base}/ready`).then((r) => r.status === 200, () => false)
      if (ok) return new Sandbox(base, proc)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    proc.kill('SIGKILL')
    throw new Error('the sandbox did not become ready within 60 s')
  }

  rssMb (): number {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.proc.pid!}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024
  }

  /** CPU seconds (user + system) the process has used so far. */
  cpuSeconds (): number {
    const stat = readFileSync(`/proc/${this.proc.pid!}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  }

  async token (client = 'partner-a', secret = 'partner-a-secret'): Promise<string> {
    const res = await fetch(`${this.base}${TOKEN_PATH}`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
    return ((await res.json()) as { access_token: string }).access_token
  }

  async stop (): Promise<void> {
    const exited = new Promise((resolve) => this.proc.once('exit', resolve))
    this.proc.kill('SIGTERM')
    await exited
  }
}

async function workload (s: Sandbox, kind: 'w1' | 'w2'): Promise<autocannon.Options> {
  const headers = { authorization: `Bearer ${await s.token()}`, 'agent-id': '1001' }
  return kind === 'w1'
    ? { url: `${s.base}/api/banks?page=0&size=10`, headers }
    : { url: `${s.base}/api/customers/1001100000001/messages`, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: MESSAGE }
}

interface Figures { on: number, off: number, cpuUsOn: number, cpuUsOff: number }

/**
 * Requests per second of each sandbox, rounds alternating in order (on, off, off, on ...), and the CPU time
 * each spent per answer (the figure other load on the machine moves least; /proc counts in 10 ms ticks).
 */
async function compare (kind: 'w1' | 'w2', on: Sandbox, off: Sandbox): Promise<Figures> {
  const ok = { on: 0, off: 0 }
  const seconds = { on: 0, off: 0 }
  const cpu = { on: 0, off: 0 }
  for (let r = 0; r < ROUNDS; r++) {
    for (const key of (r % 2 === 0 ? ['on', 'off'] : ['off', 'on']) as Array<'on' | 'off'>) {
      const s = key === 'on' ? on : off
      const options = await workload(s, kind)
      const before = s.cpuSeconds()
      const result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION / ROUNDS, skipAggregateResult: true })
      cpu[key] += s.cpuSeconds() - before
      ok[key] += result['2xx']
      seconds[key] += result.duration
      say(`${kind} journal ${key}: round ${r + 1}/${ROUNDS}: ${Math.round(result['2xx'] / result.duration)} req/s`)
    }
  }
  return { on: ok.on / seconds.on, off: ok.off / seconds.off, cpuUsOn: cpu.on * 1e6 / ok.on, cpuUsOff: cpu.off * 1e6 / ok.off }
}

/** Registers PARTNERS partners and fills each one's journal with W2 requests (its whole SANDBOX_JOURNAL_SIZE). */
async function fillJournals (s: Sandbox, size: number): Promise<void> {
  for (let i = 0; i < PARTNERS; i++) {
    const res = await fetch(`${s.base}/__sandbox/admin/partners`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ clientId: `bench-${i}`, scenario: 'empty' }) })
    const partner = (await res.json()) as { clientId: string, clientSecret: string, agentIds: string[] }
    const token = await s.token(partner.clientId, partner.clientSecret)
    const customer = await fetch(`${s.base}/api/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'agent-id': partner.agentIds[0], 'content-type': 'application/json' },
      body: JSON.stringify({ defaultCustomer: { entityTypeId: '1', name1: 'BENCH', name2: 'JOURNAL', identifyingNumber: '8001015009087', taxNumber: '0001339050' } })
    }).then(async (r) => ((await r.json()) as { customerId: string }).customerId)
    await autocannon({ url: `${s.base}/api/customers/${customer}/messages`, method: 'POST', headers: { authorization: `Bearer ${token}`, 'agent-id': partner.agentIds[0], 'content-type': 'application/json' }, body: MESSAGE, connections: 10, amount: size, skipAggregateResult: true })
    if ((i + 1) % 20 === 0) say(`filled the journals of ${i + 1} partners, RSS ${s.rssMb().toFixed(0)} MB`)
  }
}

const on = await Sandbox.start(process.env.BENCH_JOURNAL_SIZE === undefined ? {} : { SANDBOX_JOURNAL_SIZE: process.env.BENCH_JOURNAL_SIZE })
const off = await Sandbox.start({ SANDBOX_JOURNAL_SIZE: '0' })
try {
  const w1 = await compare('w1', on, off)
  const w2 = await compare('w2', on, off)
  await off.stop()
  const idle = on.rssMb()
  const size = Number(process.env.BENCH_JOURNAL_SIZE ?? 200)
  await fillJournals(on, size)
  const filled = on.rssMb()
  const rows = [
    ['W1 GET /api/banks, journal on / off', `${w1.on.toFixed(0)} / ${w1.off.toFixed(0)} req/s`, `${(100 * w1.on / w1.off).toFixed(1)}% (target >= 90%)`],
    ['W1 CPU per request, journal on / off', `${w1.cpuUsOn.toFixed(0)} / ${w1.cpuUsOff.toFixed(0)} µs`, `+${(100 * (w1.cpuUsOn / w1.cpuUsOff - 1)).toFixed(1)}%`],
    ['W2 POST .../messages, journal on / off', `${w2.on.toFixed(0)} / ${w2.off.toFixed(0)} req/s`, `${(100 * w2.on / w2.off).toFixed(1)}% (target >= 90%)`],
    ['W2 CPU per request, journal on / off', `${w2.cpuUsOn.toFixed(0)} / ${w2.cpuUsOff.toFixed(0)} µs`, `+${(100 * (w2.cpuUsOn / w2.cpuUsOff - 1)).toFixed(1)}%`],
    [`RSS before / after filling ${PARTNERS} partners' journals (${size} entries each)`, `${idle.toFixed(0)} / ${filled.toFixed(0)} MB`, '']
  ]
  process.stdout.write(`\n| Journal figure | Value | Result |\n|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`)
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'journal.json'), `${JSON.stringify({ date: new Date().toISOString(), durationSeconds: DURATION, connections: CONNECTIONS, partners: PARTNERS, journalSize: size, w1, w2, rssMb: { idle, filled } }, null, 2)}\n`)
} finally {
  await Promise.all([on.stop(), off.stop()])
}
