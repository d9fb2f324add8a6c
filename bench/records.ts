// Resident memory per stored record (issue 49): BENCH_RECORDS messages (default 40,000) posted to one partner of
// a sandbox started with a data dir, and what its resident memory grew by per message, against the live heap
// after a full collection. Each contender is a fresh process, started and loaded alone, their order alternated
// run after run (BENCH_RECORD_RUNS, default 3): on a shared machine only figures of one run's pair compare.
//   npx tsx bench/records.ts                       the build as launched (src/heap.ts LAUNCH_FLAGS) against
//                                                  the same launch without --max-old-space-size (V8's own
//                                                  bound: half the memory Node sees, at most 4 GB)
//   npx tsx bench/records.ts 'name|dist dir|KEY=value|node flags' ...   contenders of one's own, as bench/ab.ts
//                                                  takes them; LAUNCH in the flags stands for the launch flags
// The live heap is read through the inspector (each contender also runs with --inspect=127.0.0.1:0): V8's own
// full collection (HeapProfiler.collectGarbage), then process.memoryUsage(), nothing else evaluated.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { LAUNCH_FLAGS } from '../src/heap.js'
import { CONNECTIONS, RESULTS, Server, fmt, freePort, pause, percentiles, positive, sandboxEnv, say, table, w2Options } from './harness.js'

export const RECORDS = positive('BENCH_RECORDS', 40_000)
export const RUNS = positive('BENCH_RECORD_RUNS', 3)

export interface RecordSpec { name: string, dist: string, env: NodeJS.ProcessEnv, flags: string[] }

export interface RecordFigures {
  /** Creates answered with a 2xx. */
  stored: number
  /** RSS once the sandbox answered its first token, and once the last message was answered, in MB. */
  rssStartMb: number
  rssEndMb: number
  /** (rssEnd - rssStart) / stored, in KB. */
  rssKbPerRecord: number
  /** V8's heap (total, as laid out) when the last message was answered, in MB. */
  heapTotalEndMb: number
  /** What the heap holds after a full collection (heapUsed), and the RSS then, in MB. */
  liveHeapMb: number
  rssAfterGcMb: number
  createsPerSecond: number
  p99Ms: number
}

const MB = 1024 * 1024

/** 'name|dist|KEY=value ...|node flags', as bench/ab.ts; LAUNCH in the flags is src/heap.ts's LAUNCH_FLAGS. */
export function parseSpec (s: string): RecordSpec {
  const [name, dist = 'dist', env = '', flags = ''] = s.split('|')
  return {
    name,
    dist,
    env: Object.fromEntries(env.split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
    flags: flags.split(' ').filter(Boolean).flatMap((f) => f === 'LAUNCH' ? [...LAUNCH_FLAGS] : [f])
  }
}

/** One inspector session on the process's main context: a command answered by its result. */
async function inspect (server: Server): Promise<{ send: (method: string, params?: object) => Promise<any>, close: () => void }> {
  let url: RegExpExecArray | null = null
  for (let i = 0; i < 200 && url === null; i++) {
    url = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(server.stderr)
    if (url === null) await pause(10)
  }
  if (url === null) throw new Error(`${server.name}: no inspector address on stderr:\n${server.stderr}`)
  const ws = new WebSocket(url[0])
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject })
  const waiting = new Map<number, (message: any) => void>()
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number }
    if (message.id !== undefined) waiting.get(message.id)?.(message)
  }
  let next = 0
  const send = async (method: string, params: object = {}): Promise<any> => {
    const id = ++next
    const answer = new Promise<any>((resolve) => waiting.set(id, resolve))
    ws.send(JSON.stringify({ id, method, params }))
    const message = await answer
    if (message.error !== undefined) throw new Error(`${method}: ${JSON.stringify(message.error)}`)
    return message.result
  }
  return { send, close: () => ws.close() }
}

