/*
 * The sandbox's own metrics, kept in plain numbers and read by prom-client's Registry only when scraped
 * (metrics.ts registers these families in it; Registry.metrics() formats them, in Prometheus' text format or in
 * OpenMetrics). prom-client's own Counter and Histogram hash their labels into a string at every observation
 * and validate them: a request would pay that several times. Here a caller keeps the cell of its series (a route
 * keeps its cells, metrics.ts) and an observation is a few additions. Families have the shape prom-client's
 * Registry reads (name, help, type, get()).
 */

export type Labels = Record<string, string>
export type MetricType = 'counter' | 'gauge' | 'histogram'

/** One sample as prom-client's Registry formats it. */
export interface Sample { labels: Record<string, string | number>, value: number, metricName?: string }

/** A metric as prom-client's Registry reads it (Registry.registerMetric). */
export interface Family {
  readonly name: string
  readonly help: string
  readonly type: MetricType
  readonly aggregator: 'sum' | 'max'
  get: () => Promise<{ name: string, help: string, type: MetricType, values: Sample[], aggregator: string }>
  reset: () => void
}

abstract class BaseFamily implements Family {
  abstract readonly type: MetricType
  readonly aggregator: 'sum' | 'max' = 'sum'

  constructor (readonly name: string, readonly help: string) {}

  protected abstract samples (): Sample[] | Promise<Sample[]>

  async get (): Promise<{ name: string, help: string, type: MetricType, values: Sample[], aggregator: string }> {
    return { name: this.name, help: this.help, type: this.type, values: await this.samples(), aggregator: this.aggregator }
  }

  reset (): void {}
}

export class CounterCell {
  value = 0
  constructor (readonly labels: Labels) {}
  inc (n = 1): void { this.value += n }
}

/** A counter; its cells by their label values (a key made of them, for callers that do not keep their cell). */
export class CounterFamily extends BaseFamily {
  readonly type = 'counter'
  private readonly cells = new Map<string, CounterCell>()

  /** The cell of these labels (made at first use: a series appears with its first count). */
  cell (labels: Labels): CounterCell {
    const key = Object.values(labels).join('\u0000')
    let cell = this.cells.get(key)
    if (cell === undefined) this.cells.set(key, cell = new CounterCell(labels))
    return cell
  }

  /** A series shown at 0 before anything is counted (a rate() of it is 0 instead of nothing). */
  declare (labels: Labels): void {
    this.cell(labels)
  }

  protected samples (): Sample[] {
    return [...this.cells.values()].map((c) => ({ labels: c.labels, value: c.value }))
  }
}

/**
 * A gauge (or a counter kept elsewhere) read when scraped: `read` gives its samples then. One that cannot be read
 * (the shared store is down) is left out of that scrape: the others, which tell of the outage, are served.
 */
export class ReadFamily extends BaseFamily {
  constructor (readonly type: MetricType, name: string, help: string, private readonly read: () => Sample[] | Promise<Sample[]>, override readonly aggregator: 'sum' | 'max' = 'sum') {
    super(name, help)
  }

  protected async samples (): Promise<Sample[]> {
    try {
      return await this.read()
    } catch {
      return []
    }
  }
}

export class HistogramCell {
  /** counts[i]: observations of at most bounds[i] and more than bounds[i - 1]; the last: more than every bound */
  readonly counts: Float64Array
  sum = 0
  count = 0

  constructor (readonly labels: Labels, private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  observe (value: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]) i++
    this.counts[i]++
    this.sum += value
    this.count++
  }
}

export class HistogramFamily extends BaseFamily {
  readonly type = 'histogram'
  private readonly cells = new Map<string, HistogramCell>()

  constructor (name: string, help: string, readonly bounds: readonly number[]) {
    super(name, help)
  }

  /** The cell of these labels (made at first use); the hot path keeps it instead of asking again. */
  cell (labels: Labels): HistogramCell {
    const key = Object.values(labels).join('\u0000')
    let cell = this.cells.get(key)
    if (cell === undefined) this.cells.set(key, cell = new HistogramCell(labels, this.bounds))
    return cell
  }

  protected samples (): Sample[] {
    const out: Sample[] = []
    const bucket = `${this.name}_bucket`
    for (const cell of this.cells.values()) {
      let cumulative = 0
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += cell.counts[i]
        out.push({ labels: { ...cell.labels, le: this.bounds[i] }, value: cumulative, metricName: bucket })
      }
      out.push({ labels: { ...cell.labels, le: '+Inf' }, value: cell.count, metricName: bucket })
      out.push({ labels: cell.labels, value: cell.sum, metricName: `${this.name}_sum` })
      out.push({ labels: cell.labels, value: cell.count, metricName: `${this.name}_count` })
    }
    return out
  }
}
