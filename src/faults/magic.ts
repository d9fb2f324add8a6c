import type { ErrorCode } from '../errors.js'
import type { GuaranteeState } from '../schemas/guarantees.js'
import { formatFault, injectedErrorHeaders, parseFault, type Fault } from './fault.js'

/*
 * Magic values: documented inputs with fixed outcomes (Stripe's test cards), so that an unmodified
 * application reaches an outcome through data alone. Each creating operation has one text field that
 * takes them; every value is valid input for that field, so the request passes validation first.
 * GET /__sandbox/magic serves this catalogue and the tests walk it.
 */

/**
 * Guarantee ids that answer without any set-up (documented in docs/testing-failures.md, docs/scenarios.md and the API docs), so that a
 * partner can test every branch of its guarantee check against any sandbox.
 */
export const MAGIC_GUARANTEE_PREFIXES: Record<string, GuaranteeState | null> = {
  'VALID-': { state: 'VALID' },
  'INVALID-': { state: 'INVALID' },
  'NOSTATE-': {},
  'NOTFOUND-': null
}

export interface MagicField {
  operation: string
  method: 'POST'
  /** Route template as the API document writes it. */
  path: string
  /** Fastify's route template. */
  route: string
  field: string
}

export const MAGIC_FIELDS: MagicField[] = [
  { operation: 'createCustomer', method: 'POST', path: '/api/customers', route: '/api/customers', field: 'customerReference' },
  { operation: 'createAccount', method: 'POST', path: '/api/accounts', route: '/api/accounts', field: 'productCode' },
  { operation: 'createBeneficiary', method: 'POST', path: '/api/customers/{customerId}/beneficiaries', route: '/api/customers/:customerId/beneficiaries', field: 'beneficiaryReference' },
  { operation: 'createMessage', method: 'POST', path: '/api/customers/{customerId}/messages', route: '/api/customers/:customerId/messages', field: 'message' }
]

const OUTCOMES: Array<{ value: string, fault: string, description: string }> = [
  { value: 'SANDBOX-FAULT-500', fault: 'status=500', description: 'answers 500 Internal Server Error; nothing is created' },
  { value: 'SANDBOX-FAULT-503', fault: 'status=503', description: 'answers 503 Service Unavailable with Retry-After; nothing is created' },
  { value: 'SANDBOX-FAULT-429', fault: 'status=429', description: 'answers 429 Too Many Requests with Retry-After; nothing is created' },
  { value: 'SANDBOX-LATENCY-10S', fault: 'latency=10000', description: 'waits 10 seconds, then creates and answers 200 as usual' },
  { value: 'SANDBOX-AFTER-502', fault: 'after, status=502', description: 'creates the record, then answers 502 Bad Gateway: a retry creates a duplicate' },
  { value: 'SANDBOX-RESET', fault: 'reset', description: 'closes the connection without an answer; nothing is created' },
  { value: 'SANDBOX-TIMEOUT', fault: 'timeout', description: 'never answers (the connection is held until the client gives up); nothing is created' }
]

/**
 * What the request with a magic value gets, in fields a tool can check (SandboxMagicOutcome): the catalogue
 * says what distinguishes each outcome (status, error code, headers, delay, the body of a guarantee's state).
 */
export interface MagicOutcome {
  /** answered; reset: closed without an answer; held: no answer until the client gives up (SANDBOX_FAULT_HOLD). */
  connection: 'answered' | 'reset' | 'held'
  status?: number
  /** X-Sandbox-Error of an error answer (its body is the ErrorBody of that status). */
  error?: ErrorCode
  /** Headers the answer carries with these values, names in lower case. */
  headers?: Record<string, string>
  /** The answer comes at least this late. */
  delayMs?: number
  /** The answer's whole body, where it is fixed (a guarantee's state). */
  body?: GuaranteeState
  /** A creating operation: whether the record is created. */
  created?: boolean
}

export interface MagicValue {
  value: string
  match: 'exact' | 'prefix'
  operation: string
  method: string
  path: string
  field: string
  /** The fault it applies, in the Sandbox-Fault syntax (absent for the guarantee ids, which answer data). */
  fault?: string
  outcome: MagicOutcome
  description: string
}

/** The Sandbox-Fault-Applied value of a magic value's fault. */
export function magicLabel (fault: Fault, field: string, value: string): string {
  return `${formatFault(fault)}; source=magic; field=${field}; value=${value}`
}

/** What a creating operation answers with the magic value's fault (plugins/faults.ts applies it). */
function faultOutcome (fault: Fault, field: string, value: string): MagicOutcome {
  const created = fault.after || (fault.status === undefined && !fault.reset && !fault.timeout)
  if (fault.reset || fault.timeout) return { connection: fault.reset ? 'reset' : 'held', created }
  const headers = { 'sandbox-fault-applied': magicLabel(fault, field, value), ...(fault.status === undefined ? {} : injectedErrorHeaders(fault.status)) }
  return {
    connection: 'answered',
    status: fault.status ?? 200,
    ...(fault.status === undefined ? {} : { error: 'SANDBOX_ERR_FAULT_INJECTED' as const }),
    headers,
    ...(fault.latencyMs === undefined ? {} : { delayMs: fault.latencyMs }),
    created
  }
}

/** What the public guarantee state answers for an id with the prefix (store/guarantees.ts answers it). */
function guaranteeOutcome (answer: GuaranteeState | null): MagicOutcome {
  return answer === null ? { connection: 'answered', status: 404, error: 'SANDBOX_ERR_NOT_FOUND' } : { connection: 'answered', status: 200, body: answer }
}

const GUARANTEE_ANSWERS: Record<string, string> = {
  'VALID-': 'answers {"state":"VALID"} without any set-up',
  'INVALID-': 'answers {"state":"INVALID"} without any set-up',
  'NOSTATE-': 'answers {} (no state) without any set-up',
  'NOTFOUND-': 'answers 404 like an unknown guarantee'
}

export const MAGIC_VALUES: MagicValue[] = [
  ...MAGIC_FIELDS.flatMap((f) => OUTCOMES.map((o) => ({
    value: o.value,
    match: 'exact' as const,
    operation: f.operation,
    method: f.method,
    path: f.path,
    field: f.field,
    fault: o.fault,
    outcome: faultOutcome(parseFault(o.fault), f.field, o.value),
    description: f.field === 'productCode' && o.value === 'SANDBOX-AFTER-502' ? `${o.description} (the account opened is a call account)` : o.description
  }))),
  ...Object.entries(MAGIC_GUARANTEE_PREFIXES).map(([prefix, answer]) => ({
    value: prefix,
    match: 'prefix' as const,
    operation: 'getGuaranteeState',
    method: 'GET',
    path: '/api/guarantees/{guaranteeID}/state',
    field: 'guaranteeID',
    outcome: guaranteeOutcome(answer),
    description: `an id starting with ${prefix} (any case) ${GUARANTEE_ANSWERS[prefix]}`
  }))
]

const FAULT_BY_VALUE = new Map(OUTCOMES.map((o) => [o.value, parseFault(o.fault)]))

/** The magic value's fault, if the text is one (exact match, as documented). */
export function magicFault (text: unknown): Fault | undefined {
  return typeof text === 'string' && text.startsWith('SANDBOX-') ? FAULT_BY_VALUE.get(text) : undefined
}
