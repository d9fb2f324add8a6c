import t, { type Test } from 'tap'
import { SandboxApiError, SandboxClient, unwrap } from '../../src/client/index.js'
import { listen } from '../helper.js'

/*
 * SandboxClient's control methods, each group against a sandbox listening on 127.0.0.1, each checked by what the
 * bank's API answers afterwards: resets and fresh agents, guarantees, fault rules, magic values, the clock and
 * the state controls. The journal, snapshots, advice, readiness and the operator's methods: journal.test.ts.
 */

async function partnerA (t: Test, overrides = {}): Promise<SandboxClient> {
  const { base } = await listen(t, overrides)
  return new SandboxClient({ baseUrl: base, clientId: 'partner-a', clientSecret: 'partner-a-secret', agentId: '1001' })
}

const CUSTOMER = '1001100000001'
const ACCOUNT = '1001200000001'

t.test('resets: state, scenarios, a reset to another scenario and back', async (t) => {
  const client = await partnerA(t)
  const state = await client.getSandboxState()
  t.equal(state.scenario, 'default')
  t.same(state.agents.map((a) => a.agentId), ['1001', '1002'])
  t.ok((await client.listScenarios()).scenarios.some((s) => s.name === 'empty'))
  t.equal((await client.resetPartner({ scenario: 'empty' })).scenario, 'empty')
  t.equal((await client.api.GET('/api/customers/{customerId}', { params: { path: { customerId: CUSTOMER } } })).response.status, 404, 'the empty scenario has no such customer')
  t.equal((await client.resetPartner({ scenario: 'default' })).scenario, 'default')
  unwrap(await client.api.POST('/api/customers/{customerId}/messages', { params: { path: { customerId: CUSTOMER } }, body: { message: 'GONE AFTER A RESET', fromDepartment: 'IT', fromPerson: 'CI' } }))
  await client.resetPartner()
  const messages = unwrap(await client.api.GET('/api/customers/{customerId}/messages', { params: { path: { customerId: CUSTOMER }, query: { size: 2000 } } }))
  t.notOk(messages.messages.some((m) => m.message === 'GONE AFTER A RESET'), 'a reset without a body: back to the start')
})

t.test('fresh agents: created, used through withAgent, reset, deleted', async (t) => {
  const client = await partnerA(t)
  const agent = await client.createAgent({ like: '1001' })
  t.match(agent, { fresh: true, like: '1001' })
  const mine = client.withAgent(agent.agentId)
  const banks = unwrap(await mine.api.GET('/api/banks'))
  t.ok(banks.banks.length > 0, "the partner's token works for the fresh agent at once")
  const customers = unwrap(await mine.api.GET('/api/customers', { params: { query: { size: 1 } } }))
  const customerId = customers.customers[0].customerId
  t.ok(customerId.startsWith(agent.agentId), "the fresh agent's own ids")
  t.equal((await client.resetAgent(agent.agentId)).agentId, agent.agentId)
  await client.deleteAgent(agent.agentId)
  await t.rejects(client.deleteAgent(agent.agentId), { status: 404, code: 'SANDBOX_ERR_NOT_FOUND' })
  await t.rejects(client.deleteAgent('1001'), { status: 409, code: 'SANDBOX_ERR_CONFLICT' }, 'a scenario agent stays')
})

t.test('guarantees: created and set, then answered by the public state read (spec 4.13)', async (t) => {
  const client = await partnerA(t)
  const created = await client.createGuarantee({ guaranteeId: 'SBXCLIENT-1', state: 'VALID' })
  t.same(created, { guaranteeId: 'SBXCLIENT-1', state: 'VALID' })
  const read = async (): Promise<string | undefined> => unwrap(await client.api.GET('/api/guarantees/{guaranteeID}/state', { params: { path: { guaranteeID: 'SBXCLIENT-1' } } })).state
  t.equal(await read(), 'VALID')
  t.equal((await client.setGuaranteeState('SBXCLIENT-1', { state: 'INVALID' })).state, 'INVALID')
  t.equal(await read(), 'INVALID')
  t.ok((await client.listGuarantees()).guarantees.some((g) => g.guaranteeId === 'SBXCLIENT-1'))
})

