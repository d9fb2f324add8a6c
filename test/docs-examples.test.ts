import t from 'tap'
import { VERSIONS } from '../src/api-versions.js'
import { DocumentReader, type Json } from './doc-bodies.js'
import { listen, tokenFor } from './helper.js'

const BANK_DOCUMENTS = ['', ...Object.keys(VERSIONS).map((v) => `/${v}`)]
  .flatMap((prefix) => [`${prefix}/api/docs/apidocs/openapi.json`, `${prefix}/api/docs/apidocs/swagger.json`])
const SANDBOX_DOCUMENT = '/__sandbox/docs/openapi.json'
const METHODS = ['get', 'put', 'post', 'delete', 'patch']

function operationsOf (doc: Json): Array<{ key: string, path: string, op: Json }> {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => ({ key: `${m.toUpperCase()} ${path}`, path, op: item[m] as Json })))
}

/** The schema of an operation's JSON body: OpenAPI 3's requestBody, Swagger 2.0's body parameter. */
const bodyOf = (op: Json): Json | undefined =>
  op.requestBody?.content?.['application/json']?.schema ?? (op.parameters ?? []).find((p: Json) => p.in === 'body')?.schema

/** A parameter's example: OpenAPI 3's example, Swagger 2.0's x-example. */
const parameterExample = (p: Json): unknown => p.example ?? p['x-example']

t.test('both OpenAPI 3 documents: an operationId on every operation, bearerAuth first, and a valid example on every parameter', async (t) => {
  const { base } = await listen(t)
  for (const url of ['/api/docs/apidocs/openapi.json', SANDBOX_DOCUMENT]) {
    const doc = await (await fetch(`${base}${url}`)).json() as Json
    const reader = new DocumentReader(doc)
    const operationIds = new Set<string>()
    for (const { key, op } of operationsOf(doc)) {
      const name = `${url}: ${key}`
      t.type(op.operationId, 'string', `${name}: operationId`)
      t.notOk(operationIds.has(op.operationId), `${name}: operationId ${String(op.operationId)} is unique`)
      operationIds.add(op.operationId)
      const first = op.security?.[0] as Json | undefined
      if (first !== undefined && !('adminToken' in first)) t.same(Object.keys(first), ['bearerAuth'], `${name}: bearerAuth comes first`)
      for (const p of op.parameters ?? []) {
        t.not(p.example, undefined, `${name}: ${String(p.in)} parameter ${String(p.name)} has an example`)
        if (p.example !== undefined) t.equal(reader.problem(p.schema, p.example), undefined, `${name}: the example of ${String(p.name)} (${JSON.stringify(p.example)}) is valid`)
      }
    }
  }
})

t.test('every property of every request body, at any depth, in every served document has an example valid by its schema', async (t) => {
  const { base } = await listen(t)
  for (const url of [...BANK_DOCUMENTS, SANDBOX_DOCUMENT]) {
    const reader = new DocumentReader(await (await fetch(`${base}${url}`)).json() as Json)
    const missing: string[] = []
    const invalid: string[] = []
    let seen = 0
    for (const { key, op } of operationsOf(reader.doc)) {
      const body = bodyOf(op)
      if (body === undefined) continue
      for (const { path, schema } of reader.properties(body)) {
        seen++
        const example = reader.exampleOf(schema)
        if (example === undefined) missing.push(`${key} ${path}`)
        else {
          const problem = reader.problem(schema, example)
          if (problem !== undefined) invalid.push(`${key} ${path} = ${JSON.stringify(example)}: ${problem}`)
        }
      }
    }
    t.ok(seen >= (url === SANDBOX_DOCUMENT ? 150 : 39), `${url}: ${seen} request-body properties`)
    t.same(missing, [], `${url}: every one has an example`)
    t.same(invalid, [], `${url}: every example is valid by its schema`)
  }
})

t.test('the bodies the property examples make pass the API\'s schemas and its own rules: POST each to every document\'s server over HTTP and get 200', async (t) => {
  const { app, base } = await listen(t)
  const token = await tokenFor(app)
  let sent = 0
  for (const url of BANK_DOCUMENTS) {
    const reader = new DocumentReader(await (await fetch(`${base}${url}`)).json() as Json)
    const { doc } = reader
    // where a tool sends the document's requests: OpenAPI 3's server, Swagger 2.0's scheme, host and base path
    const server = doc.servers?.[0]?.url ?? `${String(doc.schemes[0])}://${String(doc.host)}${String(doc.basePath)}`.replace(/\/$/, '')
    for (const { key, path, op } of operationsOf(doc)) {
      const body = bodyOf(op)
      if (body === undefined) continue
      const params: Json[] = op.parameters ?? []
      const target = path.replace(/\{(\w+)\}/g, (_m, name: string) => String(parameterExample(params.find((p) => p.in === 'path' && p.name === name)!)))
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
      for (const p of params.filter((p) => p.in === 'header')) headers[p.name] = String(parameterExample(p))
      for (const made of reader.bodies(body)) {
        const res = await fetch(`${server}${target}`, { method: key.split(' ')[0], headers, body: JSON.stringify(made) })
        const answer = await res.text()
        t.equal(res.status, 200, `${url}: ${key} with ${JSON.stringify(made).slice(0, 160)}`, { answer: answer.slice(0, 600) })
        sent++
      }
    }
  }
  t.equal(sent, BANK_DOCUMENTS.length * 6, `${sent} bodies: each document's 4 bodies, and 2 with a Party made of its property examples`)
})
