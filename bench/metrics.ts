// npm run bench, the cost of metrics (docs/observability.md "Cost"): W1 and W2 against two built sandboxes side by
// side, one with metrics on (the default: a management port, every request counted) and one with
// SANDBOX_MANAGEMENT_PORT=off, in rounds of rotating order (bench/harness.ts); then what a scrape of the "on" sandbox
// costs and how many series it serves after the load. Target: metrics cost at most 3% of throughput and of p99.
// Knobs: BENCH_DURATION (seconds per workload and sandbox, default 10, in 4 rounds), BENCH_WARMUP,
// BENCH_CONNECTIONS (50). Writes bench/results/metrics.json.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { CONNECTIONS, DURATION, RESULTS, compareOnOff, say, startSandbox, type Measured, type Server } from './harness.js'

const TARGET = 0.03
const SCRAPES = 20

/** A change in percent with its sign: +3.8% or -5.8%. */
const signedPercent = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`

const row = (label: string, m: Record<string, Measured>): string[][] => {
  const rps = m.on.rps / m.off.rps - 1
  const p99 = m.on.latencyMs.p99 / m.off.latencyMs.p99 - 1
  return [
    [`${label}, metrics on / off`, `${m.on.rps.toFixed(0)} / ${m.off.rps.toFixed(0)} req/s`, `${signedPercent(100 * rps)} (target >= -${TARGET * 100}%)`],
    [`${label} p99, metrics on / off`, `${m.on.latencyMs.p99.toFixed(2)} / ${m.off.latencyMs.p99.toFixed(2)} ms`, `${signedPercent(100 * p99)} (target <= +${TARGET * 100}%)`],
    [`${label} CPU per request, metrics on / off`, `${m.on.cpuUsPerRequest.toFixed(1)} / ${m.off.cpuUsPerRequest.toFixed(1)} µs`, signedPercent(100 * (m.on.cpuUsPerRequest / m.off.cpuUsPerRequest - 1))]
  ]
}

/** The "on" sandbox's management URL, from its banner. */
function managementOf (s: Server): string {
  const m = /^ {2}metrics +(http:\/\/\S+)\/metrics /m.exec(s.stderr)
  if (m === null) throw new Error(`${s.name}: no metrics line in its banner:\n${s.stderr}`)
  return m[1]
}

/** GET /metrics SCRAPES times: the mean time of one, its size and its series (lines that are samples). */
async function scrapes (s: Server): Promise<{ meanMs: number, bytes: number, series: number }> {
  const url = `${managementOf(s)}/metrics`
  let text = ''
  const t0 = performance.now()
  for (let i = 0; i < SCRAPES; i++) text = await (await fetch(url)).text()
  const meanMs = (performance.now() - t0) / SCRAPES
  return { meanMs, bytes: Buffer.byteLength(text), series: text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length }
}

const on = await startSandbox('metrics-on')
const off = await startSandbox('metrics-off', undefined, undefined, undefined, { SANDBOX_MANAGEMENT_PORT: 'off' })
try {
  const { w1, w2 } = await compareOnOff(on, off)
  say('scraping the "on" sandbox')
  const scrape = await scrapes(on)
  const rows = [
    ...row('W1 GET /api/banks', w1),
    ...row('W2 POST .../messages', w2),
    [`GET /metrics after the load (mean of ${SCRAPES})`, `${scrape.meanMs.toFixed(1)} ms, ${(scrape.bytes / 1024).toFixed(0)} KiB, ${scrape.series} series`, '']
  ]
  process.stdout.write(`\n| Metrics figure | Value | Result |\n|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`)
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, 'metrics.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, durationSeconds: DURATION, connections: CONNECTIONS, target: TARGET, w1, w2, scrape }, null, 2)}\n`)
} finally {
  await Promise.all([on.stop(), off.stop()])
}
