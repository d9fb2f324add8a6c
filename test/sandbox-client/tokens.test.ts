import t from 'tap'
import { decodeJwt } from 'jose'
import { SandboxApiError, SandboxClient, TOKEN_PATH, unwrap } from '../../src/client/index.js'
import { listen } from '../helper.js'

/* SandboxClient's tokens and the bank's API, over real HTTP against a sandbox listening on 127.0.0.1. */

const PARTNER_A = { clientId: 'partner-a', clientSecret: 'partner-a-secret' }

t.test('the client-credentials token is kept: many calls at once and after make one token request', async (t) => {
  const { base } = await listen(t)
  const client = new SandboxClient({ baseUrl: base, ...PARTNER_A })
  const tokens = await Promise.all([client.accessToken(), client.accessToken(), client.accessToken()])
  t.equal(new Set(tokens).size, 1, 'the calls at once share one token')
  t.equal(await client.accessToken(), tokens[0], 'a later call gets the same token')
  t.equal(decodeJwt(tokens[0]).azp, 'partner-a')
  t.same(await client.countRequests({ path: TOKEN_PATH }), { count: 1 }, "the partner's journal holds one token request")
})

t.test('a token is renewed once nine tenths of its lifetime have passed, not sent until it is refused', async (t) => {
  const { base } = await listen(t, { tokenTtl: 10 })
  const client = new SandboxClient({ baseUrl: base, ...PARTNER_A })
  const first = await client.accessToken()
  const received = Date.now()
  t.equal(await client.accessToken(), first, 'kept meanwhile')
  // kept for 9 of its 10 s from when it arrived, then a new one
  await new Promise((resolve) => setTimeout(resolve, received + 9000 + 20 - Date.now()))
  const second = await client.accessToken()
  t.not(second, first, 'a new token')
  t.ok(Number(decodeJwt(second).exp) > Number(decodeJwt(first).exp))
  t.same(await client.countRequests({ path: TOKEN_PATH }), { count: 2 })
})

t.test("a test user's tokens: the password grant, its refresh, and a view whose calls carry the user's token", async (t) => {
  const { base } = await listen(t)
  const client = new SandboxClient({ baseUrl: base, ...PARTNER_A, agentId: '1001' })
  const set = await client.passwordGrant('alice', 'alice-password')
  t.equal(decodeJwt(set.access_token).preferred_username, 'alice')
  t.type(set.refresh_token, 'string')
  t.type(set.id_token, 'string')
  const renewed = await client.refreshGrant(set.refresh_token ?? '')
  t.equal(decodeJwt(renewed.access_token).preferred_username, 'alice')
  t.not(renewed.access_token, set.access_token)

  const alice = client.withUser('alice', 'alice-password')
  const mine = unwrap(await alice.api.GET('/api/users/current/customers'))
  t.same(mine.customers.map((c) => c.customerId).sort(), ['1001100000001', '1001100000002', '1001100000003'], "alice's three customers")
  // the partner's own token is no user's: no customers of a user (docs/assumptions.md)
  t.same(unwrap(await client.api.GET('/api/users/current/customers')).customers, [])
})

t.test("the token endpoint's OAuth errors throw SandboxApiError with their error as the code", async (t) => {
  const { base } = await listen(t)
  const wrong = new SandboxClient({ baseUrl: base, clientId: 'partner-a', clientSecret: 'not-the-secret' })
  const err = await wrong.accessToken().catch((e: unknown) => e)
  t.ok(err instanceof SandboxApiError)
  t.match(err, { name: 'SandboxApiError', status: 401, code: 'invalid_client', errors: [] })
  t.ok((err as Error).message.length > 0, 'the error_description is the message')
  const user = new SandboxClient({ baseUrl: base, ...PARTNER_A })
  await t.rejects(user.passwordGrant('alice', 'wrong-password'), { status: 401, code: 'invalid_grant', message: 'Invalid user credentials' })
  await t.rejects(user.refreshGrant('no-such-refresh-token'), { status: 400, code: 'invalid_grant' })
})

