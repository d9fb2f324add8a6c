import { spawn, spawnSync } from 'node:child_process'

/*
 * Reading what a management port serves, as the observability tests need it: GET /metrics over HTTP, its samples
 * parsed from Prometheus' text format, and the Prometheus tools (Debian's prometheus package: prometheus and
 * promtool; .ci/run installs it).
 */

export interface MetricSample { name: string, labels: Record<string, string>, value: number }

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** The samples of a text exposition (0.0.4 or OpenMetrics), comments left out. */
export function parseSamples (text: string): MetricSample[] {
  const out: MetricSample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = SAMPLE.exec(line)
    if (m === null) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, name, value] of (m[2] ?? '').matchAll(LABEL)) labels[name] = value.replace(/\\(.)/g, (_all, c: string) => c === 'n' ? '\n' : c)
    out.push({ name: m[1], labels, value: Number(m[3]) })
  }
  return out
}

/** GET {management}/metrics: its text, parsed. */
export async function scrape (management: string, accept?: string): Promise<{ text: string, contentType: string, samples: MetricSample[] }> {
  const res = await fetch(`${management}/metrics`, { headers: accept === undefined ? {} : { accept } })
  if (res.status !== 200) throw new Error(`GET ${management}/metrics answered ${res.status}: ${await res.text()}`)
  const text = await res.text()
  return { text, contentType: res.headers.get('content-type') ?? '', samples: parseSamples(text) }
}

/** The samples of one metric whose labels include these. */
export function select (samples: MetricSample[], name: string, labels: Record<string, string> = {}): MetricSample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
}

/** The sum of those samples' values (0 when there is none). */
export function total (samples: MetricSample[], name: string, labels: Record<string, string> = {}): number {
  return select(samples, name, labels).reduce((sum, s) => sum + s.value, 0)
}

/** Every series of a scrape, as name{labels}: for counting them. */
export function seriesOf (samples: MetricSample[]): Set<string> {
  return new Set(samples.map((s) => `${s.name}${JSON.stringify(s.labels)}`))
}

const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0

/**
 * false when prometheus and promtool are here, else why not (for tap's skip). Where they must be
 * (SANDBOX_PROMETHEUS_TESTS=required, as .ci/run sets it) a missing one is an error instead.
 */
export function prometheusSkip (): string | false {
  const missing = ['prometheus', 'promtool'].filter((tool) => !has(tool))
  if (missing.length === 0) return false
  const message = `the observability tests need ${missing.join(' and ')} (Debian: apt-get install prometheus)`
  if (process.env.SANDBOX_PROMETHEUS_TESTS === 'required') throw new Error(message)
  return message
}

/** Runs promtool with these arguments (and stdin); its exit code and output. */
export async function promtool (args: string[], input?: string): Promise<{ code: number | null, output: string }> {
  return await new Promise((resolve, reject) => {
    const child = spawn('promtool', args, { stdio: ['pipe', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => { output += d.toString() })
    child.stderr.on('data', (d: Buffer) => { output += d.toString() })
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
    child.stdin.end(input ?? '')
  })
}
