import { CATALOGUE } from '../errors.js'
import type { DocExamples } from './examples.js'
import { fillOperationBody, fillParameterExamples } from './fill-examples.js'

/*
 * The last touches on the documents @fastify/swagger generates from the route schemas: what JSON Schema
 * says in a way OpenAPI 3.0 or Swagger 2.0 cannot read, the components nothing refers to, the examples
 * (examples.ts) and the response headers every error carries.
 */

type Json = Record<string, any>
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

function isObject (v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Visits every object of a tree (depth first, children before the parent). */
function walk (node: unknown, visit: (o: Json) => void): void {
  if (Array.isArray(node)) {
    for (const n of node) walk(n, visit)
  } else if (isObject(node)) {
    for (const v of Object.values(node)) walk(v, visit)
    visit(node)
  }
}

/** TypeBox writes a union of literals as anyOf of consts; OpenAPI 3.0 and Swagger 2.0 know only enum. */
function literalUnionsToEnums (doc: Json): void {
  walk(doc, (o) => {
    const members = o.anyOf
    if (!Array.isArray(members) || members.length === 0) return
    const literal = (m: Json): unknown[] | undefined =>
      Object.keys(m).every((k) => k === 'type' || k === 'const' || k === 'enum')
        ? ('const' in m ? [m.const] : Array.isArray(m.enum) ? m.enum : undefined)
        : undefined
    const values = members.map((m: Json) => isObject(m) ? literal(m) : undefined)
    const types = new Set(members.map((m: Json) => m.type))
    if (values.some((v: unknown) => v === undefined) || types.size !== 1) return
    delete o.anyOf
    o.type = members[0].type
    o.enum = values.flat()
  })
}

/** Removes the schemas no path refers to (directly or through other schemas). */
function pruneSchemas (doc: Json, container: Json, prefix: string): void {
  const used = new Set<string>()
  const visit = (node: unknown): void => walk(node, (o) => {
    if (typeof o.$ref !== 'string' || !o.$ref.startsWith(prefix)) return
    const name = o.$ref.slice(prefix.length)
    if (used.has(name)) return
    used.add(name)
    visit(container[name])
  })
  visit(doc.paths)
  for (const name of Object.keys(container)) if (!used.has(name)) delete container[name]
}

function operations (doc: Json): Array<{ key: string, op: Json }> {
  const out: Array<{ key: string, op: Json }> = []
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const m of METHODS) if (isObject(item[m])) out.push({ key: `${m.toUpperCase()} ${path}`, op: item[m] })
  }
  return out
}

const CODES_BY_STATUS = new Map<number, string[]>()
for (const [code, { status }] of Object.entries(CATALOGUE)) CODES_BY_STATUS.set(status, [...(CODES_BY_STATUS.get(status) ?? []), code])

function errorHeaders (status: number): Json {
  const headers: Json = {
    'X-Sandbox-Error': {
      description: 'The sandbox error code (the body keeps Spring\'s shape).',
      schema: { type: 'string', enum: CODES_BY_STATUS.get(status) ?? [] }
    }
  }
  if (status === 401) headers['WWW-Authenticate'] = { description: 'Bearer challenge (RFC 6750), with error="invalid_token" when a token was sent.', schema: { type: 'string' } }
  return headers
}

/**
 * A query parameter with a default (page, size) is one the client may leave out: the server fills it in.
 * TypeBox lists it as required (so that the handler's type has it), which would force every client to send it.
 */
function optionalWithDefault (p: Json, defaultValue: unknown): void {
  if (p.in === 'query' && defaultValue !== undefined) p.required = false
}

/**
 * Marks an operation whose request body may be left out: @fastify/swagger writes every body as required
 * (Fastify's own rule), but a control route with config.optionalBody takes none ("no body needed").
 */
export const OPTIONAL_BODY = 'x-sandbox-optional-body'

