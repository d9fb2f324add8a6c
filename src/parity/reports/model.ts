import type { Declared } from '../declared.js'
import type { Redactor } from '../redact.js'
import type { SpecDifference } from '../spec-diff.js'
import type { Difference, Exchange, ProbeKind } from '../types.js'

/*
 * What every report is written from: the run's outcome with each exchange already redacted (redact.ts), so
 * that no report writer can show a secret by mistake.
 */

export interface ShownExchange {
  side: 'target' | 'reference'
  label: string
  started: string
  method: string
  url: string
  requestHeaders: Record<string, string>
  requestBody?: string
  status?: number
  statusText?: string
  headers?: Record<string, string>
  body?: string
  ms?: number
  failure?: string
}

export interface ShownOutcome {
  id: string
  operation: string
  kind: ProbeKind
  title: string
  state: 'same' | 'different' | 'skipped'
  skipped?: string
  /** True when one of its differences is undeclared (or declared but expired). */
  failing: boolean
  differences: Difference[]
  reference?: ShownExchange
  target?: ShownExchange
}

export interface ParityReport {
  tool: 'banking-sandbox parity'
  started: string
  ms: number
  target: { url: string, tokenUrl: string }
  reference: { url: string }
  readOnly: boolean
  summary: { probes: number, same: number, different: number, skipped: number, differences: number, undeclared: number, declared: number }
  outcomes: ShownOutcome[]
  spec?: { target: string, breaking: SpecDifference[], nonBreaking: SpecDifference[] }
  /** Declared divergences nothing matched this run: candidates for removal. */
  unusedDeclarations: Declared[]
  /** Every request and answer of the run, the walk included (the HAR is written from these). */
  exchanges: ShownExchange[]
}

export function show (ex: Exchange, redactor: Redactor): ShownExchange {
  const contentType = ex.request.headers['content-type'] ?? ''
  return {
    side: ex.side,
    label: ex.label,
    started: ex.started,
    method: ex.request.method,
    url: redactor.sweep(ex.request.url),
    requestHeaders: redactor.headers(ex.request.headers),
    requestBody: redactor.body(ex.request.body, contentType),
    status: ex.answer?.status,
    statusText: ex.answer?.statusText,
    headers: ex.answer === undefined ? undefined : redactor.headers(ex.answer.headers),
    body: ex.answer === undefined ? undefined : redactor.body(ex.answer.body, ex.answer.headers['content-type'] ?? ''),
    ms: ex.answer?.ms,
    failure: ex.failure
  }
}
