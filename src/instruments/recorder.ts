/*
 * What the rest of the sandbox tells the metrics (docs/observability.md lists every metric): a small object of
 * methods, handed to each room that has something to count (app.ts passes fastify.metrics on). No room but
 * src/observe/ knows prom-client. With SANDBOX_MANAGEMENT_PORT=off it is NO_METRICS, whose methods do nothing,
 * and `on` is false: a caller skips the work that only feeds a metric (reading the clock for a duration).
 */

export type RateLimit = 'api' | 'token'

export interface Metrics {
  readonly on: boolean
  /** The token endpoint issued tokens (any grant; the raw grant_type: unknown ones are counted as "other"). */
  tokenIssued: (grantType: string | undefined) => void
  /** The token endpoint answered an OAuth error (the error code as the client got it). */
  tokenFailed: (grantType: string | undefined, error: string) => void
  /** A request refused by SANDBOX_RATE_LIMIT (api) or SANDBOX_TOKEN_RATE_LIMIT (token). */
  rateLimited: (limit: RateLimit) => void
  /** A client or user just got locked out (SANDBOX_LOCKOUT_FAILURES wrong secrets in a row). */
  lockedOut: () => void
  /** An advice code appeared in a partner's findings (where it was not: first time, or again after a clear). */
  adviceFinding: (code: string) => void
  /** One batch committed to the data dir (one observation per batch, however many writes it carried). */
  dataDirWrite: (seconds: number) => void
  dataDirWriteFailed: () => void
  /** One Redis command answered (or failed) after `seconds`; `command` is its name (a script's: its name). */
  redisCommand: (command: string, seconds: number, failed: boolean) => void
  /** A request waited this long for its partner's round (store/redis/replica.ts). */
  redisRoundWait: (seconds: number) => void
}

const nothing = (): void => {}

export const NO_METRICS: Metrics = {
  on: false,
  tokenIssued: nothing,
  tokenFailed: nothing,
  rateLimited: nothing,
  lockedOut: nothing,
  adviceFinding: nothing,
  dataDirWrite: nothing,
  dataDirWriteFailed: nothing,
  redisCommand: nothing,
  redisRoundWait: nothing
}
