import { readFile } from 'node:fs/promises'
import { parse as parseYaml } from 'yaml'

/*
 * The target's own OpenAPI document (springdoc serves it at /v3/api-docs) against the sandbox's: operations,
 * fields, required, enums, formats, compared the way a client is affected. Breaking: what a client written
 * against the sandbox would trip over on the target (an operation or a response field it lacks, a type that
 * changed, a request field it requires that the sandbox does not, a request value it refuses, a response value
 * the sandbox never gives). The rest is listed as non-breaking.
 */

type Json = Record<string, unknown>

export interface SpecDifference {
  breaking: boolean
  operation: string
  detail: string
  /** Set when a declared divergence (probe "spec") covers it. */
  declared?: { reason: string, expires: string, expired: boolean }
}

interface Field { type: string, format?: string, required: boolean, enum?: string[] }

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

export async function loadSpec (where: string): Promise<Json> {
  const text = /^https?:\/\//.test(where)
    ? await (async () => {
      const res = await fetch(where, { headers: { accept: 'application/json, application/yaml' }, signal: AbortSignal.timeout(15_000) })
      if (res.status !== 200) throw new Error(`--target-spec ${where}: HTTP ${res.status}`)
      return await res.text()
    })()
    : await readFile(where, 'utf8')
  const doc = (text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text)) as Json
  if (typeof doc !== 'object' || doc === null || (doc.openapi === undefined && doc.swagger === undefined)) throw new Error(`--target-spec ${where}: not an OpenAPI or Swagger document`)
  return doc
}

/** A path with its parameters' names dropped: /api/guarantees/{guaranteeID}/state and .../{id}/state agree. */
function normalPath (p: string): string {
  return p.replace(/\{[^}]*\}/g, '{}').replace(/\/$/, '')
}

function resolve (doc: Json, schema: unknown, depth: number): Json {
  let s = (schema ?? {}) as Json
  for (let i = 0; i < 8 && typeof s.$ref === 'string'; i++) {
    const parts = s.$ref.replace(/^#\//, '').split('/')
    s = parts.reduce<unknown>((at, k) => (at as Json | undefined)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Json ?? {}
  }
  if (Array.isArray(s.allOf) && depth < 8) {
    const merged: Json = { ...s, properties: {}, required: [] }
    for (const part of s.allOf) {
      const r = resolve(doc, part, depth + 1)
      Object.assign(merged.properties as Json, r.properties ?? {})
      ;(merged.required as string[]).push(...((r.required ?? []) as string[]))
      for (const k of ['type', 'format', 'enum', 'items']) if (r[k] !== undefined && merged[k] === undefined) merged[k] = r[k]
    }
    return merged
  }
  return s
}

function typeOf (s: Json): string {
  const t = Array.isArray(s.type) ? s.type.filter((x) => x !== 'null')[0] : s.type
  if (t !== undefined) return String(t)
  if (s.properties !== undefined) return 'object'
  return 'any'
}

/** Every field of a schema by path (items of arrays as "[]"), with its type, format, enum and requiredness. */
function flatten (doc: Json, schema: unknown, prefix: string, required: boolean, out: Map<string, Field>, depth = 0): void {
  const s = resolve(doc, schema, depth)
  const type = typeOf(s)
  if (prefix !== '') out.set(prefix, { type, format: s.format as string | undefined, required, enum: Array.isArray(s.enum) ? s.enum.map(String) : undefined })
  if (depth > 8) return
  if (type === 'array') flatten(doc, s.items, `${prefix}[]`, true, out, depth + 1)
  const req = new Set((s.required ?? []) as string[])
  for (const [k, v] of Object.entries((s.properties ?? {}) as Json)) flatten(doc, v, prefix === '' ? k : `${prefix}.${k}`, req.has(k), out, depth + 1)
}

interface Operation { request: Map<string, Field>, response: Map<string, Field> }

function operations (doc: Json): Map<string, Operation> {
  const out = new Map<string, Operation>()
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined
      if (op === undefined) continue
      const request = new Map<string, Field>()
      const response = new Map<string, Field>()
      const body = ((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined
      const swaggerBody = ((op.parameters ?? []) as Json[]).find((p) => p.in === 'body')
      flatten(doc, body?.schema ?? swaggerBody?.schema, '', true, request)
      const ok = ((op.responses ?? {}) as Record<string, Json>)['200'] ?? {}
      const okContent = (ok.content as Json | undefined)?.['application/json'] as Json | undefined ?? Object.values((ok.content ?? {}) as Json)[0] as Json | undefined
      flatten(doc, okContent?.schema ?? ok.schema, '', true, response)
      out.set(`${method.toUpperCase()} ${normalPath(path)}`, { request, response })
    }
  }
  return out
}

function fieldDifferences (operation: string, where: 'request' | 'response', sandbox: Map<string, Field>, target: Map<string, Field>, out: SpecDifference[]): void {
  const add = (breaking: boolean, detail: string): void => { out.push({ breaking, operation, detail: `${where} ${detail}` }) }
  for (const [path, s] of sandbox) {
    const t = target.get(path)
    if (t === undefined) {
      add(where === 'response', `field ${path}: only in the sandbox's document`)
      continue
    }
    if (s.type !== t.type && s.type !== 'any' && t.type !== 'any') add(true, `field ${path}: type ${s.type} in the sandbox's, ${t.type} in the target's`)
    if ((s.format ?? '') !== (t.format ?? '')) add(false, `field ${path}: format ${s.format ?? '(none)'} in the sandbox's, ${t.format ?? '(none)'} in the target's`)
    if (where === 'request' && t.required && !s.required) add(true, `field ${path}: required by the target, optional in the sandbox`)
    if (where === 'request' && s.required && !t.required) add(false, `field ${path}: required by the sandbox, optional in the target`)
    if (where === 'response' && s.required && !t.required) add(true, `field ${path}: always present in the sandbox's, optional in the target's`)
    if (s.enum !== undefined || t.enum !== undefined) {
      const onlySandbox = (s.enum ?? []).filter((v) => t.enum !== undefined && !t.enum.includes(v))
      const onlyTarget = (t.enum ?? []).filter((v) => s.enum !== undefined && !s.enum.includes(v))
      if (onlySandbox.length > 0) add(where === 'request', `field ${path}: enum values ${onlySandbox.join(', ')} only in the sandbox's`)
      if (onlyTarget.length > 0) add(where === 'response', `field ${path}: enum values ${onlyTarget.join(', ')} only in the target's`)
    }
  }
  for (const [path, t] of target) {
    if (sandbox.has(path)) continue
    add(where === 'request' && t.required, `field ${path}: only in the target's document${t.required ? ' (required)' : ''}`)
  }
}

export function diffSpecs (sandbox: Json, target: Json): SpecDifference[] {
  const out: SpecDifference[] = []
  const s = operations(sandbox)
  const t = operations(target)
  for (const [name, op] of s) {
    const other = t.get(name)
    if (other === undefined) {
      out.push({ breaking: true, operation: name, detail: "only in the sandbox's document" })
      continue
    }
    fieldDifferences(name, 'request', op.request, other.request, out)
    fieldDifferences(name, 'response', op.response, other.response, out)
  }
  for (const name of t.keys()) if (!s.has(name)) out.push({ breaking: false, operation: name, detail: "only in the target's document" })
  return out.sort((a, b) => Number(b.breaking) - Number(a.breaking))
}
