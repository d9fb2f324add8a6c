import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { api, build, PARTNER_B, tokenFor } from './helper.js'

/* Fault rules of a partner (issue 11): POST/GET/DELETE /__sandbox/faults and what they do to its traffic. */

async function control (app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, token?: string) {
  return await api(app, { method, url, body, agent: null, token })
}

async function statuses (app: FastifyInstance, n: number, url = '/api/banks', headers: Record<string, string> = {}): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push((await api(app, { url, headers })).statusCode)
  return out
}

t.test('a rule applies its fault to the matching requests, and the list says how often it fired', async (t) => {
  const app = await build(t)
  const made = await control(app, 'POST', '/__sandbox/faults', { match: { method: 'get', path: '/api/banks' }, fault: 'status=503' })
  t.equal(made.statusCode, 200)
  const rule = made.json()
  t.match(rule, { id: 'rule-1', match: { method: 'get', path: '/api/banks' }, fault: 'status=503', probability: 1, matched: 0, fired: 0, active: true })
  const res = await api(app, { url: '/api/banks' })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['sandbox-fault-applied'], 'status=503; source=rule; rule=rule-1')
  t.equal(res.headers['retry-after'], '5')
  t.equal((await api(app, { url: '/4.0/api/banks' })).statusCode, 503, 'the path matches without its version prefix too')
  t.equal((await api(app, { url: '/api/investment-types' })).statusCode, 200, 'another path is untouched')
  t.equal((await api(app, { url: '/api/banks', headers: { 'sandbox-fault': 'status=418' } })).statusCode, 418, 'a header wins over rules')
  const list = (await control(app, 'GET', '/__sandbox/faults')).json()
  t.match(list.faults, [{ id: 'rule-1', matched: 2, fired: 2 }], 'counted')
})

t.test('match by route template, path glob, method and agent id', async (t) => {
  const app = await build(t)
  await control(app, 'POST', '/__sandbox/faults', { match: { route: '/api/customers/{customerId}/messages', method: 'POST' }, fault: 'status=500' })
  await control(app, 'POST', '/__sandbox/faults', { match: { path: '/api/customers/*/beneficiaries' }, fault: 'status=502' })
  await control(app, 'POST', '/__sandbox/faults', { match: { agentId: '1002', path: '/api/**' }, fault: 'status=504' })
  const message = { message: 'HI', fromDepartment: 'CI', fromPerson: 'CI' }
  t.equal((await api(app, { url: '/api/customers/1001100000001/messages', body: message })).statusCode, 500, 'route template and method')
  t.equal((await api(app, { url: '/api/customers/1001100000001/messages' })).statusCode, 200, 'GET of the same route is untouched')
  t.equal((await api(app, { url: '/api/customers/1001100000001/beneficiaries' })).statusCode, 502, '* within a segment')
  t.equal((await api(app, { url: '/api/customers/1001100000001/beneficiaries/1001300000001' })).statusCode, 200, '* does not cross a /')
  t.equal((await api(app, { url: '/api/banks', agent: '1002' })).statusCode, 504, 'agent 1002 with **')
  t.equal((await api(app, { url: '/api/banks', agent: '1001' })).statusCode, 200, 'agent 1001 untouched')
})

t.test('times makes a rule expire; probability 0 never fires', async (t) => {
  const app = await build(t)
  await control(app, 'POST', '/__sandbox/faults', { match: { path: '/api/banks' }, fault: 'status=500', times: 2 })
  await control(app, 'POST', '/__sandbox/faults', { match: { path: '/api/products' }, fault: 'status=500', probability: 0 })
  t.same(await statuses(app, 4), [500, 500, 200, 200], 'two faults, then normal answers')
  t.same(await statuses(app, 3, '/api/products'), [200, 200, 200])
  const list = (await control(app, 'GET', '/__sandbox/faults')).json().faults
  t.match(list, [{ id: 'rule-1', fired: 2, active: false }, { id: 'rule-2', matched: 3, fired: 0, active: true }])
})