async function memoryUsage (session: Awaited<ReturnType<typeof inspect>>): Promise<NodeJS.MemoryUsage> {
  const r = await session.send('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })
  return JSON.parse(r.result.value as string) as NodeJS.MemoryUsage
}

/** A fresh sandbox of `spec` with a data dir of its own, RECORDS messages posted to one partner, then measured. */
export async function measureRecords (spec: RecordSpec, records = RECORDS): Promise<RecordFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-records-'))
  const port = await freePort()
  const server = await Server.start(spec.name, [...spec.flags, '--inspect=127.0.0.1:0', `${spec.dist}/cli.js`], { ...sandboxEnv(port, dataDir), ...spec.env }, port)
  try {
    const options = await w2Options(server)
    const rssStartMb = server.rssMb()
    const started = performance.now()
    const run = autocannon({ ...options, connections: CONNECTIONS, amount: records, skipAggregateResult: true })
    const times: number[] = []
    run.on('response', (_client, status, _bytes, ms) => { if (status >= 200 && status < 300) times.push(ms) })
    const result = await run
    const seconds = (performance.now() - started) / 1000
    const rssEndMb = server.rssMb()
    // a few 503s are the sandbox's own overload answer (SANDBOX_MAX_EVENT_LOOP_DELAY) on a machine busy elsewhere
    const codes = Object.entries(result.statusCodeStats).map(([code, n]) => `${code}: ${n.count}`).join(', ')
    if (result.errors > 0 || result.non2xx > records / 100) throw new Error(`${spec.name}: non-2xx ${result.non2xx} (${codes}), errors ${result.errors} of ${records} creates`)
    if (result.non2xx > 0) say(`records: ${spec.name}: ${result.non2xx} of ${records} creates not stored (${codes})`)
    const session = await inspect(server)
    const end = await memoryUsage(session)
    await session.send('HeapProfiler.collectGarbage')
    const collected = await memoryUsage(session)
    session.close()
    const stored = times.length
    return {
      stored,
      rssStartMb,
      rssEndMb,
      rssKbPerRecord: (rssEndMb - rssStartMb) * 1024 / stored,
      heapTotalEndMb: end.heapTotal / MB,
      liveHeapMb: collected.heapUsed / MB,
      rssAfterGcMb: collected.rss / MB,
      createsPerSecond: stored / seconds,
      p99Ms: percentiles(times).p99
    }
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const range = (xs: number[], digits: number): string => {
  const lo = Math.min(...xs)
  const hi = Math.max(...xs)
  return lo.toFixed(digits) === hi.toFixed(digits) ? lo.toFixed(digits) : `${lo.toFixed(digits)}-${hi.toFixed(digits)}`
}

/** Every contender once a run, the order rotated from run to run; figures of each run kept. */
export async function compareRecords (specs: RecordSpec[], runs = RUNS): Promise<Record<string, RecordFigures[]>> {
  const out: Record<string, RecordFigures[]> = Object.fromEntries(specs.map((s) => [s.name, []]))
  for (let r = 0; r < runs; r++) {
    const shift = r % specs.length
    for (const spec of [...specs.slice(shift), ...specs.slice(0, shift)]) {
      const f = await measureRecords(spec)
      out[spec.name].push(f)
      say(`records: run ${r + 1}/${runs} ${spec.name}: RSS ${f.rssStartMb.toFixed(0)} MB +${(f.rssEndMb - f.rssStartMb).toFixed(1)} MB (${f.rssKbPerRecord.toFixed(2)} KB/record), live heap ${f.liveHeapMb.toFixed(1)} MB`)
    }
  }
  return out
}

export function recordsTable (figures: Record<string, RecordFigures[]>): string {
  const rows = [['Contender', 'RSS at start (MB)', 'at the end (MB)', 'growth (MB)', 'KB per record', 'heap at the end (MB)', 'live heap after full GC (MB)', 'RSS after it (MB)', 'creates/s', 'p99 (ms)']]
  for (const [name, fs] of Object.entries(figures)) {
    rows.push([name, range(fs.map((f) => f.rssStartMb), 0), range(fs.map((f) => f.rssEndMb), 0), range(fs.map((f) => f.rssEndMb - f.rssStartMb), 1),
      range(fs.map((f) => f.rssKbPerRecord), 2), range(fs.map((f) => f.heapTotalEndMb), 1),
      range(fs.map((f) => f.liveHeapMb), 1), range(fs.map((f) => f.rssAfterGcMb), 0), range(fs.map((f) => f.createsPerSecond), 0), range(fs.map((f) => f.p99Ms), 1)])
  }
  return table(rows)
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const specs = process.argv.length > 2
    ? process.argv.slice(2).map(parseSpec)
    : [parseSpec('as launched|dist||LAUNCH'), { ...parseSpec("V8's own heap bound|dist||LAUNCH"), flags: LAUNCH_FLAGS.filter((f) => !f.startsWith('--max-old-space-size=')) }]
  say(`records: ${fmt(RECORDS)} messages to one partner with a data dir, ${CONNECTIONS} connections, ${RUNS} runs`)
  const figures = await compareRecords(specs)
  console.log(recordsTable(figures))
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, 'records.json'), JSON.stringify({ records: RECORDS, connections: CONNECTIONS, node: process.version, figures }, null, 2))
}
