import { request as httpRequest } from 'node:http'
import t from 'tap'
import { parseFault } from '../src/faults/fault.js'
import { BENEFICIARY_REQUEST, listen, tokenFor } from './helper.js'

/*
 * Magic values (issue 11), tested by walking GET /__sandbox/magic: every value listed is sent to its
 * operation over a real connection and must give the outcome the list states, so that the catalogue and
 * the behaviour cannot drift apart.
 */

interface Magic { value: string, match: string, operation: string, method: string, path: string, field: string, fault?: string, outcome: Outcome, description: string }
interface Outcome { connection: 'answered' | 'reset' | 'held', status?: number, error?: string, headers?: Record<string, string>, delayMs?: number, body?: unknown, created?: boolean }
interface Answer { status?: number, headers?: Record<string, unknown>, body?: string, error?: string, ms: number }
type Json = Record<string, any>

async function send (base: string, method: string, path: string, headers: Record<string, string>, body?: unknown, giveUpMs = 15000): Promise<Answer> {
  const started = Date.now()
  return await new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = httpRequest(`${base}${path}`, { method, agent: false, headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { text += c })
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text, ms: Date.now() - started }))
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, ms: Date.now() - started }))
    req.setTimeout(giveUpMs, () => { req.destroy(); resolve({ error: 'CLIENT_GAVE_UP', ms: Date.now() - started }) })
    req.end(payload)
  })
}

const CUSTOMER = '1001100000001'

/**
 * The request an entry describes, as a tool builds it from the bank's document: the operation named by its
 * operationId, its path parameters' examples, its first documented body, and the value in the entry's field
 * (a prefix followed by more characters, in lower case: any case matches).
 */
function requestFor (doc: Json, m: Magic): { path: string, body?: Json } {
  const op = doc.paths[m.path][m.method.toLowerCase()] as Json
  if (op.operationId !== m.operation) throw new Error(`${m.method} ${m.path} is ${String(op.operationId)}, not ${m.operation}`)
  const valueOf = (name: string): string => name === m.field ? (m.match === 'prefix' ? `${m.value.toLowerCase()}any-id` : m.value) : String(op.parameters.find((p: Json) => p.name === name).example)
  const path = m.path.replace(/\{(\w+)\}/g, (_s, name: string) => encodeURIComponent(valueOf(name)))
  const example = Object.values<Json>(op.requestBody?.content['application/json'].examples ?? {})[0]?.value
  return { path, body: example === undefined ? undefined : { ...example, [m.field]: m.value } }
}

t.test('the catalogue covers 500, 503, a 10-second delay and after-502 for every creating operation, and the four guarantee prefixes', async (t) => {
  const { base } = await listen(t)
  const res = await send(base, 'GET', '/__sandbox/magic', {})
  t.equal(res.status, 200, 'public: no token needed')
  const values = JSON.parse(res.body!).values as Magic[]
  for (const operation of ['createCustomer', 'createAccount', 'createBeneficiary', 'createMessage']) {
    const faults = values.filter((v) => v.operation === operation).map((v) => parseFault(v.fault!))
    t.ok(faults.some((f) => f.status === 500 && !f.after), `${operation}: 500`)
    t.ok(faults.some((f) => f.status === 503 && !f.after), `${operation}: 503`)
    t.ok(faults.some((f) => (f.latencyMs ?? 0) >= 10000 && f.status === undefined), `${operation}: 10 s delay`)
    t.ok(faults.some((f) => f.after && f.status === 502), `${operation}: after, status=502`)
  }
  t.same(values.filter((v) => v.operation === 'getGuaranteeState').map((v) => [v.value, v.outcome]), [
    ['VALID-', { connection: 'answered', status: 200, body: { state: 'VALID' } }],
    ['INVALID-', { connection: 'answered', status: 200, body: { state: 'INVALID' } }],
    ['NOSTATE-', { connection: 'answered', status: 200, body: {} }],
    ['NOTFOUND-', { connection: 'answered', status: 404, error: 'SANDBOX_ERR_NOT_FOUND' }]
  ], 'the guarantee ids join the catalogue, each outcome with the state it answers')
})

t.test('no two values of an operation have the same outcome: a tool can tell every one from the others by its fields', async (t) => {
  const { base } = await listen(t)
  const values = JSON.parse((await send(base, 'GET', '/__sandbox/magic', {})).body!).values as Magic[]
  for (const operation of new Set(values.map((v) => v.operation))) {
    const outcomes = values.filter((v) => v.operation === operation).map((v) => JSON.stringify(v.outcome))
    t.equal(new Set(outcomes).size, outcomes.length, `${operation}: ${outcomes.length} outcomes, all different`)
  }
  const doc = (await (await fetch(`${base}/__sandbox/docs/openapi.json`)).json()) as Json
  t.ok(doc.components.schemas.SandboxMagicValue.required.includes('outcome'), 'the document requires the outcome of every value')
  t.same(Object.keys(doc.components.schemas.SandboxMagicOutcome.properties), ['connection', 'status', 'error', 'headers', 'delayMs', 'body', 'created'], 'and declares its fields')
})

