import { STATUS_CODES } from './node-http.js'

/**
 * The one error catalogue. Every error the sandbox answers with is one of these codes; the body is
 * always Spring Boot's default error JSON (design.md "Error body"), built by errorBody() below.
 * The code itself travels in the X-Sandbox-Error header so that partners can tell causes apart
 * without the body leaving Spring's shape.
 */
export const CATALOGUE = {
  SANDBOX_ERR_VALIDATION: { status: 400, summary: 'A field, parameter or header broke a rule of the spec' },
  SANDBOX_ERR_AGENT_ID_MISSING: { status: 400, summary: 'The Agent-Id header is missing' },
  SANDBOX_ERR_BODY_MISSING: { status: 400, summary: 'The request body is missing' },
  SANDBOX_ERR_MALFORMED_JSON: { status: 400, summary: 'The request body is not valid JSON' },
  SANDBOX_ERR_MALFORMED_HTTP: { status: 400, summary: 'The request is not valid HTTP/1.1 (request line, headers, chunked body or a missing Host header)' },
  SANDBOX_ERR_TOKEN_MISSING: { status: 401, summary: 'No bearer token was sent' },
  SANDBOX_ERR_TOKEN_INVALID: { status: 401, summary: 'The bearer token is not a valid access token of this sandbox' },
  SANDBOX_ERR_ADMIN_TOKEN: { status: 401, summary: 'The operator token is missing or wrong' },
  SANDBOX_ERR_AGENT_FORBIDDEN: { status: 403, summary: "The Agent-Id is not one of the token's agents" },
  SANDBOX_ERR_ADMIN_DISABLED: { status: 403, summary: 'Operator endpoints are disabled (no SANDBOX_ADMIN_TOKEN)' },
  SANDBOX_ERR_LIMIT: { status: 403, summary: 'A partner limit (records, agents) is reached' },
  SANDBOX_ERR_NOT_FOUND: { status: 404, summary: 'No such record for this agent' },
  SANDBOX_ERR_ROUTE_NOT_FOUND: { status: 404, summary: 'No such path' },
  SANDBOX_ERR_VERSION_NOT_FOUND: { status: 404, summary: 'No such API version' },
  SANDBOX_ERR_METHOD_NOT_ALLOWED: { status: 405, summary: 'The path exists but not for this method' },
  SANDBOX_ERR_NOT_ACCEPTABLE: { status: 406, summary: 'The Accept header excludes JSON' },
  SANDBOX_ERR_CONFLICT: { status: 409, summary: 'The request conflicts with existing sandbox state' },
  SANDBOX_ERR_BODY_TOO_LARGE: { status: 413, summary: 'The request body is larger than the limit' },
  SANDBOX_ERR_URI_TOO_LONG: { status: 414, summary: 'A path segment is longer than 8192 characters' },
  SANDBOX_ERR_MEDIA_TYPE: { status: 415, summary: 'The request body is not application/json' },
  SANDBOX_ERR_HEADERS_TOO_LARGE: { status: 431, summary: 'The request headers are larger than the limit (16 KB)' },
  SANDBOX_ERR_RATE_LIMITED: { status: 429, summary: "The partner's requests per second (SANDBOX_RATE_LIMIT), or a client's token requests per second (SANDBOX_TOKEN_RATE_LIMIT), are used up, or a client address sent too many wrong operator tokens (SANDBOX_ADDRESS_LOCKOUT_FAILURES); retry after the given seconds" },
  SANDBOX_ERR_OVERLOADED: { status: 503, summary: 'The sandbox is overloaded; retry after the given seconds' },
  SANDBOX_ERR_STORE_UNAVAILABLE: { status: 503, summary: 'A sandbox running as several replicas cannot reach its shared store (Redis) just now; nothing was changed unless the store confirmed it; retry after the given seconds' },
  SANDBOX_ERR_STORE_FULL: { status: 507, summary: "The sandbox's shared store (Redis) is nearly full (SANDBOX_REDIS_MEMORY_GUARD): writes are refused, reads still served, until the operator makes room" },
  SANDBOX_ERR_TIMEOUT: { status: 408, summary: 'The client did not send the whole request within the request timeout' },
  SANDBOX_ERR_FAULT_INJECTED: { status: 500, summary: 'An error injected on purpose (Sandbox-Fault or Prefer header, fault rule or magic value); the status is the one asked for' },
  SANDBOX_ERR_INTERNAL: { status: 500, summary: 'An unexpected fault in the sandbox (never a client mistake)' }
} as const

export type ErrorCode = keyof typeof CATALOGUE

/** One entry of errors[]: the shape of Spring's FieldError. */
export interface FieldError {
  field: string
  rejectedValue: unknown
  defaultMessage: string
  code: string
}

export interface ErrorBody {
  timestamp: string
  status: number
  error: string
  message: string
  path: string
  errors: FieldError[]
}

export class SandboxError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  readonly fieldErrors: FieldError[]
  readonly headers: Record<string, string>

  constructor (code: ErrorCode, message: string, fieldErrors: FieldError[] = [], headers: Record<string, string> = {}) {
    super(message)
    this.name = 'SandboxError'
    this.code = code
    this.statusCode = CATALOGUE[code].status
    this.fieldErrors = fieldErrors
    this.headers = headers
  }
}

/** An error answer with another status than its code's usual one (injected faults, Fastify's own client errors). */
export function withStatus (err: SandboxError, status: number): SandboxError {
  Object.assign(err, { statusCode: status })
  return err
}

/**
 * The catalogue's code for a status the framework chose (its own client errors): the first entry with
 * that status, else a 400 of SANDBOX_ERR_VALIDATION, so that header and status always agree.
 */
export function codeForStatus (status: number): ErrorCode {
  const entry = Object.entries(CATALOGUE).find(([, e]) => e.status === status && status !== 500)
  return (entry?.[0] as ErrorCode | undefined) ?? 'SANDBOX_ERR_VALIDATION'
}

/** Spring's message for a failed @Valid body, and the one we use for every set of field errors. */
export function validationFailed (objectName: string, fieldErrors: FieldError[]): SandboxError {
  return new SandboxError('SANDBOX_ERR_VALIDATION',
    `Validation failed for object='${objectName}'. Error count: ${fieldErrors.length}`, fieldErrors)
}

export function notFound (what: string, id: string): SandboxError {
  return new SandboxError('SANDBOX_ERR_NOT_FOUND', `${what} ${id} not found`)
}

/** Spring's ISO timestamp with millis and an explicit +00:00 offset. */
export function springTimestamp (date = new Date()): string {
  return date.toISOString().replace('Z', '+00:00')
}

export function errorBody (status: number, message: string, path: string, errors: FieldError[] = [], now = Date.now()): ErrorBody {
  return {
    timestamp: springTimestamp(new Date(now)),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    path,
    errors
  }
}
