import type { FastifyInstance } from 'fastify'

/*
 * The operations of the two published documents (the bank's API and the control API), as the fuzzer
 * needs them: method, path, parameters with their schemas and examples, the body schema (references
 * resolved) and a valid body to start from (the document's first example).
 */

export type Json = Record<string, any>

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  required: boolean
  schema: Json
  example?: unknown
}

export interface Operation {
  key: string
  method: string
  path: string
  parameters: Parameter[]
  body?: { schema: Json, required: boolean, example: unknown }
  /** needs a bearer token of a partner (else the operator token, or none for spec 4.13) */
  security: 'partner' | 'admin' | 'none'
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** The schema with every local $ref replaced by what it points to (the documents have no cycles). */
export function resolve (doc: Json, node: unknown, depth = 0): any {
  if (depth > 50 || typeof node !== 'object' || node === null) return node
  if (Array.isArray(node)) return node.map((n) => resolve(doc, n, depth + 1))
  const o = node as Json
  if (typeof o.$ref === 'string' && o.$ref.startsWith('#/')) {
    const target = o.$ref.slice(2).split('/').reduce((at: Json, k: string) => at?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
    return resolve(doc, target, depth + 1)
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, k === 'example' || k === 'examples' ? v : resolve(doc, v, depth + 1)]))
}

function securityOf (op: Json): Operation['security'] {
  const names = (op.security ?? []).flatMap((s: Json) => Object.keys(s))
  if (names.includes('adminToken')) return 'admin'
  return names.length === 0 ? 'none' : 'partner'
}

export function operationsOf (doc: Json): Operation[] {
  const out: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined
      if (op === undefined) continue
      // a live tail (server-sent events) answers for as long as the client listens: no request of its ends
      if (op.responses?.['200']?.content?.['text/event-stream'] !== undefined) continue
      const parameters = (op.parameters ?? []).map((p: Json) => ({ name: p.name, in: p.in, required: p.required === true, schema: resolve(doc, p.schema ?? {}), example: p.example ?? p.schema?.default }))
      const media = op.requestBody?.content?.['application/json']
      const examples = Object.values(media?.examples ?? {}) as Json[]
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters,
        body: media === undefined ? undefined : { schema: resolve(doc, media.schema), required: op.requestBody.required === true, example: examples[0]?.value ?? {} },
        security: securityOf(op)
      })
    }
  }
  return out
}

/** Both published documents, fetched the way a partner fetches them. */
export async function publishedOperations (app: FastifyInstance): Promise<Operation[]> {
  const bank = (await app.inject({ url: '/api/docs/apidocs/openapi.json' })).json() as Json
  const sandbox = (await app.inject({ url: '/__sandbox/docs/openapi.json' })).json() as Json
  return [...operationsOf(bank), ...operationsOf(sandbox)]
}

/** A value the parameter accepts: its example, its default, or one made from its schema. */
export function validParameter (p: Parameter): string {
  if (p.example !== undefined) return String(p.example)
  if (p.schema.enum !== undefined) return String(p.schema.enum[0])
  if (p.schema.type === 'integer' || p.schema.type === 'number') return String(p.schema.minimum ?? 0)
  if (p.name === 'agentId') return '1001'
  return /0-9/.test(String(p.schema.pattern ?? '')) ? '1001' : 'VALID-1'
}
