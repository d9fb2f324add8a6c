// npm run bench, fourth part: the cost of traces (issue 45). W1 and W2 against two built sandboxes side by side,
// one exporting a span of every request (OTEL_TRACES_SAMPLER=traceidratio at 1.0) over OTLP/HTTP protobuf to a
// receiver that counts and discards them (bench/otlp-sink.ts, a process of its own), one without traces (no
// OTEL_* variable: OpenTelemetry not even loaded), in rounds of rotating order (bench/harness.ts). Knobs:
// BENCH_DURATION (seconds per workload and sandbox, default 10, in 4 rounds), BENCH_WARMUP, BENCH_CONNECTIONS (50).
// Writes bench/results/tracing.json.
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CONNECTIONS, DURATION, RESULTS, ROOT, compareOnOff, signedPercent, startSandbox, type Measured } from './harness.js'

interface Counts { exports: number, spans: number, bytes: number }

/** The sink as a child process: its URL once it listens, and what it has received. */
async function startSink (): Promise<{ url: string, counts: () => Promise<Counts>, stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/otlp-sink.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the OTLP sink exited (${code})`)))
    child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())))
  })
  const url = `http://127.0.0.1:${port}`
  return { url, counts: async () => await (await fetch(`${url}/counts`)).json() as Counts, stop: () => { child.kill() } }
}

const row = (label: string, m: Record<string, Measured>): string[][] => [
  [`${label}, traces on / off`, `${m.on.rps.toFixed(0)} / ${m.off.rps.toFixed(0)} req/s`, `${(100 * m.on.rps / m.off.rps).toFixed(1)}%`],
  [`${label} CPU per request, traces on / off`, `${m.on.cpuUsPerRequest.toFixed(0)} / ${m.off.cpuUsPerRequest.toFixed(0)} µs`, signedPercent(100 * (m.on.cpuUsPerRequest / m.off.cpuUsPerRequest - 1))],
  [`${label} p99, traces on / off`, `${m.on.latencyMs.p99.toFixed(2)} / ${m.off.latencyMs.p99.toFixed(2)} ms`, signedPercent(100 * (m.on.latencyMs.p99 / m.off.latencyMs.p99 - 1))]
]

const sink = await startSink()
const on = await startSandbox('traces-on', undefined, undefined, undefined, {
  OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
  OTEL_TRACES_SAMPLER: 'traceidratio',
  OTEL_TRACES_SAMPLER_ARG: '1.0'
})
const off = await startSandbox('traces-off')
try {
  const { w1, w2 } = await compareOnOff(on, off)
  // the stop exports what is still batched: then the sink has every span the sandbox kept
  await on.stop()
  const received = await sink.counts()
  const answered = [w1, w2].reduce((n, m) => n + m.on.ok, 0)
  const rows = [
    ...row('W1 GET /api/banks', w1),
    ...row('W2 POST .../messages', w2),
    // warm-ups, resets and tokens add spans of their own: fewer spans than measured answers means spans were dropped
    ['Spans the sink received / 2xx answers measured', `${received.spans} / ${answered}`, `${received.spans >= answered ? 'none dropped' : 'SPANS DROPPED (the span queue was full)'}; ${received.exports} exports, ${(received.bytes / 1048576).toFixed(1)} MB`]
  ]
  process.stdout.write(`\n| Traces figure | Value | Result |\n|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`)
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, 'tracing.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, durationSeconds: DURATION, connections: CONNECTIONS, w1, w2, sink: received }, null, 2)}\n`)
} finally {
  await Promise.all([on.stop(), off.stop()])
  sink.stop()
}
