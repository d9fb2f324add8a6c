import type { TSchema } from '@sinclair/typebox'
import { errorBody, notFound, validationFailed, type ErrorBody, type FieldError } from '../../errors.js'
import { PagingQuery, type Paging } from '../../schemas/common.js'
import { API_SCHEMAS } from '../../schemas/index.js'
import type { ExampleRequest, ResponseExample } from './types.js'

type Json = Record<string, unknown>
const SCHEMAS = new Map(API_SCHEMAS.map((s) => [s.$id as string, s]))

/** The value as the response schema serialises it: properties the schema does not name are dropped. */
export function served (schema: TSchema | string, value: unknown): unknown {
  const s = (typeof schema === 'string' ? SCHEMAS.get(schema) : schema) as Json | undefined
  if (s === undefined) throw new Error(`no schema ${String(schema)}`)
  if (typeof s.$ref === 'string') return served(s.$ref, value)
  if (Array.isArray(value)) return s.items === undefined ? value : value.map((v) => served(s.items as TSchema, v))
  if (s.properties !== undefined && typeof value === 'object' && value !== null) {
    const out: Json = {}
    for (const [k, p] of Object.entries(s.properties as Record<string, TSchema>)) {
      const v = (value as Json)[k]
      if (v !== undefined) out[k] = served(p, v)
    }
    return out
  }
  return value
}

/** The paging of a query string, with the defaults of the routes' schema. */
export function paged (query: string): Paging {
  const q = new URLSearchParams(query)
  const { page, size } = PagingQuery.properties
  return { page: Number(q.get('page') ?? page.default), size: Number(q.get('size') ?? size.default) }
}

const pathOf = (url: string): string => url.split('?')[0]

/**
 * The answers every operation documents, worded as the app words them (test/docs.test.ts replays each
 * example against the app, so a wording that drifts fails there).
 */
export function responseKit (o: { partnerId: string, strangerAgent: string, bodyLimit: number, timestamp: string }) {
  const { partnerId, strangerAgent, bodyLimit, timestamp } = o
  const error = (status: number, message: string, path: string, errors: FieldError[] = []): ErrorBody => ({ ...errorBody(status, message, path, errors), timestamp })
  const notAcceptable = (req: ExampleRequest): ResponseExample =>
    ({ status: 406, name: 'notAcceptable', summary: 'Accept: application/xml', request: { ...req, accept: 'application/xml' }, value: error(406, 'No acceptable representation: the API answers application/json', pathOf(req.url)) })
  const paramError = (url: string, field: string, rejected: unknown, message: string, code: string, summary: string): ResponseExample =>
    ({ status: 400, name: 'invalidParameter', summary, request: { method: 'GET', url }, value: error(400, `${field}: ${message}`, pathOf(url), [{ field, rejectedValue: rejected, defaultMessage: message, code }]) })
  return {
    error,
    notAcceptable,
    paramError,
    ok: (url: string, schemaId: string, value: unknown, summary: string, extra: Partial<ResponseExample> = {}): ResponseExample =>
      ({ status: 200, name: 'ok', summary, request: { method: 'GET', url }, value: served(schemaId, value), ...extra }),
    /** 400 without Agent-Id, 401 without a token, 403 for another partner's agent, 406 for XML. */
    common: (url: string, method: 'GET' | 'POST' = 'GET', body?: unknown): ResponseExample[] => {
      const path = pathOf(url)
      const req = { method, url, ...(body === undefined ? {} : { body }) }
      return [
        { status: 400, name: 'agentIdMissing', summary: 'No Agent-Id header', request: { ...req, agent: null }, value: error(400, "Required request header 'Agent-Id' for method parameter type String is not present", path) },
        { status: 401, name: 'tokenMissing', summary: 'No bearer token', request: { ...req, auth: 'none' }, value: error(401, 'Full authentication is required to access this resource: send Authorization: Bearer <access token>', path) },
        { status: 403, name: 'agentNotBound', summary: `Agent-Id ${strangerAgent} belongs to another partner`, request: { ...req, agent: strangerAgent }, value: error(403, `Agent-Id '${strangerAgent}' is not bound to client '${partnerId}'`, path) },
        notAcceptable(req)
      ]
    },
    sizeError: (url: string): ResponseExample => paramError(`${url}?size=0`, 'size', 0, 'must be greater than or equal to 1', 'Min', 'size=0 (size is 1 to 2000)'),
    bodyError: (url: string, objectName: string, body: unknown, errors: FieldError[], summary: string): ResponseExample =>
      ({ status: 400, name: 'invalidBody', summary, request: { method: 'POST', url, body }, value: error(400, validationFailed(objectName, errors).message, pathOf(url), errors) }),
    notFoundError: (url: string, what: string, id: string, summary: string, method: 'GET' | 'POST' = 'GET', body?: unknown): ResponseExample =>
      ({ status: 404, name: 'notFound', summary, request: { method, url, ...(body === undefined ? {} : { body }) }, value: error(404, notFound(what, id).message, pathOf(url)) }),
    /** 413 for a body over the limit, 415 for a body that is not JSON. */
    bodyProblems: (url: string, body: unknown): ResponseExample[] => [
      {
        status: 413,
        name: 'bodyTooLarge',
        summary: `A body over the limit (${bodyLimit} bytes by default; SANDBOX_BODY_LIMIT)`,
        request: { method: 'POST', url, body: { ...(body as Json), padding: 'X'.repeat(bodyLimit) } },
        value: error(413, `Request body is larger than the limit of ${bodyLimit} bytes`, pathOf(url))
      },
      {
        status: 415,
        name: 'notJson',
        summary: 'A body sent as text/plain',
        request: { method: 'POST', url, body: JSON.stringify(body), contentType: 'text/plain' },
        value: error(415, "Content-Type 'text/plain' is not supported; send application/json", pathOf(url))
      }
    ]
  }
}