t.test('every value of the catalogue, sent in the request it describes over a real connection, gets its machine-readable outcome', async (t) => {
  const { app, base } = await listen(t, { faultHold: 3000 })
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  const values = JSON.parse((await send(base, 'GET', '/__sandbox/magic', {})).body!).values as Magic[]
  const doc = (await (await fetch(`${base}/api/docs/apidocs/openapi.json`)).json()) as Json
  // what a creating operation creates shows in the list at its path, narrowed by the body's fields the list
  // takes as query parameters (an account's customerId: the customers created side by side have accounts too)
  const total = async (m: Magic, path: string, body?: Json): Promise<number> => {
    const query = (doc.paths[m.path].get.parameters as Json[]).filter((p) => p.in === 'query' && body?.[p.name] !== undefined).map((p) => `&${String(p.name)}=${encodeURIComponent(String(body![p.name]))}`)
    return JSON.parse((await send(base, 'GET', `${path}?size=1${query.join('')}`, headers)).body!).page.totalElements
  }

  // one at a time per operation (the counts must not interleave), the operations side by side
  const operations = [...new Set(values.map((v) => v.operation))]
  await Promise.all(operations.map(async (operation) => {
    for (const m of values.filter((v) => v.operation === operation)) {
      const { outcome } = m
      const { path, body } = requestFor(doc, m)
      const label = `${m.method} ${path} ${m.field}=${m.value}`
      const before = outcome.created === undefined ? 0 : await total(m, path, body)
      const res = await send(base, m.method, path, m.operation === 'getGuaranteeState' ? {} : headers, body, outcome.connection === 'held' ? 1000 : 15000)
      if (outcome.connection === 'reset') t.equal(res.error, 'ECONNRESET', `${label}: connection reset`)
      else if (outcome.connection === 'held') t.equal(res.error, 'CLIENT_GAVE_UP', `${label}: no answer`)
      else {
        t.equal(res.status, outcome.status, `${label}: status ${outcome.status ?? ''}`)
        for (const [name, value] of Object.entries(outcome.headers ?? {})) t.equal(res.headers?.[name], value, `${label}: ${name}: ${value}`)
        if (outcome.error !== undefined) {
          t.equal(res.headers?.['x-sandbox-error'], outcome.error, `${label}: X-Sandbox-Error ${outcome.error}`)
          t.equal(JSON.parse(res.body!).status, outcome.status, `${label}: the error body of ${outcome.status ?? ''}`)
        }
        if (outcome.body !== undefined) t.same(JSON.parse(res.body!), outcome.body, `${label}: body ${JSON.stringify(outcome.body)}`)
        if (outcome.headers?.['sandbox-fault-applied'] === undefined) t.equal(res.headers?.['sandbox-fault-applied'], undefined, `${label}: no fault applied`)
      }
      if (outcome.delayMs !== undefined) t.ok(res.ms >= outcome.delayMs - 50, `${label}: waited ${res.ms} ms`)
      if (outcome.created !== undefined) t.equal(await total(m, path, body), before + (outcome.created ? 1 : 0), `${label}: ${outcome.created ? 'created once' : 'nothing created'}`)
    }
  }))
})

t.test('a magic value stands only in its own field and as the exact value', async (t) => {
  const { app, base } = await listen(t)
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  const other = await send(base, 'POST', `/api/customers/${CUSTOMER}/beneficiaries`, headers, { ...BENEFICIARY_REQUEST, clientReference: 'SANDBOX-FAULT-500' })
  t.equal(other.status, 200, 'another field of the operation ignores it')
  const near = await send(base, 'POST', `/api/customers/${CUSTOMER}/messages`, headers, { message: 'SANDBOX-FAULT-500 PLEASE', fromDepartment: 'CI', fromPerson: 'CI' })
  t.equal(near.status, 200, 'a longer text is no magic value')
  const unknown = await send(base, 'POST', '/api/accounts', headers, { customerId: CUSTOMER, productCode: 'SANDBOX-NOTHING' })
  t.equal(unknown.status, 400, 'an unknown SANDBOX- product code is still an unknown product')
})

t.test('a request with a magic value that fails validation gets its 400, not the magic outcome', async (t) => {
  const { app, base } = await listen(t)
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  const res = await send(base, 'POST', `/api/customers/${CUSTOMER}/messages`, headers, { message: 'SANDBOX-AFTER-502', fromDepartment: 'CI' })
  t.equal(res.status, 400, 'fromPerson is missing')
  t.equal(res.headers?.['sandbox-fault-applied'], undefined, 'no fault applied')
})