t.test('a seeded rule faults the same requests of the same sequence in every run', async (t) => {
  const runs: number[][] = []
  for (let run = 0; run < 2; run++) {
    const app = await build(t)
    await control(app, 'POST', '/__sandbox/faults', { match: { path: '/api/banks' }, fault: 'status=503', probability: 0.3, seed: 42 })
    const s = await statuses(app, 40)
    runs.push(s.flatMap((status, i) => status === 503 ? [i] : []))
    await app.close()
  }
  t.same(runs[0], runs[1], `faulted request numbers ${runs[0].join(',')}`)
  t.ok(runs[0].length > 3 && runs[0].length < 25, `about 30% of 40 (${runs[0].length})`)
  const app = await build(t)
  await control(app, 'POST', '/__sandbox/faults', { match: { path: '/api/banks' }, fault: 'status=503', probability: 0.3, seed: 43 })
  const other = (await statuses(app, 40)).flatMap((status, i) => status === 503 ? [i] : [])
  t.not(other.join(','), runs[0].join(','), 'another seed, another sequence')
})

t.test("rules apply only to their partner's traffic", async (t) => {
  const app = await build(t)
  await control(app, 'POST', '/__sandbox/faults', { fault: 'status=500' })
  const b = await tokenFor(app, PARTNER_B)
  t.equal((await api(app, { url: '/api/banks', token: b, agent: '2001' })).statusCode, 200, 'partner-b untouched by a rule matching everything')
  t.equal((await api(app, { url: '/api/banks' })).statusCode, 500, 'partner-a gets it')
  t.same((await control(app, 'GET', '/__sandbox/faults', undefined, b)).json().faults, [], "partner-b does not see partner-a's rules")
  t.equal((await control(app, 'DELETE', '/__sandbox/faults/rule-1', undefined, b)).statusCode, 404, 'nor delete them')
  t.equal((await api(app, { url: '/__sandbox/state', agent: null })).statusCode, 200, 'the control API is never faulted')
})

t.test('delete one rule, all rules, and a reset clears them', async (t) => {
  const app = await build(t)
  for (const path of ['/api/banks', '/api/products', '/api/investment-types']) await control(app, 'POST', '/__sandbox/faults', { match: { path }, fault: 'status=500' })
  t.equal((await control(app, 'DELETE', '/__sandbox/faults/rule-2')).statusCode, 204)
  t.same((await control(app, 'GET', '/__sandbox/faults')).json().faults.map((r: { id: string }) => r.id), ['rule-1', 'rule-3'])
  t.equal((await control(app, 'DELETE', '/__sandbox/faults/rule-2')).statusCode, 404, 'gone')
  t.equal((await control(app, 'DELETE', '/__sandbox/faults')).statusCode, 204)
  t.same((await control(app, 'GET', '/__sandbox/faults')).json().faults, [])
  await control(app, 'POST', '/__sandbox/faults', { fault: 'status=500' })
  t.equal((await control(app, 'POST', '/__sandbox/reset')).statusCode, 200)
  t.same((await control(app, 'GET', '/__sandbox/faults')).json().faults, [], 'a reset clears the rules')
  t.equal((await api(app, { url: '/api/banks' })).statusCode, 200)
})