t.test('fault rules: one fails the matching request, then they are listed and deleted; magic values are listed', async (t) => {
  const client = await partnerA(t)
  const rule = await client.createFaultRule({ match: { method: 'GET', path: '/api/banks' }, fault: 'status=503', times: 1 })
  t.match(rule, { fault: 'status=503', times: 1, active: true })
  const failed = await client.api.GET('/api/banks')
  t.equal(failed.response.status, 503)
  t.throws(() => unwrap(failed), { status: 503, code: 'SANDBOX_ERR_FAULT_INJECTED' })
  t.equal((await client.api.GET('/api/banks')).response.status, 200, 'times: 1')
  t.match((await client.listFaultRules()).faults, [{ id: rule.id, fired: 1, active: false }])
  await client.deleteFaultRule(rule.id)
  await client.createFaultRule({ match: { path: '/api/products' }, fault: 'status=500' })
  await client.deleteFaultRules()
  t.same((await client.listFaultRules()).faults, [])
  t.ok((await client.listMagicValues()).values.some((v) => v.value === 'SANDBOX-FAULT-503'))
})

t.test("the partner's clock: set, moved forward, read back, reset", async (t) => {
  const client = await partnerA(t)
  t.equal((await client.setClock({ now: '2027-01-31T09:00:00+02:00', frozen: true })).today, '2027-01-31')
  t.equal((await client.setClock({ advance: 'P1M' })).today, '2027-02-28')
  t.match(await client.getClock(), { mode: 'frozen', today: '2027-02-28' })
  t.equal((await client.resetClock()).mode, 'real')
})

t.test("state controls act on the client's agent and show in the bank's API", async (t) => {
  const client = await partnerA(t)
  const account = async (): Promise<{ balance: number | undefined, closedDate: string | undefined }> => {
    const a = unwrap(await client.api.GET('/api/accounts/{accountId}', { params: { path: { accountId: ACCOUNT } } }))
    return { balance: a.balance?.amount, closedDate: a.closedDate }
  }
  await client.setAccountBalance(ACCOUNT, { amount: 100 })
  await client.creditAccount(ACCOUNT, { amount: 50.5 })
  await client.debitAccount(ACCOUNT, { amount: 20 })
  t.equal((await account()).balance, 130.5)
  await client.closeAccount(ACCOUNT, { closedDate: '2026-02-01' })
  t.equal((await account()).closedDate, '2026-02-01')
  await t.rejects(client.creditAccount(ACCOUNT, { amount: 1 }), { status: 409, code: 'SANDBOX_ERR_CONFLICT' }, 'a closed account takes no money')
  await client.reopenAccount(ACCOUNT)
  t.equal((await account()).closedDate, undefined)
  await client.setCustomerKyc(CUSTOMER, { kycStatus: false })
  const customer = unwrap(await client.api.GET('/api/customers/{customerId}', { params: { path: { customerId: CUSTOMER } } }))
  t.equal(customer.defaultCustomer?.kycStatus, false)
  await t.rejects(client.withAgent('1002').closeAccount(ACCOUNT), { status: 404, code: 'SANDBOX_ERR_NOT_FOUND' }, "another agent's account is not found")
  const agentless = new SandboxClient({ baseUrl: client.baseUrl, clientId: 'partner-a', clientSecret: 'partner-a-secret' })
  await t.rejects(agentless.closeAccount(ACCOUNT), TypeError, 'a client without an agent says so before it sends anything')
})

t.test('an error answer of the control API throws SandboxApiError with the field errors', async (t) => {
  const client = await partnerA(t)
  const err = await client.setClock({ advance: 'thirty days' }).catch((e: unknown) => e)
  t.ok(err instanceof SandboxApiError)
  t.match(err, { status: 400, code: 'SANDBOX_ERR_VALIDATION', errors: [{ field: 'advance' }] })
})
