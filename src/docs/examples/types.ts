/** The shapes of the documents' examples (see ../examples.ts). */

export interface ExampleRequest {
  method: 'GET' | 'POST'
  url: string
  /** Agent-Id header; default the example agent, null sends none. */
  agent?: string | null
  /** Whose bearer token: the partner's client credentials (default), the test user's password grant, or none. */
  auth?: 'client' | 'user' | 'none'
  body?: unknown
  /** Content-Type of a body sent as text (default: JSON). */
  contentType?: string
  /** Accept header (default none). */
  accept?: string
}

export interface ResponseExample {
  status: number
  /** Key of the example in the document. */
  name: string
  summary: string
  request: ExampleRequest
  value: unknown
  /** Top-level fields that depend on the day of the call (dates of created records): a replay ignores them. */
  volatile?: string[]
}

export interface OperationExamples {
  /** Path parameter values of the successful example. */
  params?: Record<string, string>
  /** Request bodies, the first one the one that passes. */
  bodies?: Array<{ name: string, summary: string, value: unknown }>
  responses: ResponseExample[]
}

/** Examples by operation, e.g. "GET /api/customers/{customerId}". */
export type OperationsExamples = Record<string, OperationExamples>

export interface DocExamples {
  agentId: string
  /** The partner the examples act as and its test user. */
  partner: { clientId: string, secret: string, user: { username: string, password: string } }
  /** One example per component schema, by $id. */
  schemas: Record<string, unknown>
  operations: OperationsExamples
}
