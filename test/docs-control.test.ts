import t from 'tap'
import { DocumentReader, type Json } from './doc-bodies.js'
import { checkAgainstDocs, listen, PARTNER_A, TOKEN_PATH, tokenFor, type Answer } from './helper.js'
import { rawExchange } from './raw-http.js'

/*
 * The control API against its own document (/__sandbox/docs/openapi.json), the way test/docs.test.ts holds
 * the bank's API to its document: every operation the document declares is sent over HTTP as the document
 * describes it (path, query and header examples, the body's example), and its answer must be a declared
 * status whose body keeps to its schema with nothing the schema leaves out (checkAgainstDocs, which every
 * api() call of the suite goes through). Then what the document says is required must be: a required body
 * left out is a 400, each required property left out a 400 naming it, and a body marked optional may be
 * left out in every way a client leaves one out.
 */

const ADMIN = 'operator-secret-0123456789'
const METHODS = ['get', 'put', 'post', 'delete', 'patch']
// the operations that replace the partner's state (or every partner's) go last: the others act on what the scenario made
const REPLACE_STATE = new Set(['resetPartner', 'putSnapshot', 'resetAllPartners'])

interface Operation { method: string, path: string, op: Json }

/** The order of the walk: changes, then reads, then deletions (a member before its collection), then the resets. */
function rank ({ method, op }: Operation): number {
  if (REPLACE_STATE.has(op.operationId)) return 3
  return method === 'DELETE' ? 2 : method === 'GET' ? 1 : 0
}

function walkOrder (doc: Json): Operation[] {
  const ops = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => ({ method: m.toUpperCase(), path, op: item[m] as Json })))
  // a stable sort: within a rank, document order (a guarantee is created before its state is set)
  return ops.map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o) - rank(b.o) || (rank(a.o) === 2 ? b.o.path.split('/').length - a.o.path.split('/').length : 0) || a.i - b.i)
    .map(({ o }) => o)
}

