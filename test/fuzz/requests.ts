import fc from 'fast-check'
import { validParameter, type Json, type Operation, type Parameter } from './documents.js'

/*
 * Requests made from the documents' operations and mutated: parameters, headers, bodies, JSON text,
 * nesting, content types, tokens and methods. Each case says whether the fuzzer KNOWS the request is
 * invalid (then no 2xx may answer it) and which strings it put in (they may be echoed back).
 */

export interface Credentials { partner: string, admin: string }

export interface FuzzCase {
  key: string
  mutation: string
  method: string
  url: string
  headers: Record<string, string>
  payload?: string
  /** why the request is certainly invalid, or null when the fuzzer cannot know */
  invalid: string | null
  /** text the fuzzer made up: an answer may echo it (a path, a rejected value) */
  inputs: string[]
}

// values that have broken servers before: traversal, encodings, injections, numbers at the edges, prototype keys
const NASTY = ['', ' ', '../', '..%2f', '%00', '\u0000', '%', '%zz', '{{7*7}}', "' OR 1=1 --", '<script>alert(1)</script>', '__proto__', 'constructor',
  '9'.repeat(40), '-1', '0', '2147483648', '1e309', 'NaN', 'Infinity', '0x10', '#10', ' 5 ', '1.0', 'null', 'true', '[]', '{}', '\t', '😀', 'Ω'.repeat(300), 'a'.repeat(5000)]

export const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(...NASTY),
  fc.integer().map(String),
  fc.double({ noNaN: false }).map(String)
)

const json = fc.oneof(fc.jsonValue({ maxDepth: 3 }), text, fc.constantFrom(null, -1, 0, 2147483648, 1e308, true, [], {}))

const KNOWN_BAD_INTEGERS = ['abc', '1.5', '1e3', '99999999999999999999', 'NaN', '[]']

function isValidJson (s: string): boolean {
  try { JSON.parse(s); return true } catch { return false }
}

/** Why a value certainly breaks a (resolved) property schema, or null when that is not certain. */
export function breaks (schema: Json, value: unknown, required: boolean): string | null {
  if (value === null || value === undefined) return required ? 'a required property is null' : null
  const scalar = ['string', 'integer', 'number', 'boolean'].includes(schema.type)
  if (scalar && typeof value === 'object') return `an ${Array.isArray(value) ? 'array' : 'object'} where a ${schema.type as string} belongs`
  if (schema.type === 'object' && (typeof value !== 'object' || Array.isArray(value))) return 'not an object where one belongs'
  if (schema.type === 'array' && !Array.isArray(value)) return 'not an array where one belongs'
  if (schema.type === 'string' && typeof value === 'string') {
    const length = [...value].length
    if (schema.maxLength !== undefined && length > schema.maxLength) return `longer than ${schema.maxLength as number}`
    if (schema.minLength !== undefined && length < schema.minLength) return `shorter than ${schema.minLength as number}`
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return 'not one of the enum'
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return 'breaks the pattern'
  }
  if ((schema.type === 'integer' || schema.type === 'number') && typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return 'below the minimum'
    if (schema.maximum !== undefined && value > schema.maximum) return 'above the maximum'
  }
  return null
}

function paramBreaks (p: Parameter, value: string): string | null {
  if (p.schema.type === 'integer' && KNOWN_BAD_INTEGERS.includes(value)) return `${p.name} is no integer`
  if (p.name === 'agent-id' && !/^\s*\d+\s*$/.test(value)) return 'Agent-Id is not an agent id'
  if (p.in === 'path' && value !== '' && typeof p.schema.pattern === 'string' && !new RegExp(p.schema.pattern, 'u').test(value)) return `${p.name} breaks the pattern`
  return null
}

