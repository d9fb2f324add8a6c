import { GRANT_TYPES } from '../auth/realm.js'
import type { Metrics, RateLimit } from '../instruments/recorder.js'
import type { Api } from './routes.js'
import { CounterFamily, HistogramFamily, ReadFamily, type CounterCell, type Family, type HistogramCell, type Sample } from './series.js'

/*
 * Every metric of the sandbox (docs/observability.md describes each one) and the Recorder that counts them: the
 * Metrics interface the other rooms call (instruments/recorder.ts), and the request step's cells (plugins/observe.ts). Label values are
 * bounded here, whatever a caller passes: unknown grant types, error codes, command names and advice codes
 * beyond a fixed number count as "other", so that no client can make series without end.
 */

/** OpenTelemetry's buckets for http.server.request.duration: 5 ms to 10 s, with 250 ms (the latency SLO) among them. */
export const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
/** A commit to the data dir (a write and an fdatasync) and a Redis command: from 100 µs. */
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

const OAUTH_ERRORS = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type',
  'invalid_scope', 'invalid_target', 'access_denied', 'temporarily_unavailable', 'server_error'])
const FAULT_SOURCES = ['header', 'prefer', 'rule', 'magic'] as const
const FAULT_KINDS = ['status', 'latency', 'reset', 'timeout', 'after'] as const
/** Distinct command names and advice codes at most (more count as "other"): far more than the sandbox uses. */
const MAX_NAMES = 64
const COMMAND_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/
export const APIS: readonly Api[] = ['bank', 'control', 'identity', 'console', 'docs', 'other']
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx']
/** How long a partner counts as active after its last request, and the spans its requests are noted in. */
export const ACTIVE_MS = 5 * 60_000
const SPAN_MS = 60_000

/**
 * The kind of an injected fault, once per request, from its Sandbox-Fault-Applied value ("after, status=502;
 * source=header"): the first of after, reset, timeout, status that it has, else latency. `after` wins because
 * it is what the client cannot see (the operation ran); a latency with a status is counted as the status.
 */
export function faultKind (applied: string): typeof FAULT_KINDS[number] {
  const end = applied.indexOf(';')
  const fault = end === -1 ? applied : applied.slice(0, end)
  if (fault.startsWith('after')) return 'after'
  if (fault.includes('reset')) return 'reset'
  if (fault.includes('timeout')) return 'timeout'
  if (fault.includes('status=')) return 'status'
  return 'latency'
}

export function faultSource (applied: string): typeof FAULT_SOURCES[number] | undefined {
  const m = /; source=(\w+)/.exec(applied)
  return FAULT_SOURCES.find((s) => s === m?.[1])
}

/** The series of one route and method (plugins/observe.ts keeps one per route): its cells by status and injected. */
export class RouteSeries {
  private readonly cells = new Map<number, HistogramCell>()
  // the cell of the last request: most requests of a route answer as the one before did
  private lastKey = Number.NaN
  private lastCell: HistogramCell | undefined
  readonly apiIndex: number

  constructor (private readonly family: HistogramFamily, readonly method: string, readonly route: string, readonly api: Api) {
    this.apiIndex = APIS.indexOf(api)
  }

  cell (status: number, injected: boolean): HistogramCell {
    const key = injected ? -1 - status : status
    if (key === this.lastKey) return this.lastCell!
    let cell = this.cells.get(key)
    if (cell === undefined) {
      cell = this.family.cell({ method: this.method, route: this.route, status_code: String(status), api: this.api, injected: injected ? 'true' : 'false' })
      this.cells.set(key, cell)
    }
    this.lastKey = key
    this.lastCell = cell
    return cell
  }
}

/** What the gauges read when scraped (plugins/observe.ts gives them, reading the app's state at that moment). */
export interface Probes {
  partners: () => Promise<{ registered: number, scenario: number }>
  ready: () => Promise<boolean>
  memoryLimit: () => number
  redis?: () => { up: boolean, partnersHeld: number }
}