/** Spring's name of a field at a path of keys and indexes: agents[0].seq.customer. */
const fieldName = (path: Array<string | number>): string => path.map((p, i) => typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`).join('')

/** Every required property present in the value, at any depth (the first element of an array), as a path. */
function requiredPaths (reader: DocumentReader, schema: Json, value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const target = reader.target(schema)
  if (Array.isArray(value)) return value.length > 0 && target.items !== undefined ? requiredPaths(reader, target.items, value[0], [...at, 0]) : []
  if (typeof value !== 'object' || value === null || target.properties === undefined) return []
  const out: Array<Array<string | number>> = []
  for (const [name, prop] of Object.entries<Json>(target.properties)) {
    if (!(name in value)) continue
    if ((target.required ?? []).includes(name)) out.push([...at, name])
    out.push(...requiredPaths(reader, prop, (value as Json)[name], [...at, name]))
  }
  return out
}

function without (value: unknown, path: Array<string | number>): unknown {
  const copy = structuredClone(value) as Json
  let at: Json = copy
  for (const key of path.slice(0, -1)) at = at[key]
  delete at[path[path.length - 1]]
  return copy
}

/** The ways a client sends no body: nothing at all, an empty body labelled JSON, an empty body without a type, a JSON null. */
const NO_BODY: Array<{ name: string, headers: string, body: string }> = [
  { name: 'no body', headers: '', body: '' },
  { name: 'Content-Type: application/json and an empty body', headers: 'Content-Type: application/json\r\nContent-Length: 0\r\n', body: '' },
  { name: 'no Content-Type and an empty body', headers: 'Content-Length: 0\r\n', body: '' },
  { name: 'a JSON null', headers: 'Content-Type: application/json\r\nContent-Length: 4\r\n', body: 'null' }
]

t.test('every operation of the control API document, sent over HTTP as it describes, answers a declared status with a body that keeps to its schema; its required bodies and properties are required, its optional bodies optional', async (t) => {
  const { app, base } = await listen(t, { adminToken: ADMIN })
  const port = Number(new URL(base).port)
  const doc = await (await fetch(`${base}/__sandbox/docs/openapi.json`)).json() as Json
  const reader = new DocumentReader(doc)
  let token = await tokenFor(app)
  // POST /__sandbox/tokens/expire refuses every token issued until then: each of its calls is followed by a new one
  const renewAfter = async (op: Json, headers: Record<string, string>): Promise<void> => {
    if (op.operationId !== 'expireTokens') return
    const res = await fetch(`${base}${TOKEN_PATH}`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${PARTNER_A.client}:${PARTNER_A.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
    token = (await res.json() as { access_token: string }).access_token
    headers.authorization = `Bearer ${token}`
  }
  const server = String(doc.servers[0].url)
  const checked = (method: string, answer: Answer, label: string): void => {
    try {
      checkAgainstDocs(app, method, answer)
      t.pass(`${label}: ${answer.statusCode} as the document declares`)
    } catch (err) {
      t.fail(`${label}: ${(err as Error).message}`)
    }
  }
  let walked = 0
  for (const { method, path, op } of walkOrder(doc)) {
    const params: Json[] = op.parameters ?? []
    const example = (p: Json): string => String(p.example)
    const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(example(params.find((p) => p.in === 'path' && p.name === name)!))) +
      (params.some((p) => p.in === 'query') ? `?${new URLSearchParams(params.filter((p) => p.in === 'query').map((p): [string, string] => [String(p.name), example(p)])).toString()}` : '')
    const security = (op.security ?? []).flatMap((s: Json) => Object.keys(s))
    const headers: Record<string, string> = security.includes('adminToken') ? { authorization: `Bearer ${ADMIN}` } : security.length > 0 ? { authorization: `Bearer ${token}` } : {}
    for (const p of params.filter((p) => p.in === 'header')) headers[p.name] = example(p)
    const media = op.requestBody?.content?.['application/json']
    const body = media === undefined ? undefined : reader.bodyExample(media)
    const label = `${method} ${url}`
    const abort = new AbortController()
    const res = await fetch(`${server}${url}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      signal: abort.signal,
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    // a live tail answers for as long as the client listens: its head is the answer
    const text = res.headers.get('content-type')?.startsWith('text/event-stream') === true ? '' : await res.text()
    abort.abort()
    t.ok(res.status >= 200 && res.status < 300, `${label}: a success (${res.status})`, { body: text.slice(0, 400), sent: body })
    checked(method, { statusCode: res.status, headers: Object.fromEntries(res.headers), body: text }, label)
    walked++
    await renewAfter(op, headers)
    if (media === undefined) continue

    const raw = async (extra: string, payload: string): Promise<Answer> => {
      const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')
      const a = await rawExchange(port, `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${head}${extra}Connection: close\r\n\r\n${payload}`, 5000, true)
      await renewAfter(op, headers)
      return { statusCode: a.status, headers: a.headers, body: a.body }
    }
    for (const none of NO_BODY) {
      const answer = await raw(none.headers, none.body)
      if (op.requestBody.required === true) {
        t.equal(answer.statusCode, 400, `${label} with ${none.name}: 400, the body is required`)
        t.equal(answer.headers['x-sandbox-error'], 'SANDBOX_ERR_BODY_MISSING', `${label} with ${none.name}: SANDBOX_ERR_BODY_MISSING`)
      } else {
        t.ok(answer.statusCode >= 200 && answer.statusCode < 300, `${label} with ${none.name}: a success (${answer.statusCode}), the body is optional`, { body: answer.body.slice(0, 300) })
      }
      checked(method, answer, `${label} with ${none.name}`)
    }
    for (const missing of requiredPaths(reader, media.schema, body)) {
      const field = fieldName(missing)
      const payload = JSON.stringify(without(body, missing))
      const answer = await raw(`Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n`, payload)
      t.equal(answer.statusCode, 400, `${label} without ${field}: 400`)
      t.ok((JSON.parse(answer.body).errors as Json[] ?? []).some((e) => e.field === field), `${label} without ${field}: the error names it`, { body: answer.body.slice(0, 300) })
      checked(method, answer, `${label} without ${field}`)
    }
  }
  t.equal(walked, Object.values<Json>(doc.paths).reduce((n, item) => n + METHODS.filter((m) => item[m] !== undefined).length, 0), `all ${walked} operations of the document walked`)
})
