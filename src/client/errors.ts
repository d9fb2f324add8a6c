import type { FieldError } from './types.js'

/**
 * Every error answer the client meets, from the bank's API, the control API or the token endpoint: what the
 * sandbox answered, as it answered it. A failing test prints these fields with the error (util.inspect).
 * Network failures (nothing answered) stay fetch's own TypeError: there is no answer to describe.
 */
export class SandboxApiError extends Error {
  /** The HTTP status. */
  readonly status: number
  /**
   * The X-Sandbox-Error header (SANDBOX_ERR_*, the catalogue of docs/errors.md); for the token endpoint's
   * OAuth errors without one, their `error` (invalid_client, invalid_grant, ...). Undefined when neither is there.
   */
  readonly code: string | undefined
  /** Spring's errors[]: one entry per field and rule broken (empty when the answer has none). */
  readonly errors: FieldError[]
  /** The answer's X-Request-Id: the journal's entry of this request (GET /__sandbox/requests/{id}). */
  readonly requestId: string | undefined
  /** The URL that was asked. */
  readonly url: string
  /** The answer's body: parsed JSON, or its text. */
  readonly body: unknown

  constructor (response: Response, body: unknown) {
    const fields = typeof body === 'object' && body !== null ? body as Record<string, unknown> : {}
    // Spring's body has a numeric status and a message; OAuth's (RFC 6749 5.2) an error code and a description
    const oauth = typeof fields.error === 'string' && typeof fields.status !== 'number'
    const message = typeof fields.message === 'string'
      ? fields.message
      : typeof fields.error_description === 'string'
        ? fields.error_description
        : typeof body === 'string' && body !== '' ? body : `${response.status} ${response.statusText}`
    super(message)
    this.name = 'SandboxApiError'
    this.status = response.status
    this.code = response.headers.get('x-sandbox-error') ?? (oauth ? fields.error as string : undefined)
    this.errors = Array.isArray(fields.errors) ? fields.errors as FieldError[] : []
    this.requestId = response.headers.get('x-request-id') ?? undefined
    this.url = response.url
    this.body = body
  }
}

/** The body of an answer, parsed as JSON when it is JSON. */
export async function bodyOf (response: Response): Promise<unknown> {
  const text = await response.text()
  if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * The data of an openapi-fetch result, or its error answer thrown as SandboxApiError. For the bank's API, whose
 * results keep openapi-fetch's shape ({ data, error, response }), when a test wants the record or a throw:
 * `const customer = unwrap(await client.api.GET('/api/customers/{customerId}', ...))`.
 */
export function unwrap<T> (result: { data?: T, error?: unknown, response: Response }): T {
  if (!result.response.ok) throw new SandboxApiError(result.response, result.error)
  return result.data as T
}