export interface RecorderOptions {
  /** SANDBOX_METRICS_PARTNERS: requests counted per partner too, for the first `partnersMax` partners. */
  perPartner: boolean
  partnersMax: number
  dataDir: boolean
  redis: boolean
  version: string
}

/** A bounded set of label values: the first `max` distinct ones, then "other". */
class Bounded {
  private readonly seen = new Set<string>()
  constructor (private readonly max: number, private readonly valid: (v: string) => boolean = () => true) {}
  of (value: string): string {
    if (this.seen.has(value)) return value
    if (this.seen.size >= this.max || !this.valid(value)) return 'other'
    this.seen.add(value)
    return value
  }
}

export class Recorder implements Metrics {
  readonly on = true
  /** Requests in flight: counted up when one arrives, down when its response closes (answered, dropped or abandoned). */
  active = 0
  readonly leave = (): void => { this.active-- }
  readonly families: Family[] = []
  private readonly requests = new HistogramFamily('http_server_request_duration_seconds', 'Duration of HTTP requests from arrival to the end of the answer, by method, route template, status code (0: the connection was dropped without an answer), part of the sandbox (api) and whether the sandbox set the status or the delay on purpose (injected)', REQUEST_BUCKETS)
  private readonly routes = new Map<string, RouteSeries>()
  private readonly tokens = new CounterFamily('sandbox_tokens_issued_total', 'Token requests answered with tokens, by grant type')
  private readonly tokenErrors = new CounterFamily('sandbox_token_errors_total', 'Token requests answered with an OAuth error, by grant type and error code')
  private readonly faults = new CounterFamily('sandbox_faults_injected_total', 'Requests the sandbox faulted on purpose, once per request, by where the fault came from (source) and what it did (kind)')
  private readonly limited = new CounterFamily('sandbox_rate_limited_total', 'Requests refused with 429 by a rate limit: api (SANDBOX_RATE_LIMIT) or token (SANDBOX_TOKEN_RATE_LIMIT)')
  private readonly lockouts = new CounterFamily('sandbox_lockouts_total', 'Clients and users locked out of the token endpoint after SANDBOX_LOCKOUT_FAILURES wrong secrets in a row')
  private readonly findings = new CounterFamily('sandbox_advice_findings_total', "Advice codes appearing in a partner's findings (first time, or again after the advice was cleared), by code")
  private readonly dataDirWrites = new HistogramFamily('sandbox_datadir_write_duration_seconds', 'Duration of each batch of writes committed to the data dir (one append and fdatasync, or a new snapshot)', STORE_BUCKETS)
  private readonly dataDirErrors = new CounterFamily('sandbox_datadir_write_errors_total', 'Batches of writes the data dir refused (a full disk, an I/O error): their requests answered 5xx')
  private readonly redisCommands = new HistogramFamily('sandbox_redis_command_duration_seconds', 'Duration of Redis commands from sending to their answer, by command (a script by its name)', STORE_BUCKETS)
  private readonly redisErrors = new CounterFamily('sandbox_redis_errors_total', 'Redis commands that failed (unreachable, timed out, refused)')
  private readonly roundWaits = new HistogramFamily('sandbox_redis_round_wait_seconds', "How long requests waited for their partner's round (one script call that brings the partner up to date and carries its changes)", STORE_BUCKETS)
  private readonly grants = new Map(GRANT_TYPES.map((g) => [g, g]))
  private readonly commands = new Bounded(MAX_NAMES, (name) => COMMAND_NAME.test(name))
  private readonly codes = new Bounded(MAX_NAMES, (code) => COMMAND_NAME.test(code))
  private readonly perPartner = new Map<string, Float64Array>()
  /**
   * sandbox_partners_active: the partners of requests noted in spans of about a minute (a span ends at the first
   * scrape a minute after it began), the newest last. A request costs a Set lookup, none when its partner is the
   * previous request's.
   */
  private readonly spans: Array<{ end: number, partners: Set<string> }> = []
  private current = new Set<string>()
  private currentFrom = Date.now()
  private lastPartner: string | undefined
  // the per-partner counts of the last partner asked for
  private countsOf: string | undefined
  private counts: Float64Array | undefined
  private readonly roundWait: HistogramCell
  private readonly dataDirBatch: HistogramCell
  private readonly lockout: CounterCell