t.test("the bank's API: typed calls with the client's Agent-Id, or another a call names", async (t) => {
  const { base } = await listen(t)
  const client = new SandboxClient({ baseUrl: base, ...PARTNER_A, agentId: '1001' })
  const customer = unwrap(await client.api.GET('/api/customers/{customerId}', { params: { path: { customerId: '1001100000001' } } }))
  t.equal(customer.customerId, '1001100000001')
  const page = unwrap(await client.api.GET('/api/accounts', { params: { query: { customerId: '1001100000001', page: 0, size: 2 } } }))
  t.ok(page.accounts.length > 0 && page.accounts.length <= 2)
  t.equal(page.page.pageSize, 2)

  // agent 1002 of the same partner does not see agent 1001's customer (spec: tenancy by agent)
  const other = await client.api.GET('/api/customers/{customerId}', { params: { header: { 'agent-id': '1002' }, path: { customerId: '1001100000001' } } })
  t.equal(other.response.status, 404)
  t.equal(client.withAgent('1002').agentId, '1002')
  t.equal((await client.withAgent('1002').api.GET('/api/customers/{customerId}', { params: { path: { customerId: '1001100000001' } } })).response.status, 404)

  const created = unwrap(await client.api.POST('/api/customers/{customerId}/messages', {
    params: { path: { customerId: '1001100000001' } },
    body: { message: 'HELLO FROM SANDBOXCLIENT', fromDepartment: 'INTEGRATION', fromPerson: 'CI' }
  }))
  t.equal(created.message, 'HELLO FROM SANDBOXCLIENT')
})

t.test('an error answer of the bank API: the result keeps it, unwrap throws it as SandboxApiError', async (t) => {
  const { base } = await listen(t)
  const client = new SandboxClient({ baseUrl: base, ...PARTNER_A, agentId: '1001' })
  const result = await client.api.POST('/api/customers/{customerId}/messages', {
    params: { path: { customerId: '1001100000001' } },
    body: { message: 'X'.repeat(257), fromDepartment: 'INTEGRATION', fromPerson: 'CI' }
  })
  t.equal(result.response.status, 400)
  t.equal(result.error?.status, 400)
  const err = (() => { try { return unwrap(result) } catch (e) { return e } })()
  t.ok(err instanceof SandboxApiError)
  const e = err as SandboxApiError
  t.match(e, { status: 400, code: 'SANDBOX_ERR_VALIDATION', message: result.error?.message })
  t.ok(e.errors.some((f) => f.field === 'message'), 'errors[] names the field')
  t.match(e.url, /\/api\/customers\/1001100000001\/messages$/)
  // the request id finds the request in the journal
  const entry = await client.getRequest(e.requestId ?? '')
  t.equal(entry.status, 400)

  const noAgent = new SandboxClient({ baseUrl: base, ...PARTNER_A })
  const missing = await noAgent.api.GET('/api/banks')
  t.equal(missing.response.status, 400, 'a client without an agent sends no Agent-Id')
  t.throws(() => unwrap(missing), { code: 'SANDBOX_ERR_AGENT_ID_MISSING' })
})

t.test("expiring the partner's tokens: the old token is refused, the client gets a new one by itself", async (t) => {
  const { base } = await listen(t)
  const client = new SandboxClient({ baseUrl: base, ...PARTNER_A, agentId: '1001' })
  const alice = client.withUser('alice', 'alice-password')
  const before = await client.accessToken()
  const aliceBefore = await alice.accessToken()
  await client.expireTokens({ refresh: true })
  const refused = await client.api.GET('/api/banks', { headers: { authorization: `Bearer ${before}` } })
  t.equal(refused.response.status, 401, 'the token kept before is expired now')
  t.equal(refused.response.headers.get('x-sandbox-error'), 'SANDBOX_ERR_TOKEN_INVALID')
  t.equal((await client.api.GET('/api/banks')).response.status, 200, 'the next call carries a new token')
  t.not(await client.accessToken(), before)
  t.equal((await alice.api.GET('/api/users/current/customers')).response.status, 200, "the user's view signs in again")
  t.not(await alice.accessToken(), aliceBefore)
})
