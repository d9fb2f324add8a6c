import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { api, build, tokenFor, PARTNER_B } from './helper.js'

const CUSTOMER = {
  customerReference: 'SNAPSHOT TEST',
  defaultCustomer: { entityTypeId: '1', name1: 'SNAPPER', name2: 'SAM', identifyingNumber: '8001015009087', taxNumber: '0001339050' }
}

/** What a partner's tests read of the API: the bytes of the answers that show its data. */
async function reads (app: FastifyInstance): Promise<string[]> {
  const urls = [
    '/api/customers?page=0&size=2000', '/api/customers/1001100000001', '/api/accounts?page=0&size=2000', '/api/accounts/1001200000001',
    '/api/customers/1001100000001/beneficiaries', '/api/customers/1001100000001/messages?size=100'
  ]
  const out: string[] = []
  for (const url of urls) out.push((await api(app, { url })).body)
  out.push((await api(app, { url: '/api/customers', agent: '1002' })).body)
  const state = (await api(app, { url: '/__sandbox/state', agent: null })).json()
  out.push(JSON.stringify(state))
  out.push((await api(app, { url: '/__sandbox/guarantees', agent: null })).body)
  return out
}

async function snapshot (app: FastifyInstance, token?: string): Promise<string> {
  const res = await api(app, { url: '/__sandbox/snapshot', agent: null, token })
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return res.body
}

/** Changes of every kind: records, a fresh agent, a guarantee, fault rules and clock, a scenario switch. */
async function changeEverything (t: Test, app: FastifyInstance): Promise<void> {
  const created = await api(app, { url: '/api/customers', body: CUSTOMER })
  t.equal(created.statusCode, 200)
  t.equal((await api(app, { url: '/api/customers/1001100000001/messages', body: { message: 'CHANGED', fromDepartment: 'X', fromPerson: 'Y' } })).statusCode, 200)
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/agents', agent: null, body: {} })).statusCode, 200)
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/guarantees', agent: null, body: { guaranteeId: 'SNAP-NEW', state: 'VALID' } })).statusCode, 200)
  app.world.partner('partner-a')!.sandbox = { faultRules: [], faultSeq: 7, clock: { offsetMs: 86_400_000 } }
}

t.test('a snapshot carries the whole state with a format version, and passes the published schema', async (t) => {
  const app = await build(t)
  app.world.partner('partner-a')!.sandbox = { faultRules: [], faultSeq: 3, clock: { offsetMs: 0, frozenAt: Date.parse('2026-01-01T00:00:00Z') } }
  const doc = JSON.parse(await snapshot(app))
  t.equal(doc.snapshotFormat, 1)
  t.equal(doc.partnerId, 'partner-a')
  t.same(doc.agents.map((a: { id: string }) => a.id), ['1001', '1002'])
  t.ok(doc.agents[0].customers.some((c: { customerId: string }) => c.customerId === '1001100000001'))
  t.ok(doc.guarantees.some((g: { guaranteeId: string }) => g.guaranteeId === 'GTE-A-0001'))
  t.same(doc.sandbox, { faultRules: [], faultSeq: 3, clock: { offsetMs: 0, frozenAt: Date.parse('2026-01-01T00:00:00Z') } }, 'fault rules and clock')
  t.notMatch(JSON.stringify(doc), 'partner-a-secret', 'no credentials in it')
})

t.test('PUT of a snapshot taken earlier gives byte-identical reads of the API and of the snapshot', async (t) => {
  const app = await build(t)
  const before = await reads(app)
  const doc = await snapshot(app)
  await changeEverything(t, app)
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/reset', agent: null, body: { scenario: 'empty' } })).statusCode, 200)
  t.not((await reads(app)).join('\n'), before.join('\n'), 'the state did change')
  const put = await api(app, { method: 'PUT', url: '/__sandbox/snapshot', agent: null, body: doc, headers: { 'content-type': 'application/json' } })
  t.equal(put.statusCode, 200, put.body)
  t.same(put.json().agents.map((a: { agentId: string }) => a.agentId), ['1001', '1002'], 'the fresh agent made after the snapshot is gone')
  t.equal(await snapshot(app), doc, 'GET /__sandbox/snapshot answers the same bytes')
  const after = await reads(app)
  for (let i = 0; i < before.length; i++) t.equal(after[i], before[i], `read ${i} is byte-identical`)
  t.equal(app.world.partner('partner-a')!.sandbox.faultSeq, 0, 'fault state back as it was')
  t.equal((await api(app, { url: '/api/customers/1001100000001/messages?size=100' })).statusCode, 200)
  const created = await api(app, { url: '/api/customers', body: CUSTOMER })
  t.equal(created.statusCode, 200, 'creates work after a restore, with ids after the restored ones')
})

