import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { SandboxApiError, SandboxClient, unwrap } from '../../src/client/index.js'
import { listen } from '../helper.js'

/*
 * SandboxClient's journal, snapshot, advice, readiness and operator methods against a sandbox listening on
 * 127.0.0.1 (the other control methods: control.test.ts).
 */

const ADMIN_TOKEN = 'an-operator-token-of-the-test'

async function partnerA (t: Test): Promise<{ app: FastifyInstance, client: SandboxClient }> {
  const { app, base } = await listen(t, { adminToken: ADMIN_TOKEN })
  return { app, client: new SandboxClient({ baseUrl: base, clientId: 'partner-a', clientSecret: 'partner-a-secret', agentId: '1001' }) }
}

t.test('the journal: listed, counted, one entry in full, as HAR, emptied', async (t) => {
  const { client } = await partnerA(t)
  const { response } = await client.api.GET('/api/banks', { headers: { 'x-request-id': 'sandbox-client-1' } })
  t.equal(response.status, 200)
  const list = await client.listRequests({ path: '/api/banks' })
  t.match(list, { total: 1, requests: [{ requestId: 'sandbox-client-1', method: 'GET', status: 200, agentId: '1001' }] })
  t.same(await client.countRequests({ path: '/api/banks', method: 'GET' }), { count: 1 })
  const entry = await client.getRequest('sandbox-client-1')
  t.equal(entry.route, '/api/banks')
  const har = await client.exportRequestsHar({ path: '/api/banks' })
  t.equal(har.log.version, '1.2')
  t.equal(har.log.entries.length, 1)
  await client.clearRequests()
  t.same(await client.countRequests({ path: '/api/banks' }), { count: 0 })
  await t.rejects(client.getRequest('sandbox-client-1'), { status: 404, code: 'SANDBOX_ERR_NOT_FOUND' })
})

t.test("the journal's live tail: each new request as it comes; closing it leaves no tail open", async (t) => {
  const { app, client } = await partnerA(t)
  // While the tail holds one connection, Node's fetch (undici) opens a spare one that never carries a request;
  // the server counts it as busy until its headers timeout (60 s), so the app's close would wait for it
  t.teardown(() => app.server.closeAllConnections())
  const stream = await client.streamRequests()
  t.equal(app.journals.tails('partner-a'), 1, 'connected when it resolves')
  await client.api.GET('/api/banks', { headers: { 'x-request-id': 'tailed-1' } })
  await client.api.GET('/api/products', { headers: { 'x-request-id': 'tailed-2' } })
  const seen: string[] = []
  for await (const summary of stream) {
    if (summary.requestId.startsWith('tailed-')) seen.push(summary.requestId)
    if (seen.length === 2) break
  }
  t.same(seen, ['tailed-1', 'tailed-2'])
  // leaving the loop closed the connection; the sandbox sees it go
  while (app.journals.tails('partner-a') > 0) await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal(app.journals.tails('partner-a'), 0)
  t.equal(await stream.next(), undefined, 'a closed stream has nothing more')
})

t.test('snapshots: saved by name, listed, restored by a reset, taken and put back whole, deleted', async (t) => {
  const { client } = await partnerA(t)
  await client.closeAccount('1001200000002')
  t.equal((await client.saveSnapshot({ name: 'closed-account' })).name, 'closed-account')
  t.same((await client.listSnapshots()).snapshots.map((s) => s.name), ['closed-account'])
  const whole = await client.getSnapshot()
  await client.resetPartner()
  const closedDate = async (): Promise<string | undefined> => unwrap(await client.api.GET('/api/accounts/{accountId}', { params: { path: { accountId: '1001200000002' } } })).closedDate
  t.equal(await closedDate(), undefined, 'open after the reset')
  await client.resetPartner({ snapshot: 'closed-account' })
  t.type(await closedDate(), 'string', 'closed again from the named snapshot')
  await client.resetPartner()
  await client.putSnapshot(whole)
  t.type(await closedDate(), 'string', 'closed again from the whole document')
  await client.deleteSnapshot('closed-account')
  t.same((await client.listSnapshots()).snapshots, [])
})

t.test('advice and readiness: JSON, JUnit XML as text, cleared', async (t) => {
  const { client } = await partnerA(t)
  await client.api.GET('/api/banks')
  const advice = await client.getAdvice()
  t.equal(advice.observing, true)
  t.ok(advice.requests > 0)
  const readiness = await client.getReadiness()
  t.equal(readiness.cases.length, readiness.passed + readiness.failed + readiness.notTried)
  const junit = await client.getReadiness({ format: 'junit' })
  t.type(junit, 'string')
  t.match(junit, /^<\?xml[^>]*>\s*<testsuites/)
  t.equal((junit.match(/<testcase /g) ?? []).length, readiness.cases.length, 'one test case per checklist case')
  await client.clearAdvice()
  t.equal((await client.getAdvice()).requests, 0)
})

t.test("the operator's methods with the admin token: partners registered, listed, overviewed, their readiness and advice, deleted, all reset", async (t) => {
  const { client } = await partnerA(t)
  const operator = new SandboxClient({ baseUrl: client.baseUrl, clientId: 'partner-a', clientSecret: 'partner-a-secret', adminToken: ADMIN_TOKEN })
  const registered = await operator.registerPartner({ name: 'SandboxClient test partner' })
  const newcomer = new SandboxClient({ baseUrl: client.baseUrl, clientId: registered.clientId, clientSecret: registered.clientSecret, agentId: registered.agentIds[0] })
  t.equal(unwrap(await newcomer.api.GET('/api/banks')).page.page, 0, "the new partner's credentials work")
  t.ok((await operator.listPartners()).partners.some((p) => p.partnerId === registered.clientId))
  t.ok((await operator.getOverview({ q: registered.clientId })).partners.some((p) => p.clientId === registered.clientId), 'the overview finds it')
  const readiness = await operator.getPartnerReadiness('partner-a')
  t.equal(readiness.cases.length, readiness.passed + readiness.failed + readiness.notTried, "a partner's checklist")
  t.match(await operator.getPartnerReadiness('partner-a', { format: 'junit' }), /<testsuites/, 'and as JUnit XML')
  t.type((await operator.getPartnerAdvice('partner-a')).findings, Array, "a partner's findings")
  t.ok((await operator.resetAllPartners()).partners.length >= 3)
  await operator.deletePartner(registered.clientId)
  await t.rejects(newcomer.api.GET('/api/banks').then(unwrap), { status: 401, code: 'SANDBOX_ERR_TOKEN_INVALID' })
  const err = await client.listPartners().catch((e: unknown) => e)
  t.ok(err instanceof SandboxApiError)
  t.match(err, { status: 401, code: 'SANDBOX_ERR_ADMIN_TOKEN' }, 'without the admin token')
})