/** The operation's request as its document describes it, with valid values. */
export function baseCase (op: Operation, creds: Credentials): FuzzCase {
  const headers: Record<string, string> = {}
  if (op.security === 'partner') headers.authorization = `Bearer ${creds.partner}`
  if (op.security === 'admin') headers.authorization = `Bearer ${creds.admin}`
  const c: FuzzCase = { key: op.key, mutation: 'none', method: op.method, url: '', headers, invalid: null, inputs: [] }
  const values = new Map(op.parameters.map((p) => [p, validParameter(p)]))
  return finish(c, op, values, op.body === undefined ? undefined : JSON.stringify(op.body.example))
}

function finish (c: FuzzCase, op: Operation, values: Map<Parameter, string | undefined>, payload: string | undefined, extraQuery = ''): FuzzCase {
  let path = op.path
  const query: string[] = []
  for (const [p, v] of values) {
    if (v === undefined) continue
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(v))
    if (p.in === 'query') query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(v)}`)
    if (p.in === 'header') c.headers[p.name] = v
  }
  if (extraQuery !== '') query.push(extraQuery)
  c.url = query.length === 0 ? path : `${path}?${query.join('&')}`
  if (payload !== undefined) {
    c.payload = payload
    c.headers['content-type'] ??= 'application/json'
  }
  return c
}

/** Header values Node accepts (visible ASCII and spaces), from any text. */
function headerSafe (s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '').trim()
}

/** Every mutation of one operation's request. */
export function mutatedCase (op: Operation, pathMethods: string[], creds: Credentials): fc.Arbitrary<FuzzCase> {
  const values = (): Map<Parameter, string | undefined> => new Map(op.parameters.map((p) => [p, validParameter(p)]))
  const example = op.body?.example as Json | undefined
  const props = Object.entries((op.body?.schema.properties ?? {}) as Json)
  const required = new Set<string>(op.body?.schema.required ?? [])
  const bodyText = op.body === undefined ? undefined : JSON.stringify(example)
  const make = (mutation: string, change: (c: FuzzCase, v: Map<Parameter, string | undefined>) => { payload?: string | null, query?: string } | undefined): FuzzCase => {
    const base = baseCase(op, creds)
    // the token only: finish() adds the parameters' headers from the values
    const c: FuzzCase = { ...base, mutation, headers: base.headers.authorization === undefined ? {} : { authorization: base.headers.authorization } }
    const v = values()
    const r = change(c, v) ?? {}
    return finish(c, op, v, r.payload === null ? undefined : (r.payload ?? bodyText), r.query ?? '')
  }
  const arbs: Array<fc.Arbitrary<FuzzCase>> = [fc.constant(make('none', () => undefined))]

  if (op.parameters.length > 0) {
    arbs.push(fc.tuple(fc.integer({ min: 0, max: op.parameters.length - 1 }), fc.oneof(text, fc.constantFrom(...KNOWN_BAD_INTEGERS))).map(([i, value]) => make('parameter value', (c, v) => {
      const p = op.parameters[i]
      const sent = p.in === 'header' ? headerSafe(value) : value
      v.set(p, sent)
      c.inputs.push(sent)
      c.invalid = paramBreaks(p, sent)
      return undefined
    })))
    const droppable = op.parameters.filter((p) => p.required && p.in !== 'path')
    if (droppable.length > 0) {
      arbs.push(fc.integer({ min: 0, max: droppable.length - 1 }).map((i) => make('required parameter left out', (c, v) => {
        v.set(droppable[i], undefined)
        c.invalid = `${droppable[i].name} is required`
        return undefined
      })))
    }
  }
  arbs.push(fc.array(fc.tuple(fc.constantFrom('page', 'size', 'customerId', 'name', 'x', '__proto__', 'a[b]', ''), text), { maxLength: 4 }).map((pairs) => make('query noise', (c) => {
    c.inputs.push(...pairs.flat())
    return { query: pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&') }
  })))
  arbs.push(fc.array(fc.tuple(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), text), { maxLength: 4 }).map((pairs) => make('header noise', (c) => {
    for (const [k, v] of pairs) { c.headers[k] = headerSafe(v); c.inputs.push(c.headers[k]) }
    return undefined
  })))
  arbs.push(fc.constantFrom('missing', 'garbage', 'Basic cGFydG5lci1hOnBhcnRuZXItYS1zZWNyZXQ=', 'Bearer a.b.c', 'Bearer ').map((kind) => make(`token ${kind}`, (c) => {
    if (kind === 'missing') delete c.headers.authorization
    else c.headers.authorization = kind === 'garbage' ? 'Bearer not-a-token' : kind
    c.invalid = op.security === 'none' ? null : 'no valid token'
    return undefined
  })))
  const others = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((m) => !pathMethods.includes(m))
  if (others.length > 0) {
    arbs.push(fc.constantFrom(...others).map((m) => make(`method ${m}`, (c) => { c.method = m; c.invalid = `${m} is not an operation of this path`; return undefined })))
  }

  if (op.body !== undefined) {
    arbs.push(fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream').map((type) => make(`content type ${type}`, (c) => {
      c.headers['content-type'] = type
      c.invalid = 'the body is not JSON'
      return undefined
    })))
    arbs.push(fc.oneof(fc.integer({ min: 1, max: Math.max(1, (bodyText ?? '{}').length - 1) }).map((n) => (bodyText ?? '{}').slice(0, n)), fc.string({ maxLength: 40 })).map((s) => make('malformed JSON', (c) => {
      c.inputs.push(s)
      const parses = isValidJson(s)
      c.invalid = !parses ? (s.trim() === '' ? (op.body!.required ? 'no body' : null) : 'not JSON') : null
      return { payload: s }
    })))
    arbs.push(fc.integer({ min: 1001, max: 6000 }).map((depth) => make(`nested ${depth} deep`, (c) => {
      c.invalid = 'nested deeper than 1000 levels'
      return { payload: `{${bodyText!.slice(1, -1)}${bodyText === '{}' ? '' : ','}"deep":${'['.repeat(depth)}${']'.repeat(depth)}}` }
    })))
    arbs.push(fc.constantFrom('[]', '"text"', '42', 'true', 'null', '[{}]').map((s) => make(`body ${s}`, (c) => {
      c.invalid = s === 'null' && !op.body!.required ? null : 'the body is not an object'
      return { payload: s }
    })))
    if (props.length > 0) {
      arbs.push(fc.tuple(fc.integer({ min: 0, max: props.length - 1 }), json).map(([i, value]) => make('body field', (c) => {
        const [name, schema] = props[i]
        const body = { ...example, [name]: value }
        if (typeof value === 'string') c.inputs.push(value)
        c.invalid = breaks(schema as Json, value, required.has(name))
        return { payload: JSON.stringify(body) }
      })))
      arbs.push(fc.tuple(fc.integer({ min: 0, max: props.length - 1 }), fc.nat()).map(([i, extra]) => make('string at its limit', (c) => {
        const [name, schema] = props[i] as [string, Json]
        if (schema.type !== 'string') return undefined
        const over = schema.maxLength !== undefined ? 'A'.repeat(schema.maxLength + 1 + (extra % 3)) : schema.minLength !== undefined ? '' : undefined
        if (over === undefined) return undefined
        c.invalid = breaks(schema, over, required.has(name))
        return { payload: JSON.stringify({ ...example, [name]: over }) }
      })))
    }
    if (required.size > 0) {
      arbs.push(fc.constantFrom(...required).map((name) => make('required field left out', (c) => {
        const body = { ...example }
        delete body[name]
        c.invalid = `${name} is required`
        return { payload: JSON.stringify(body) }
      })))
    }
    arbs.push(fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 3 }).map((extra) => make('unknown properties', (c) => {
      c.inputs.push(...Object.keys(extra))
      return { payload: JSON.stringify({ ...extra, ...example }) }
    })))
  }
  return fc.oneof(...arbs)
}
