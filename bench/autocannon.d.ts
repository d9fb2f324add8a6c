// The part of autocannon's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string
      connections?: number
      duration?: number
      method?: string
      headers?: Record<string, string>
      body?: string
      timeout?: number
      pipelining?: number
      /** Answer the raw result of one run (histograms encoded) so that several runs can be merged. */
      skipAggregateResult?: boolean
      /** Stop after this many requests. */
      amount?: number
    }

    interface Stats {
      average: number
      mean: number
      stddev: number
      min: number
      max: number
      p50: number
      p90: number
      p99: number
      p99_9: number
      totalCount?: number
    }

    /** One run with skipAggregateResult: counts plus encoded histograms. */
    interface RawResult {
      totalCompletedRequests: number
      totalRequests: number
      errors: number
      timeouts: number
      non2xx: number
      duration: number
      '2xx': number
      statusCodeStats: Record<string, { count: number }>
    }

    interface Result {
      duration: number
      errors: number
      timeouts: number
      non2xx: number
      '2xx': number
      latency: Stats
      statusCodeStats: Record<string, { count: number }>
    }

    function aggregateResult (results: RawResult[], opts?: Partial<Options>): Result
  }

  /** A run: awaited for its result; 'response' is emitted for every answer (its latency in ms, not rounded). */
  interface Run extends Promise<autocannon.RawResult & autocannon.Result> {
    on: (event: 'response', listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void) => Run
  }

  function autocannon (opts: autocannon.Options): Run
  export = autocannon
}
