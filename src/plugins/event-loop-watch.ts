import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'

const RESOLUTION_MS = 10

/**
 * Whether the event loop falls behind: the mean delay of the last interval (Node's own histogram, measured
 * as @fastify/under-pressure measured it, which did this before) above a limit. The operations plugin reads
 * `overloaded` in the onRequest step it has anyway, so that the check costs a request one property read
 * (under-pressure's step of its own also built the route's options object on every request).
 */
export class EventLoopWatch {
  /** True while the mean delay of the last interval was above the limit. */
  overloaded = false
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  private readonly timer: NodeJS.Timeout
  private from = Infinity

  constructor (private readonly maxDelayMs: number, intervalMs: number) {
    this.histogram.enable()
    this.timer = setInterval(() => this.sample(), intervalMs).unref()
  }

  /** Delays count from `graceMs` on: loading the data and making keys block the loop, which is not overload. */
  countFrom (graceMs: number): void {
    this.from = Date.now() + graceMs
  }

  stop (): void {
    clearInterval(this.timer)
    this.histogram.disable()
    this.overloaded = false
  }

  private sample (): void {
    // an interval without a sample (NaN) is a gap in the measurement, not a measured overload
    const meanMs = this.histogram.mean / 1e6 - RESOLUTION_MS
    this.overloaded = Date.now() >= this.from && Number.isFinite(meanMs) && meanMs > this.maxDelayMs
    this.histogram.reset()
  }
}
