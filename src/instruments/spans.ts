/*
 * What the rest of the sandbox knows of tracing: a child span of the request at hand, by name, ended when its
 * work settles. The rooms that do the work (the store's Redis round, the data dir's write, the token's
 * signature) are handed a Spans where they are made and never import OpenTelemetry; with tracing off theirs is
 * NO_SPANS, which costs them a call that returns a constant.
 */

export type SpanAttributes = Record<string, string | number | boolean>

/** Ends the span; an error given marks it failed. */
export type EndSpan = (error?: unknown) => void

export interface Spans {
  /** Starts a child span of the current request's span (none outside a request, or with tracing off). */
  span: (name: string, attributes?: SpanAttributes) => EndSpan
}

export const NO_END: EndSpan = () => {}
export const NO_SPANS: Spans = { span: () => NO_END }

/** The spans' names, one per room that reports one (docs/observability.md lists them). */
export const SPAN = {
  /** With replicas: a request's wait for its round trip to Redis (store/redis/replica.ts). */
  storeRound: 'sandbox.store.round',
  /** An access token made and signed by the identity provider (auth/provider.ts). */
  tokenSignature: 'sandbox.token.sign',
  /** With a data dir: a change's wait for its batch to be on disk (store/persistence.ts). */
  dataDirWrite: 'sandbox.data_dir.write'
} as const

/** The work, with the span ended when it settles; the work itself (no promise more) when the span is NO_END. */
export function traced<T> (end: EndSpan, work: Promise<T>): Promise<T> {
  if (end === NO_END) return work
  return work.then((value) => {
    end()
    return value
  }, (err: unknown) => {
    end(err)
    throw err
  })
}
