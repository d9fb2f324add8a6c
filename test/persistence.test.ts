import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { logGenerations, readPartnerFiles } from '../src/store/persistence.js'
import { serialise } from '../src/store/serialise.js'
import type { PartnerSnapshot } from '../src/store/records.js'
import { api, build, tokenFor, PARTNER_B } from './helper.js'

/** A data dir of its own for one test, removed when the test ends. */
function dataDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const fileOf = (dir: string, partnerId: string): string => join(dir, 'partners', `${partnerId}.json`)
const readPartner = (dir: string, partnerId: string): PartnerSnapshot => JSON.parse(readFileSync(fileOf(dir, partnerId), 'utf8'))
const bytesOf = (app: FastifyInstance, partnerId: string): string => serialise(app.world.partner(partnerId)!.snapshot())

/** A partner's data as its files hold it (snapshot + logs replayed), read without changing them. */
async function onDisk (dir: string, partnerId: string): Promise<unknown> {
  const partners = join(dir, 'partners')
  return (await readPartnerFiles(partners, partnerId, logGenerations(readdirSync(partners)).get(partnerId) ?? [])).data
}
/** The bytes of all of a partner's files (a quick "is it written down" check). */
function filesText (dir: string, partnerId: string): string {
  const partners = join(dir, 'partners')
  return readdirSync(partners).filter((f) => f.startsWith(`${partnerId}.`)).map((f) => readFileSync(join(partners, f), 'utf8')).join('\n')
}
const jsonOf = (app: FastifyInstance, partnerId: string): unknown => JSON.parse(bytesOf(app, partnerId))

let n = 0
function customerBody (): Record<string, unknown> {
  n += 1
  return {
    customerReference: `PERSIST-${n}`,
    defaultCustomer: { entityTypeId: '5', name1: `DURABLE ${n} (PTY) LTD`, identifyingNumber: '2010/123456/07', taxNumber: '9001234567' }
  }
}

/** Counts the log appends of each partner (one per batch): every file the store has opened. */
function countWrites (app: FastifyInstance): Map<string, number> {
  const counts = new Map<string, number>()
  const files = (app.world.backend as unknown as { persistence: { files: Map<string, { append: (json: string) => Promise<void> }> } }).persistence.files
  for (const [id, file] of files) {
    const append = file.append.bind(file)
    counts.set(id, 0)
    file.append = async (json) => {
      counts.set(id, counts.get(id)! + 1)
      await append(json)
    }
  }
  return counts
}

t.test('with a data dir, everything created survives closing and rebuilding the app', async (t) => {
  const dir = dataDir(t)
  const first = await build(t, { dataDir: dir })
  const customer = await api(first, { url: '/api/customers', body: customerBody() })
  t.equal(customer.statusCode, 200)
  const id = customer.json().customerId
  t.equal((await api(first, { url: `/api/customers/${id}/messages`, body: { message: 'KEEP ME', fromDepartment: 'X', fromPerson: 'Y' } })).statusCode, 200)
  const b = await tokenFor(first, PARTNER_B)
  t.equal((await api(first, { url: '/api/customers', body: customerBody(), agent: '2001', token: b })).statusCode, 200)
  const fresh = (await api(first, { url: '/__sandbox/agents', body: { name: 'CI RUN 7' }, agent: null })).json().agentId
  t.equal((await api(first, { url: '/api/customers', body: customerBody(), agent: fresh })).statusCode, 200)
  const guarantee = (await api(first, { url: '/__sandbox/guarantees', body: { state: 'INVALID' }, agent: null })).json().guaranteeId
  await api(first, { url: '/__sandbox/agents/1002/reset', body: { scenario: 'edge-cases', seed: 11 }, agent: null })
  const a = bytesOf(first, 'partner-a')
  const bb = bytesOf(first, 'partner-b')
  await first.close()

  const second = await build(t, { dataDir: dir })
  t.ok(bytesOf(second, 'partner-a') === a, 'partner-a byte-identical after the restart')
  t.ok(bytesOf(second, 'partner-b') === bb, 'partner-b byte-identical after the restart')
  t.equal((await api(second, { url: `/api/customers/${id}` })).json().customerReference, customer.json().customerReference)
  t.equal((await api(second, { url: `/api/customers/${id}/messages` })).json().messages[0].message, 'KEEP ME')
  t.equal((await api(second, { url: '/api/customers', agent: fresh })).statusCode, 200, 'the fresh agent is back, and a token works for it')
  t.same((await api(second, { url: `/api/guarantees/${guarantee}/state`, token: null, agent: null })).json(), { state: 'INVALID' })
  t.match(app2State(await api(second, { url: '/__sandbox/state', agent: null })), { 1002: 'edge-cases' })
  // a new create continues the sequences instead of reusing an id
  const next = await api(second, { url: '/api/customers', body: customerBody() })
  t.not(next.json().customerId, id)
  t.equal(second.world.partner('partner-a')!.agents.get('1001')!.customers.filter((c) => c.customerId === next.json().customerId).length, 1)

  // a start scenario given on a later start does not replace the data of the data dir
  await second.close()
  const third = await build(t, { dataDir: dir, scenario: 'empty' })
  t.equal((await api(third, { url: `/api/customers/${id}` })).statusCode, 200, 'the data dir wins over SANDBOX_SCENARIO')
})

