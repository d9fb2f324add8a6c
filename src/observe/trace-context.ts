import type { FastifyRequest } from 'fastify'

/*
 * W3C Trace Context (https://www.w3.org/TR/trace-context/), read without OpenTelemetry: whether tracing is on or
 * off, the trace id of a request's traceparent goes into its journal entry and its log line, so that a partner
 * can find the sandbox's record of a request from its own trace.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set by tracing when it is on (observe/request-spans.ts), at the start of the request's span: the trace the
     * journal and the log name (null: none). Tracing off, the property is not there and traceIdOf() reads the header.
     */
    traceId?: string | null
  }
}

export interface TraceParent {
  /** 32 lower-case hex digits, not all zeros. */
  traceId: string
  /** The caller's span: 16 lower-case hex digits, not all zeros. */
  parentId: string
  /** The trace flags (bit 0: sampled). */
  flags: number
}

// version - trace-id - parent-id - trace-flags; a later version may append fields after a dash (section 4.3)
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/
const ZERO_TRACE = '0'.repeat(32)
const ZERO_PARENT = '0'.repeat(16)

/**
 * A traceparent header as the W3C recommendation reads it, or undefined for one that is absent or invalid: an
 * observability header never makes a request fail (section 4.3: an invalid traceparent is ignored and a new
 * trace starts). Version 00 is exactly four fields; a higher version is read by its first four (ff is invalid);
 * upper-case hex, an all-zero trace id or parent id, or the header sent twice (Node joins them) is invalid.
 */
export function parseTraceparent (header: string | string[] | undefined): TraceParent | undefined {
  if (typeof header !== 'string' || header.length < 55) return undefined
  const m = TRACEPARENT.exec(header)
  if (m === null) return undefined
  const [, version, traceId, parentId, flags, rest] = m
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined
  if (traceId === ZERO_TRACE || parentId === ZERO_PARENT) return undefined
  return { traceId, parentId, flags: parseInt(flags, 16) }
}

/**
 * The trace a request belongs to, for its journal entry and log line: with tracing on, what it decided when the
 * request's span started (observe/request-spans.ts); with tracing off, the trace id of a valid traceparent header;
 * else null.
 */
export function traceIdOf (request: FastifyRequest): string | null {
  const decided = request.traceId
  if (decided !== undefined) return decided
  // most requests have no such header: one failed property lookup
  const header = request.headers.traceparent
  return header === undefined ? null : parseTraceparent(header)?.traceId ?? null
}
