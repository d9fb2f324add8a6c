import type { SchemaCheck } from './schema-check.js'
import { jsonType, shapeDifferences, shapeOf } from './shape.js'
import type { Answer, Aspect, Probe } from './types.js'

/*
 * One probe's two answers, aspect by aspect (docs/parity.md "What is compared"). Values are never compared
 * where two implementations may rightly differ (ids, timestamps, messages, totals); codes, names, types and
 * the page object's arithmetic are.
 */

type Json = Record<string, unknown>

function isJson (v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The document's path template a concrete path matches (literal segments first: /api/accounts/public). */
export function templateOf (paths: string[], path: string): string | undefined {
  const segments = path.split('/')
  const candidates = paths.filter((p) => {
    const parts = p.split('/')
    return parts.length === segments.length && parts.every((part, i) => part.startsWith('{') || part === segments[i])
  })
  const params = (p: string): number => p.split('{').length
  return candidates.sort((a, b) => params(a) - params(b))[0]
}

/** The Spring-style error body (or an OAuth error): its fields, its `error`, and errors[]' field and code pairs. */
function errorDifferences (r: Answer, t: Answer): string[] {
  if (r.status < 400 || t.status < 400) return []
  const rb = r.json
  const tb = t.json
  if (!isJson(rb)) return []
  if (!isJson(tb)) return [`the error body is ${t.body === '' ? 'empty' : 'not a JSON object'} on the target`]
  const out: string[] = []
  const rk = Object.keys(rb).sort().join(', ')
  const tk = Object.keys(tb).sort().join(', ')
  if (rk !== tk) out.push(`error body fields: {${rk}} on the reference, {${tk}} on the target`)
  if (typeof rb.error === 'string' && rb.error !== tb.error) out.push(`error: ${JSON.stringify(rb.error)} on the reference, ${JSON.stringify(tb.error)} on the target`)
  if (typeof tb.status === 'number' && tb.status !== t.status) out.push(`the body's status ${tb.status} is not the HTTP status ${t.status}`)
  const pairs = (b: Json): string => (Array.isArray(b.errors) ? b.errors : [])
    .map((e: Json) => `${String(e.field)}:${String(e.code)}`).sort().join(', ')
  if (pairs(rb) !== pairs(tb)) out.push(`field errors: [${pairs(rb)}] on the reference, [${pairs(tb)}] on the target`)
  return out
}

function directives (v: string | undefined): string {
  return (v ?? '').toLowerCase().split(',').map((d) => d.trim()).filter((d) => d !== '').sort().join(', ')
}

/** WWW-Authenticate's scheme and its error parameter (realm names and descriptions are the deployment's). */
function challenge (v: string | undefined): string {
  if (v === undefined) return '(none)'
  const scheme = v.trim().split(/\s+/)[0].toLowerCase()
  const error = /error="([^"]*)"/.exec(v)?.[1]
  return error === undefined ? scheme : `${scheme} error=${error}`
}

/** Headers clients depend on: content type and charset, the challenge, caching, Allow of a 405. */
function headerDifferences (r: Answer, t: Answer): string[] {
  const out: string[] = []
  const ct = (h: Record<string, string>): string => (h['content-type'] ?? '(none)').toLowerCase().replace(/\s+/g, '')
  if (ct(r.headers) !== ct(t.headers)) out.push(`content-type: ${r.headers['content-type'] ?? '(none)'} on the reference, ${t.headers['content-type'] ?? '(none)'} on the target`)
  if (challenge(r.headers['www-authenticate']) !== challenge(t.headers['www-authenticate'])) {
    out.push(`www-authenticate: ${challenge(r.headers['www-authenticate'])} on the reference, ${challenge(t.headers['www-authenticate'])} on the target`)
  }
  for (const name of ['cache-control', 'pragma', 'allow']) {
    if (directives(r.headers[name]) !== directives(t.headers[name])) out.push(`${name}: ${r.headers[name] ?? '(none)'} on the reference, ${t.headers[name] ?? '(none)'} on the target`)
  }
  return out
}