t.test('without a configured key, the signing key made at the first start is kept in the data dir (owner-only) and read back at the next', async (t) => {
  const dir = dataDir(t)
  const first = await build(t, { dataDir: dir, signingKey: undefined })
  const token = await tokenFor(first)
  await first.close()
  const file = join(dir, 'keys', 'signing-key.json')
  t.equal(statSync(file).mode & 0o777, 0o600)
  t.match(JSON.parse(readFileSync(file, 'utf8')), { kty: 'RSA', d: String, kid: String })
  const second = await build(t, { dataDir: dir, signingKey: undefined })
  t.equal((await api(second, { url: '/api/banks', token })).statusCode, 200, 'a token of the first start is good after the restart')
})

function app2State (res: { json: () => { agents: Array<{ agentId: string, scenario: string }> } }): Record<string, string> {
  return Object.fromEntries(res.json().agents.map((a) => [a.agentId, a.scenario]))
}

t.test('the data dir holds one valid JSON file per partner, and none is left half-written', async (t) => {
  const dir = dataDir(t)
  const app = await build(t, { dataDir: dir, adminToken: 'operator-secret-0123456789' })
  t.same(readdirSync(join(dir, 'partners')).sort(), ['partner-a.json', 'partner-b.json'], 'one file per partner from the first start')
  for (const id of ['partner-a', 'partner-b']) {
    const file = readPartner(dir, id)
    t.match(file, { format: 1, id, scenario: 'default', seed: 4100 })
    t.same(await onDisk(dir, id), jsonOf(app, id), `${id}.json holds exactly the partner's data`)
  }
  t.equal(statSync(join(dir, 'partners')).mode & 0o777, 0o700, 'the directory is private to the owner')
  t.equal(statSync(fileOf(dir, 'partner-a')).mode & 0o777, 0o600, 'and so are the files (they hold client secrets)')
  const reg = await api(app, { url: '/__sandbox/admin/partners', body: { clientId: 'partner-c', scenario: 'empty' }, token: 'operator-secret-0123456789', agent: null })
  t.equal(reg.statusCode, 200)
  t.same(readdirSync(join(dir, 'partners')).sort(), ['partner-a.json', 'partner-b.json', 'partner-c.json'], 'a registered partner gets its own file')
  t.match(readPartner(dir, 'partner-c'), { id: 'partner-c', registered: true, secretHash: /^\S+$/ })
  t.notMatch(readFileSync(fileOf(dir, 'partner-c'), 'utf8'), reg.json().clientSecret, 'its secret is kept as a hash, never as given')
  await Promise.all(Array.from({ length: 20 }, () => api(app, { url: '/api/customers', body: customerBody() })))
  t.same(readdirSync(join(dir, 'partners')).filter((f) => f.endsWith('.tmp')), [], 'no temporary files after the writes')
  t.same(await onDisk(dir, 'partner-a'), jsonOf(app, 'partner-a'), 'the snapshot with its log holds exactly the partner\'s data')
})