  constructor (private readonly opts: RecorderOptions, probes: Probes) {
    const gauge = (name: string, help: string, read: () => Sample[] | Promise<Sample[]>, aggregator: 'sum' | 'max' = 'sum'): void => {
      this.families.push(new ReadFamily('gauge', name, help, read, aggregator))
    }
    this.families.push(this.requests)
    gauge('http_server_active_requests', 'HTTP requests in flight', () => [{ labels: {}, value: this.active }])
    this.families.push(this.tokens, this.tokenErrors, this.faults, this.limited, this.lockouts)
    gauge('sandbox_partners', 'Partners of the sandbox: registered through the operator API (registered="true") or from scenarios', async () => {
      const p = await probes.partners()
      return [{ labels: { registered: 'true' }, value: p.registered }, { labels: { registered: 'false' }, value: p.scenario }]
    }, 'max')
    gauge('sandbox_partners_active', 'Partners that sent a request with one of their tokens (or asked for one) to this replica in the last 5 minutes', () => [{ labels: {}, value: this.activePartners() }], 'max')
    this.families.push(this.findings)
    if (opts.perPartner) {
      this.families.push(new ReadFamily('counter', 'sandbox_partner_requests_total', 'Requests of each partner, by part of the sandbox and status class (SANDBOX_METRICS_PARTNERS=1; past SANDBOX_METRICS_PARTNERS_MAX partners as partner="other")', () => this.partnerSamples()))
    }
    gauge('sandbox_ready', '1 when GET /ready answers 200 (data loaded, not stopping, the shared store reachable), else 0', async () => [{ labels: {}, value: await probes.ready() ? 1 : 0 }], 'max')
    gauge('sandbox_memory_limit_bytes', "Memory the process may use: its cgroup's (container's) limit, or the machine's memory when there is none", () => [{ labels: {}, value: probes.memoryLimit() }], 'max')
    gauge('sandbox_build_info', 'The sandbox version and Node.js version this replica runs (value 1)', () => [{ labels: { version: opts.version, node: process.version }, value: 1 }], 'max')
    if (opts.dataDir) this.families.push(this.dataDirWrites, this.dataDirErrors)
    const redis = probes.redis
    if (opts.redis && redis !== undefined) {
      gauge('sandbox_redis_up', '1 while the connections to Redis are up, else 0', () => [{ labels: {}, value: redis().up ? 1 : 0 }], 'max')
      gauge('sandbox_redis_partners_held', 'Partners this replica holds in memory (it applies their changes from Redis)', () => [{ labels: {}, value: redis().partnersHeld }])
      this.families.push(this.redisCommands, this.redisErrors, this.roundWaits)
    }
    // series shown at 0 from the start: a rate() of them is 0, not nothing, before the first count
    for (const source of FAULT_SOURCES) for (const kind of FAULT_KINDS) this.faults.declare({ source, kind })
    for (const limit of ['api', 'token']) this.limited.declare({ limit })
    for (const grant of GRANT_TYPES) this.tokens.declare({ grant_type: grant })
    this.dataDirErrors.declare({})
    this.redisErrors.declare({})
    this.lockout = this.lockouts.cell({})
    this.roundWait = this.roundWaits.cell({})
    this.dataDirBatch = this.dataDirWrites.cell({})
  }

  /** The series of a route (plugins/observe.ts asks once per route and method, and for each unmatched request's api). */
  route (method: string, route: string, api: Api): RouteSeries {
    const key = `${api} ${method} ${route}`
    let series = this.routes.get(key)
    if (series === undefined) this.routes.set(key, series = new RouteSeries(this.requests, method, route, api))
    return series
  }