t.test('bad rules are refused with a 400 naming the field, and change nothing', async (t) => {
  const app = await build(t)
  const bad: Array<[unknown, string]> = [
    [{}, 'fault'],
    [{ fault: 'status=200' }, 'fault'],
    [{ fault: 'explode' }, 'fault'],
    [{ fault: 'status=500', probability: 1.5 }, 'probability'],
    [{ fault: 'status=500', probability: -0.1 }, 'probability'],
    [{ fault: 'status=500', times: 0 }, 'times'],
    [{ fault: 'status=500', seed: -1 }, 'seed'],
    [{ fault: 'status=500', match: { methd: 'GET' } }, 'match'],
    [{ fault: 'status=500', match: { path: 'api/banks' } }, 'match.path'],
    [{ fault: 'status=500', match: { agentId: 'abc' } }, 'match.agentId'],
    [{ fault: 'status=500', extra: true }, ''],
    [[1, 2], '']
  ]
  for (const [body, field] of bad) {
    const res = await control(app, 'POST', '/__sandbox/faults', body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    if (field !== '') t.ok(res.json().errors.some((e: { field: string }) => e.field.startsWith(field)), `names ${field}: ${res.body.slice(0, 300)}`)
  }
  t.same((await control(app, 'GET', '/__sandbox/faults')).json().faults, [], 'no rule was made')
  t.equal((await control(app, 'DELETE', '/__sandbox/faults/bogus')).statusCode, 400, 'a malformed rule id is a 400')
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/faults', agent: null, token: null, body: { fault: 'status=500' } })).statusCode, 401, 'no token, no rule')
})

t.test('with a data dir the rules and their counters survive a restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-faults-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const first = await build(t, { dataDir: dir })
  await control(first, 'POST', '/__sandbox/faults', { match: { path: '/api/banks' }, fault: 'status=503', times: 3, probability: 0.5, seed: 7 })
  const firstRun = await statuses(first, 6)
  await first.close()
  const second = await build(t, { dataDir: dir })
  const rules = (await control(second, 'GET', '/__sandbox/faults')).json().faults
  t.equal(rules.length, 1, 'the rule is back')
  t.equal(rules[0].matched, 6, 'with its counters')
  // a third app replays the same seed from scratch: the restart must have kept the generator's position
  const third = await build(t)
  await control(third, 'POST', '/__sandbox/faults', { match: { path: '/api/banks' }, fault: 'status=503', times: 3, probability: 0.5, seed: 7 })
  const straight = await statuses(third, 12)
  t.same([...firstRun, ...await statuses(second, 6)], straight, 'the seeded sequence continues where it stopped')
})

t.test('a snapshot carries the rules and the clock, and a restore brings them back', async (t) => {
  const app = await build(t)
  await control(app, 'POST', '/__sandbox/faults', { match: { path: '/api/banks' }, fault: 'status=503' })
  await api(app, { method: 'PUT', url: '/__sandbox/clock', body: { now: '2030-01-01', frozen: true }, agent: null })
  const snapshot = await control(app, 'GET', '/__sandbox/snapshot')
  t.equal(snapshot.statusCode, 200)
  await control(app, 'POST', '/__sandbox/reset')
  t.same((await control(app, 'GET', '/__sandbox/faults')).json().faults, [], 'reset: no rules')
  const restored = await api(app, { method: 'PUT', url: '/__sandbox/snapshot', body: snapshot.json(), agent: null })
  t.equal(restored.statusCode, 200, restored.body.slice(0, 300))
  t.equal((await control(app, 'GET', '/__sandbox/faults')).json().faults.length, 1, 'the rule is back')
  t.equal((await api(app, { url: '/api/banks' })).statusCode, 503, 'and applies')
  t.match((await control(app, 'GET', '/__sandbox/clock')).json(), { mode: 'frozen', today: '2030-01-01' }, 'the clock is back')
})

t.test('a partner without rules is settled before the request\'s facts are made', async (t) => {
  const app = await build(t)
  let asked = 0
  const facts = () => { asked += 1; return { method: 'GET', path: '/api/banks', apiPath: '/api/banks', route: '/api/banks', agentId: '1001' } }
  t.equal(app.repos.sandboxState.pick('partner-a', facts), null, 'no rules: no fault')
  t.equal(asked, 0, 'and no facts made')
  await control(app, 'POST', '/__sandbox/faults', { match: { path: '/api/products' }, fault: 'status=500' })
  t.equal(app.repos.sandboxState.pick('partner-a', facts), null, 'a rule that does not match: no fault')
  t.equal(asked, 1, 'the facts made once to match against')
})