t.test('a partner file that cannot be read stops the start with its path, and nothing is overwritten', async (t) => {
  const dir = dataDir(t)
  const app = await build(t, { dataDir: dir })
  await app.close()
  const good = readFileSync(fileOf(dir, 'partner-a'), 'utf8')
  const other = readFileSync(fileOf(dir, 'partner-b'), 'utf8')
  const cases: Array<[string, string, RegExp]> = [
    ['not JSON', good.slice(0, 1000), /unreadable/],
    ['empty', '', /unreadable/],
    ['JSON but no partner file', '{"hello":"world"}', /not a sandbox partner file \(format undefined/],
    ['another partner\'s file', other, /id partner-b does not match the file name/],
    ['a partner file of another format', JSON.stringify({ ...JSON.parse(good), format: 2 }), /format 2/],
    ['an agent without its records', JSON.stringify({ ...JSON.parse(good), agents: [{ id: '1001' }] }), /lacks its record lists/],
    ['a JSON array', '[]', /not a sandbox partner file/]
  ]
  for (const [label, content, reason] of cases) {
    writeFileSync(fileOf(dir, 'partner-a'), content)
    let error: Error | undefined
    try {
      await build(t, { dataDir: dir })
    } catch (err) {
      error = err as Error
    }
    t.ok(error, `${label}: the start fails`)
    t.match(error?.message, fileOf(dir, 'partner-a'), `${label}: the error names the path (${error?.message.slice(0, 160)})`)
    t.match(error?.message, reason, `${label}: and says what is wrong`)
    t.equal(readFileSync(fileOf(dir, 'partner-a'), 'utf8'), content, `${label}: the file is left as it was`)
    t.equal(readFileSync(fileOf(dir, 'partner-b'), 'utf8'), other, `${label}: the other partner's file too`)
  }
  writeFileSync(fileOf(dir, 'partner-a'), good)
  const again = await build(t, { dataDir: dir })
  const { logFrom: _logFrom, ...data } = JSON.parse(good)
  t.same(jsonOf(again, 'partner-a'), data, 'once fixed, the sandbox starts with the data')
})

t.test('a temporary file left by a crash is removed at start, and a missing partner file is rebuilt from the start scenario', async (t) => {
  const dir = dataDir(t)
  const first = await build(t, { dataDir: dir })
  t.equal((await api(first, { url: '/api/customers', body: customerBody() })).statusCode, 200)
  const a = bytesOf(first, 'partner-a')
  const b = bytesOf(first, 'partner-b')
  await first.close()
  writeFileSync(`${fileOf(dir, 'partner-a')}.4242.tmp`, a.slice(0, 500))
  rmSync(fileOf(dir, 'partner-b'))

  const second = await build(t, { dataDir: dir })
  t.same(readdirSync(join(dir, 'partners')).filter((f) => !f.endsWith('.log')).sort(), ['partner-a.json', 'partner-b.json'], 'the temporary file is gone, partner-b has its file again')
  t.ok(bytesOf(second, 'partner-a') === a, 'partner-a as it was')
  // (its test users' password hashes are salted anew by each start: the same passwords, other bytes)
  const saltless = (bytes: string): string => bytes.replace(/"passwordHash":"[^"]*"/g, '"passwordHash":"*"')
  t.ok(saltless(bytesOf(second, 'partner-b')) === saltless(b), 'partner-b rebuilt exactly as the start scenario gives it')
  t.equal((await api(second, { url: '/api/customers', agent: '2001', token: await tokenFor(second, PARTNER_B) })).statusCode, 200, "partner-b's credentials work")
})

t.test('writes that arrive together are committed together, and a create is answered only after its batch is on disk', async (t) => {
  const dir = dataDir(t)
  const app = await build(t, { dataDir: dir, scenario: 'empty' })
  const token = await tokenFor(app)
  const writes = countWrites(app)
  const seenOnDisk: boolean[] = []
  const creates = Array.from({ length: 200 }, (_v, i) => api(app, { url: '/api/customers', body: customerBody(), agent: i % 2 === 0 ? '1001' : '1002', token }).then((res) => {
    // right after the 200: the customer must already be in the file
    const id = res.statusCode === 200 ? res.json().customerId : 'none'
    seenOnDisk.push(filesText(dir, 'partner-a').includes(`"customerId":"${id}"`))
    return res
  }))
  const answers = await Promise.all(creates)
  t.ok(answers.every((r) => r.statusCode === 200), '200 creates answered')
  t.equal(seenOnDisk.filter(Boolean).length, 200, 'every create was in the file when its answer arrived')
  const count = writes.get('partner-a')!
  t.ok(count >= 1 && count <= 40, `200 concurrent creates took ${count} log appends`)
  t.equal(writes.get('partner-b'), 0, 'the other partner\'s file is not written')
  t.equal((await onDisk(dir, 'partner-a') as PartnerSnapshot).agents.reduce((sum, a) => sum + a.customers.length, 0), 200)

  // one at a time, each create is its own batch
  const before = writes.get('partner-a')!
  for (let i = 0; i < 3; i++) {
    const res = await api(app, { url: '/api/customers', body: customerBody(), token })
    t.ok(filesText(dir, 'partner-a').includes(`"customerId":"${res.json().customerId}"`))
  }
  t.equal(writes.get('partner-a')! - before, 3, 'sequential creates: one log append each')
})

t.test('a create whose batch cannot reach the disk is never answered 200', async (t) => {
  const dir = dataDir(t)
  const app = await build(t, { dataDir: dir, scenario: 'empty' })
  const token = await tokenFor(app)
  rmSync(join(dir, 'partners'), { recursive: true })
  // app.inject, not api(): a 500 is no documented answer
  const res = await app.inject({ method: 'POST', url: '/api/customers', payload: customerBody(), headers: { authorization: `Bearer ${token}`, 'agent-id': '1001' } })
  t.equal(res.statusCode, 500)
  t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_INTERNAL')
  t.notOk(existsSync(fileOf(dir, 'partner-a')))
})
