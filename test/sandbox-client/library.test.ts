import t from 'tap'
import { SandboxClient, unwrap } from '../../src/client/index.js'
import { startSandbox } from '../../src/library.js'

/* startSandbox's client(): a SandboxClient of one of the scenario's partners, ready for the bank's API. */

t.test("client() is a SandboxClient of the scenario's first partner with its first agent, or of the partner named", async (t) => {
  const sandbox = await startSandbox()
  t.teardown(() => sandbox.stop())
  const first = sandbox.client()
  t.ok(first instanceof SandboxClient)
  t.match(first, { baseUrl: sandbox.url, clientId: 'partner-a', agentId: '1001', tokenUrl: sandbox.tokenUrl })
  t.equal(unwrap(await first.api.GET('/api/customers/{customerId}', { params: { path: { customerId: '1001100000001' } } })).customerId, '1001100000001')
  const b = sandbox.client('partner-b')
  t.match(b, { clientId: 'partner-b', agentId: '2001' })
  t.equal((await b.getSandboxState()).partnerId, 'partner-b')
  t.throws(() => sandbox.client('partner-z'), TypeError, 'a partner the scenario does not have')
})