/** OpenAPI 3.0: enums for literal unions, only the used components, examples, error headers. */
export function finishOpenApi (doc: Json, examples?: DocExamples): Json {
  literalUnionsToEnums(doc)
  pruneSchemas(doc, doc.components.schemas, '#/components/schemas/')
  for (const { key, op } of operations(doc)) {
    if (op[OPTIONAL_BODY] === true && op.requestBody !== undefined) {
      op.requestBody.required = false
      op.requestBody.description ??= 'Optional: no body, an empty one or a JSON null is the same as {}.'
    }
    delete op[OPTIONAL_BODY]
    for (const [status, response] of Object.entries(op.responses as Json)) {
      if (Number(status) >= 400) response.headers = { ...errorHeaders(Number(status)), ...response.headers }
    }
    for (const p of op.parameters ?? []) optionalWithDefault(p, p.schema?.default)
    const ex = examples?.operations[key]
    if (ex === undefined) continue
    const body = op.requestBody?.content?.['application/json']
    if (body !== undefined && ex.bodies !== undefined) {
      body.examples = Object.fromEntries(ex.bodies.map((b) => [b.name, { summary: b.summary, value: b.value }]))
    }
    for (const [status, response] of Object.entries(op.responses as Json)) {
      const media = response.content?.['application/json']
      const list = ex.responses.filter((r) => String(r.status) === status)
      if (media === undefined || list.length === 0) continue
      media.examples = Object.fromEntries(list.map((r) => [r.name, {
        summary: r.summary,
        description: `${r.request.method} ${r.request.url.length > 120 ? `${r.request.url.slice(0, 100)}...` : r.request.url}`,
        value: r.value
      }]))
    }
  }
  if (examples !== undefined) {
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
      if (examples.schemas[name] !== undefined) schema.example = examples.schemas[name]
    }
  }
  const filled = new Set<Json>()
  for (const { key, op } of operations(doc)) {
    fillParameterExamples(op, examples?.operations[key])
    fillOperationBody(op.requestBody?.content?.['application/json']?.schema, examples?.operations[key], doc.components.schemas, filled)
  }
  return doc
}

/** The OAuth 2.0 flows of the OpenAPI 3 scheme, one Swagger 2.0 security definition each (2.0 has one flow per definition). */
export const SWAGGER2_OAUTH = { application: 'sandboxOAuthClientCredentials', accessCode: 'sandboxOAuthAuthorizationCode', password: 'sandboxOAuthPassword' } as const

/** A route's security requirements for Swagger 2.0 (applied before @fastify/swagger reads them). */
export function swagger2Security (security: unknown): unknown {
  if (!Array.isArray(security)) return security
  return security.flatMap((req: Json) => 'sandboxOAuth' in req
    ? Object.values(SWAGGER2_OAUTH).map((name) => ({ [name]: req.sandboxOAuth }))
    : [req])
}

/**
 * Swagger 2.0: what @fastify/swagger leaves in that 2.0 does not allow (siblings of $ref, examples of
 * non-body parameters, deprecated inside schemas), examples (on every body property too), error headers.
 */
export function finishSwagger2 (doc: Json, examples?: DocExamples): Json {
  literalUnionsToEnums(doc)
  walk(doc, (o) => {
    if (typeof o.$ref === 'string') for (const k of Object.keys(o)) if (k !== '$ref') delete o[k]
  })
  walk(doc.definitions, (o) => {
    if (typeof o.deprecated === 'boolean') {
      o['x-deprecated'] = o.deprecated
      delete o.deprecated
    }
  })
  pruneSchemas(doc, doc.definitions, '#/definitions/')
  for (const { key, op } of operations(doc)) {
    const ex = examples?.operations[key]
    for (const p of op.parameters ?? []) {
      for (const k of Object.keys(p)) if (p[k] === undefined) delete p[k]
      if (p.in === 'body') continue
      optionalWithDefault(p, p.default)
      const example = ex?.params?.[p.name] ?? p.example ?? (Array.isArray(p.examples) ? p.examples[0] : undefined)
      delete p.examples
      delete p.example
      if (example !== undefined) p['x-example'] = example
    }
    for (const [status, response] of Object.entries(op.responses as Json)) {
      if (Number(status) >= 400) {
        const headers = errorHeaders(Number(status))
        response.headers = Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, { description: h.description, ...h.schema }]))
      }
      const first = ex?.responses.find((r) => String(r.status) === status)
      if (first !== undefined && response.schema !== undefined) response.examples = { 'application/json': first.value }
    }
  }
  if (examples !== undefined) {
    for (const [name, schema] of Object.entries(doc.definitions as Json)) {
      if (examples.schemas[name] !== undefined) schema.example = examples.schemas[name]
    }
  }
  const filled = new Set<Json>()
  for (const { key, op } of operations(doc)) {
    const body = (op.parameters ?? []).find((p: Json) => p.in === 'body')
    fillOperationBody(body?.schema, examples?.operations[key], doc.definitions, filled)
  }
  return doc
}