  /** One request answered (status 0: dropped); `applied` its Sandbox-Fault-Applied value, if the sandbox faulted it. */
  request (series: RouteSeries, status: number, applied: string | undefined, seconds: number, partner: string | undefined): void {
    series.cell(status, applied !== undefined).observe(seconds)
    if (applied !== undefined) this.faultInjected(applied)
    if (partner === undefined) return
    if (partner !== this.lastPartner) {
      this.current.add(partner)
      this.lastPartner = partner
    }
    if (this.opts.perPartner) this.partnerCounts(partner)[series.apiIndex * STATUS_CLASSES.length + Math.floor(status / 100)]++
  }

  private faultInjected (applied: string): void {
    const source = faultSource(applied)
    if (source !== undefined) this.faults.cell({ source, kind: faultKind(applied) }).inc()
  }

  private partnerCounts (partner: string): Float64Array {
    if (partner === this.countsOf) return this.counts!
    let counts = this.perPartner.get(partner)
    if (counts === undefined) {
      const own = this.perPartner.size < this.opts.partnersMax
      counts = own ? new Float64Array(APIS.length * STATUS_CLASSES.length) : this.perPartner.get('\u0000other') ?? new Float64Array(APIS.length * STATUS_CLASSES.length)
      this.perPartner.set(own ? partner : '\u0000other', counts)
      if (!own) this.perPartner.set(partner, counts)
    }
    this.countsOf = partner
    this.counts = counts
    return counts
  }

  private activePartners (): number {
    const now = Date.now()
    if (now - this.currentFrom >= SPAN_MS) {
      this.spans.push({ end: now, partners: this.current })
      this.current = new Set()
      this.currentFrom = now
      this.lastPartner = undefined
    }
    while (this.spans.length > 0 && this.spans[0].end < now - ACTIVE_MS) this.spans.shift()
    const active = new Set(this.current)
    for (const span of this.spans) for (const partner of span.partners) active.add(partner)
    return active.size
  }

  /** The per-partner counters as samples (read when scraped). */
  private partnerSamples (): Sample[] {
    const out: Sample[] = []
    const shown = new Set<Float64Array>()
    for (const [partner, counts] of this.perPartner) {
      if (shown.has(counts)) continue
      shown.add(counts)
      const name = partner.startsWith('\u0000') ? 'other' : partner
      for (let a = 0; a < APIS.length; a++) {
        for (let c = 0; c < STATUS_CLASSES.length; c++) {
          const value = counts[a * STATUS_CLASSES.length + c]
          if (value > 0) out.push({ labels: { partner: name, api: APIS[a], status_class: STATUS_CLASSES[c] }, value })
        }
      }
    }
    return out
  }

  tokenIssued (grantType: string | undefined): void {
    this.tokens.cell({ grant_type: this.grants.get(grantType ?? '') ?? 'other' }).inc()
  }

  tokenFailed (grantType: string | undefined, error: string): void {
    this.tokenErrors.cell({ grant_type: this.grants.get(grantType ?? '') ?? 'other', error: OAUTH_ERRORS.has(error) ? error : 'other' }).inc()
  }

  rateLimited (limit: RateLimit): void {
    this.limited.cell({ limit }).inc()
  }

  lockedOut (): void {
    this.lockout.inc()
  }

  adviceFinding (code: string): void {
    this.findings.cell({ code: this.codes.of(code) }).inc()
  }

  dataDirWrite (seconds: number): void {
    this.dataDirBatch.observe(seconds)
  }

  dataDirWriteFailed (): void {
    this.dataDirErrors.cell({}).inc()
  }

  redisCommand (command: string, seconds: number, failed: boolean): void {
    this.redisCommands.cell({ command: this.commands.of(command) }).observe(seconds)
    if (failed) this.redisErrors.cell({}).inc()
  }

  redisRoundWait (seconds: number): void {
    this.roundWait.observe(seconds)
  }
}