t.test('a corrupted snapshot is refused with 400 naming the path and the rule, and nothing changes', async (t) => {
  const app = await build(t)
  const doc = JSON.parse(await snapshot(app))
  const put = async (body: unknown) => await api(app, { method: 'PUT', url: '/__sandbox/snapshot', agent: null, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
  const cases: Array<[string, (d: any) => void, string, string]> = [
    ['a number where an id string belongs', (d) => { d.agents[0].customers[0].customerId = 1001100000001 }, 'agents[0].customers[0].customerId', 'typeMismatch'],
    ['a beneficiary name too long for the API', (d) => { d.agents[0].beneficiaries[0].bankName = 'X'.repeat(31) }, 'agents[0].beneficiaries[0].bankName', 'Size'],
    ['an unknown format version', (d) => { d.snapshotFormat = 2 }, 'snapshotFormat', ''],
    ['a beneficiary of a customer the agent does not have', (d) => { d.agents[0].beneficiaries[0].customerId = '1001199999999' }, 'agents[0].beneficiaries[0].customerId', 'KnownCustomer'],
    ['a record id outside the id scheme', (d) => { d.agents[0].accounts[0].id = '2001200000001' }, 'agents[0].accounts[0].id', 'IdScheme'],
    ['an agent of another partner', (d) => { d.agents[1].id = '2001' }, 'agents[1].id', 'AgentOfPartner'],
    ['an invalid South African ID number', (d) => { d.agents[0].customers[0].defaultCustomer.identifyingNumber = '8001015009088' }, 'agents[0].customers[0].defaultCustomer.identifyingNumber', 'SouthAfricanIdNumber'],
    ['an unknown scenario', (d) => { d.scenario = 'nope' }, 'scenario', 'KnownScenario'],
    ['a damaged clock', (d) => { d.sandbox.clock = { offsetMs: 'soon' } }, 'sandbox.clock', ''],
    // (issue 50: every rule costs each of the partner's requests a match, so an upload may not bring in more than
    // POST /__sandbox/faults allows)
    ['more fault rules than a partner may have', (d) => {
      d.sandbox.faultRules = Array.from({ length: 101 }, (_, i) => ({ id: `r${i}`, match: { path: '/**' }, fault: 'status=503', probability: 1, matched: 0, fired: 0, createdAt: '2026-01-01T00:00:00Z' }))
    }, 'sandbox.faultRules', '']
  ]
  const bytes = await snapshot(app)
  for (const [what, damage, field, code] of cases) {
    const copy = JSON.parse(JSON.stringify(doc))
    damage(copy)
    const res = await put(copy)
    t.equal(res.statusCode, 400, what)
    const errors = res.json().errors as Array<{ field: string, code: string }>
    t.ok(errors.some((e) => e.field.startsWith(field) && (code === '' || e.code === code)), `${what}: names ${field}${code === '' ? '' : ` (${code})`}: ${JSON.stringify(errors.slice(0, 3))}`)
    t.equal(await snapshot(app), bytes, `${what}: nothing changed`)
  }
  t.equal((await put({ ...doc, partnerId: 'partner-b' })).json().errors[0].code, 'SamePartner', "another partner's snapshot is refused")
  t.equal((await api(app, { method: 'PUT', url: '/__sandbox/snapshot', agent: null, body: '{"snapshotFormat":', headers: { 'content-type': 'application/json' } })).statusCode, 400, 'not JSON')
})

t.test('PUT /__sandbox/snapshot takes at most SANDBOX_SNAPSHOT_LIMIT bytes (default 4 MiB): 413 in the error shape above, and nothing changes', async (t) => {
  const app = await build(t)
  const doc = await snapshot(app)
  // the default scenario's partner-a: far below the cap
  t.ok(doc.length < 4 * 1024 * 1024 / 20, `${doc.length} bytes`)
  t.equal((await api(app, { method: 'PUT', url: '/__sandbox/snapshot', agent: null, body: doc, headers: { 'content-type': 'application/json' } })).statusCode, 200)
  // the same document padded past the cap with white space (valid JSON): refused before it is parsed
  const padded = doc.replace(/}$/, `${' '.repeat(4 * 1024 * 1024)}}`)
  const big = await api(app, { method: 'PUT', url: '/__sandbox/snapshot', agent: null, body: padded, headers: { 'content-type': 'application/json' } })
  t.equal(big.statusCode, 413)
  t.equal(big.headers['x-sandbox-error'], 'SANDBOX_ERR_BODY_TOO_LARGE')
  t.match(big.json(), { status: 413, error: 'Payload Too Large', path: '/__sandbox/snapshot' })
  t.equal(await snapshot(app), doc, 'nothing changed')

  const small = await build(t, { snapshotLimit: doc.length - 1 })
  const res = await api(small, { method: 'PUT', url: '/__sandbox/snapshot', agent: null, body: doc, headers: { 'content-type': 'application/json' } })
  t.equal(res.statusCode, 413, 'the cap is the option\'s')
})

t.test('named snapshots: save, list, return to one with reset, delete', async (t) => {
  const app = await build(t)
  const before = await reads(app)
  const doc = await snapshot(app)
  const saved = await api(app, { url: '/__sandbox/snapshots', agent: null, body: { name: 'start-of-suite' } })
  t.equal(saved.statusCode, 200)
  t.match(saved.json(), { name: 'start-of-suite', bytes: Buffer.byteLength(doc) })
  await changeEverything(t, app)
  t.same((await api(app, { url: '/__sandbox/snapshots', agent: null })).json().snapshots.map((s: { name: string }) => s.name), ['start-of-suite'])
  const reset = await api(app, { url: '/__sandbox/reset', agent: null, body: { snapshot: 'start-of-suite' } })
  t.equal(reset.statusCode, 200, reset.body)
  t.same(await reads(app), before, 'every read as it was when saved')
  t.equal(await snapshot(app), doc)
  t.equal((await api(app, { url: '/__sandbox/reset', agent: null, body: { snapshot: 'start-of-suite', scenario: 'empty' } })).statusCode, 400, 'a snapshot with a scenario is a 400')
  t.equal((await api(app, { url: '/__sandbox/reset', agent: null, body: { snapshot: 'nope' } })).statusCode, 404)
  t.equal((await api(app, { url: '/__sandbox/snapshots', agent: null, body: { name: '../etc' } })).statusCode, 400, 'a name that is no file name')
  t.equal((await api(app, { method: 'DELETE', url: '/__sandbox/snapshots/start-of-suite', agent: null })).statusCode, 204)
  t.equal((await api(app, { method: 'DELETE', url: '/__sandbox/snapshots/start-of-suite', agent: null })).statusCode, 404)
  t.same((await api(app, { url: '/__sandbox/snapshots', agent: null })).json(), { snapshots: [] })
})

t.test("one partner never sees or uses another's snapshots", async (t) => {
  const app = await build(t)
  const b = await tokenFor(app, PARTNER_B)
  t.equal((await api(app, { url: '/__sandbox/snapshots', agent: null, body: { name: 'mine' } })).statusCode, 200)
  t.same((await api(app, { url: '/__sandbox/snapshots', agent: null, token: b })).json(), { snapshots: [] })
  t.equal((await api(app, { url: '/__sandbox/reset', agent: null, token: b, body: { snapshot: 'mine' } })).statusCode, 404)
  t.equal((await api(app, { method: 'DELETE', url: '/__sandbox/snapshots/mine', agent: null, token: b })).statusCode, 404)
  const ofB = JSON.parse(await snapshot(app, b))
  t.same(ofB.agents.map((a: { id: string }) => a.id), ['2001'], "b's snapshot holds b's agents only")
  t.notMatch(JSON.stringify(ofB), '1001100000001')
})

t.test('with a data dir, named snapshots are files of their own and survive a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-snapshots-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await build(t, { dataDir })
  const doc = await snapshot(first)
  t.equal((await api(first, { url: '/__sandbox/snapshots', agent: null, body: { name: 'golden' } })).statusCode, 200)
  t.ok(existsSync(join(dataDir, 'snapshots', 'partner-a', 'golden.json')), 'in <dataDir>/snapshots/<partnerId>/')
  await changeEverything(t, first)
  await first.close()

  const second = await build(t, { dataDir })
  t.same((await api(second, { url: '/__sandbox/snapshots', agent: null })).json().snapshots.map((s: { name: string }) => s.name), ['golden'])
  t.equal((await api(second, { url: '/__sandbox/reset', agent: null, body: { snapshot: 'golden' } })).statusCode, 200)
  t.equal(await snapshot(second), doc, 'the saved state after a restart')
})
