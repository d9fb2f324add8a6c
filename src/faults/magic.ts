import type { GuaranteeState } from '../schemas/guarantees.js'
import { parseFault, type Fault } from './fault.js'

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

export interface MagicValue {
  value: string
  match: 'exact' | 'prefix'
  operation: string
  method: string
  path: string
  field: string
  /** The fault it applies, in the Sandbox-Fault syntax (absent for the guarantee ids, which answer data). */
  fault?: string
  /** The answer's status when the value does not drop the connection. */
  status?: number
  description: string
}

const GUARANTEE_ANSWERS: Record<string, { status: number, description: string }> = {
  'VALID-': { status: 200, description: 'answers {"state":"VALID"} without any set-up' },
  'INVALID-': { status: 200, description: 'answers {"state":"INVALID"} without any set-up' },
  'NOSTATE-': { status: 200, description: 'answers {} (no state) without any set-up' },
  'NOTFOUND-': { status: 404, description: 'answers 404 like an unknown guarantee' }
}

function statusOf (f: Fault): number | undefined {
  if (f.reset || f.timeout) return undefined
  return f.status ?? 200
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
    status: statusOf(parseFault(o.fault)),
    description: f.field === 'productCode' && o.value === 'SANDBOX-AFTER-502' ? `${o.description} (the account opened is a call account)` : o.description
  }))),
  ...Object.keys(MAGIC_GUARANTEE_PREFIXES).map((prefix) => ({
    value: prefix,
    match: 'prefix' as const,
    operation: 'getGuaranteeState',
    method: 'GET',
    path: '/api/guarantees/{guaranteeID}/state',
    field: 'guaranteeID',
    status: GUARANTEE_ANSWERS[prefix].status,
    description: `an id starting with ${prefix} (any case) ${GUARANTEE_ANSWERS[prefix].description}`
  }))
]

const FAULT_BY_VALUE = new Map(OUTCOMES.map((o) => [o.value, parseFault(o.fault)]))

/** The magic value's fault, if the text is one (exact match, as documented). */
export function magicFault (text: unknown): Fault | undefined {
  return typeof text === 'string' && text.startsWith('SANDBOX-') ? FAULT_BY_VALUE.get(text) : undefined
}
