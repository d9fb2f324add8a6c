import { request as httpRequest } from 'node:http'
import t from 'tap'
import { parseFault } from '../src/faults/fault.js'
import { BENEFICIARY_REQUEST, listen, tokenFor } from './helper.js'

/*
 * Magic values (issue 11), tested by walking GET /__sandbox/magic: every value listed is sent to its
 * operation over a real connection and must give the outcome the list states, so that the catalogue and
 * the behaviour cannot drift apart.
 */

interface Magic { value: string, match: string, operation: string, method: string, path: string, field: string, fault?: string, status?: number, description: string }
interface Outcome { status?: number, headers?: Record<string, unknown>, body?: string, error?: string, ms: number }

async function send (base: string, method: string, path: string, headers: Record<string, string>, body?: unknown, giveUpMs = 15000): Promise<Outcome> {
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

/** The request of an operation with the magic value in its field, and the list that counts what it creates. */
function requestFor (m: Magic): { path: string, body: Record<string, unknown>, countPath: string } {
  switch (m.operation) {
    case 'createCustomer':
      return { path: '/api/customers', countPath: '/api/customers?size=1', body: { [m.field]: m.value, defaultCustomer: { entityTypeId: '3', name1: 'MAGIC TRUST', identifyingNumber: 'IT 9/2024', taxNumber: '9001339050' } } }
    case 'createAccount':
      return { path: '/api/accounts', countPath: `/api/accounts?customerId=${CUSTOMER}&size=1`, body: { customerId: CUSTOMER, [m.field]: m.value } }
    case 'createBeneficiary':
      return { path: `/api/customers/${CUSTOMER}/beneficiaries`, countPath: `/api/customers/${CUSTOMER}/beneficiaries?size=1`, body: { ...BENEFICIARY_REQUEST, [m.field]: m.value } }
    case 'createMessage':
      return { path: `/api/customers/${CUSTOMER}/messages`, countPath: `/api/customers/${CUSTOMER}/messages?size=1`, body: { fromDepartment: 'CI', fromPerson: 'CI', [m.field]: m.value } }
  }
  throw new Error(`no request for ${m.operation}`)
}

t.test('the catalogue covers 500, 503, a 10-second delay and after-502 for every creating operation', async (t) => {
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
  t.same(values.filter((v) => v.operation === 'getGuaranteeState').map((v) => v.value).sort(), ['INVALID-', 'NOSTATE-', 'NOTFOUND-', 'VALID-'], 'the guarantee ids join the catalogue')
})

t.test('every magic value of the catalogue gives the outcome it states', async (t) => {
  const { app, base } = await listen(t, { faultHold: 3000 })
  const headers = { authorization: `Bearer ${await tokenFor(app)}`, 'agent-id': '1001' }
  const values = JSON.parse((await send(base, 'GET', '/__sandbox/magic', {})).body!).values as Magic[]
  const total = async (path: string): Promise<number> => JSON.parse((await send(base, 'GET', path, headers)).body!).page.totalElements

  // one at a time per operation (the counts must not interleave), the operations side by side
  const operations = [...new Set(values.map((v) => v.operation))]
  await Promise.all(operations.map(async (operation) => {
    for (const m of values.filter((v) => v.operation === operation)) {
      if (m.operation === 'getGuaranteeState') {
        const res = await send(base, 'GET', `/api/guarantees/${m.value.toLowerCase()}ANY-ID/state`, {})
        t.equal(res.status, m.status, `${m.value}... answers ${m.status ?? ''}`)
        continue
      }
      const fault = parseFault(m.fault!)
      const { path, body, countPath } = requestFor(m)
      const before = await total(countPath)
      const res = await send(base, m.method, path, headers, body, fault.timeout ? 1000 : 15000)
      const label = `${m.operation} ${m.field}=${m.value}`
      if (fault.reset) t.equal(res.error, 'ECONNRESET', `${label}: connection reset`)
      else if (fault.timeout) t.equal(res.error, 'CLIENT_GAVE_UP', `${label}: no answer`)
      else {
        t.equal(res.status, m.status, `${label}: status ${m.status ?? ''}`)
        t.match(String(res.headers?.['sandbox-fault-applied']), new RegExp(`source=magic; field=${m.field}; value=${m.value}$`), `${label}: Sandbox-Fault-Applied`)
        if ((m.status ?? 0) >= 400) t.equal(JSON.parse(res.body!).status, m.status, `${label}: error body`)
      }
      if (fault.latencyMs !== undefined) t.ok(res.ms >= fault.latencyMs - 50, `${label}: waited ${res.ms} ms`)
      const created = fault.after || (fault.status === undefined && !fault.reset && !fault.timeout)
      t.equal(await total(countPath), before + (created ? 1 : 0), `${label}: ${created ? 'created once' : 'nothing created'}`)
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