/** spec 2.1: the page object agrees with itself and with the items it came with. */
export function pageProblems (body: unknown): string[] {
  if (!isJson(body) || !isJson(body.page)) return []
  const p = body.page
  const items = Object.entries(body).find(([k, v]) => k !== 'sortResponses' && Array.isArray(v))?.[1] as unknown[] | undefined
  const out: string[] = []
  const need = ['page', 'pageSize', 'numberOfElements', 'totalElements', 'totalPages', 'first', 'last']
  for (const k of need) if (!(k in p)) out.push(`page.${k} is missing`)
  if (out.length > 0) return out
  const [page, size, n, total, pages] = [p.page, p.pageSize, p.numberOfElements, p.totalElements, p.totalPages].map(Number)
  if (items !== undefined && n !== items.length) out.push(`numberOfElements ${n} but ${items.length} items`)
  if (size > 0 && pages !== Math.ceil(total / size)) out.push(`totalPages ${pages} is not ceil(totalElements ${total} / pageSize ${size})`)
  if (p.first !== (page === 0)) out.push(`first is ${String(p.first)} on page ${page}`)
  if (p.last !== (page >= pages - 1)) out.push(`last is ${String(p.last)} on page ${page} of ${pages}`)
  const expected = Math.max(0, Math.min(size, total - page * size))
  if (n !== expected) out.push(`numberOfElements ${n}, expected ${expected} (page ${page}, size ${size}, total ${total})`)
  return out
}

function jwtParts (body: unknown): { header: Json, claims: Json } | undefined {
  if (!isJson(body) || typeof body.access_token !== 'string') return undefined
  const [h, c] = body.access_token.split('.')
  try {
    return { header: JSON.parse(Buffer.from(h, 'base64url').toString()) as Json, claims: JSON.parse(Buffer.from(c, 'base64url').toString()) as Json }
  } catch {
    return undefined
  }
}

/** The access token's claims by name and type, its alg and typ, and the response's token_type. */
function claimDifferences (r: Answer, t: Answer): string[] {
  const rj = jwtParts(r.json)
  const tj = jwtParts(t.json)
  if (rj === undefined) return []
  if (tj === undefined) return ['the access token is not a JWT on the target']
  const out = shapeDifferences(shapeOf(rj.claims), shapeOf(tj.claims)).map((d) => `claim ${d.detail}`)
  for (const k of ['alg', 'typ']) if (rj.header[k] !== tj.header[k]) out.push(`JWT ${k}: ${String(rj.header[k])} on the reference, ${String(tj.header[k])} on the target`)
  const tokenType = (b: unknown): string => String((b as Json).token_type).toLowerCase()
  if (tokenType(r.json) !== tokenType(t.json)) out.push(`token_type: ${tokenType(r.json)} on the reference, ${tokenType(t.json)} on the target`)
  return out
}

export interface Compared { aspect: Aspect, detail: string, reference?: unknown, target?: unknown }

export function compareAnswers (probe: Probe, r: Answer, t: Answer, check: SchemaCheck | undefined, paths: string[], sentPath: string): Compared[] {
  const out: Compared[] = []
  const on = new Set(probe.compare)
  if (on.has('status') && r.status !== t.status) out.push({ aspect: 'status', detail: `status ${r.status} on the reference, ${t.status} on the target`, reference: r.status, target: t.status })
  if (on.has('error')) for (const d of errorDifferences(r, t)) out.push({ aspect: 'error', detail: d })
  if (on.has('schema') && t.json !== undefined && probe.path !== 'token') {
    const template = templateOf(paths, sentPath)
    const problems = template === undefined ? undefined : check?.problems(probe.method, template, t.status, t.json)
    for (const p of (problems ?? []).slice(0, 10)) out.push({ aspect: 'schema', detail: `against the sandbox's schema for ${t.status}: ${p}` })
  }
  if (on.has('fields') && r.json !== undefined && t.json !== undefined && r.status === t.status && r.status < 400) {
    // a field the schema makes optional may be present in one side's data and not in the other's: only a field
    // the schema does not know, a required one missing, or another type is a difference of the implementations
    const template = probe.path === 'token' ? undefined : templateOf(paths, sentPath)
    const optional = (path: string): boolean => template !== undefined && check?.fieldRule(probe.method, template, r.status, path) === 'optional'
    for (const d of shapeDifferences(shapeOf(r.json), shapeOf(t.json))) {
      if (d.kind !== 'type' && optional(d.path)) continue
      out.push({ aspect: 'fields', detail: d.detail })
    }
  } else if (on.has('fields') && r.json !== undefined && t.json === undefined && r.status === t.status && r.status < 400) {
    out.push({ aspect: 'fields', detail: `a JSON ${jsonType(r.json)} on the reference, ${t.body === '' ? 'no body' : 'no JSON'} on the target` })
  }
  if (on.has('headers')) for (const d of headerDifferences(r, t)) out.push({ aspect: 'headers', detail: d })
  if (on.has('page') && r.status === t.status) {
    for (const d of pageProblems(t.json)) out.push({ aspect: 'page', detail: `target: ${d}` })
    for (const d of pageProblems(r.json)) out.push({ aspect: 'page', detail: `reference: ${d}` })
  }
  if (on.has('claims') && r.status === 200 && t.status === 200) for (const d of claimDifferences(r, t)) out.push({ aspect: 'claims', detail: d })
  return out
}
