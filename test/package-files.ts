import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './built.js'

/* The files of test/package.test.ts's partner project, beside the tarball it installs. */

/** An empty project of a partner's; the install scripts it allows are the repository's (docs/contributing.md). */
export const PARTNER_PROJECT = {
  name: 'partner-test-suite',
  version: '1.0.0',
  private: true,
  type: 'module',
  allowScripts: { esbuild: true, '@scarf/scarf': false, 'cpu-features': false, ssh2: false, protobufjs: false }
}

/** All three exports from plain ESM: two sandboxes at once, then stop(); the process must end by itself. */
export const USE_OF_ALL_THREE = `import { startSandbox } from 'banking-agent-sandbox'
import { SandboxApiError, SandboxClient, unwrap } from 'banking-agent-sandbox/client'
import { SandboxContainer } from 'banking-agent-sandbox/testcontainers'

const [a, b] = await Promise.all([startSandbox(), startSandbox({ scenario: 'edge-cases' })])
const banks = unwrap(await a.client().api.GET('/api/banks'))
const partnerB = b.partners[0]
const viaUrl = new SandboxClient({ baseUrl: b.url, clientId: partnerB.clientId, clientSecret: partnerB.clientSecret })
const stateB = await viaUrl.getSandboxState()
let refused
try {
  await new SandboxClient({ baseUrl: a.url, clientId: 'partner-a', clientSecret: 'not-the-secret' }).accessToken()
} catch (err) {
  refused = err instanceof SandboxApiError ? { status: err.status, code: err.code } : String(err)
}
const container = new SandboxContainer('banking-sandbox:latest').withScenario('empty').withSeed(1)
await Promise.all([a.stop(), b.stop()])
process.stdout.write(JSON.stringify({
  urls: [a.url, b.url],
  banks: banks.banks.length,
  scenarioB: stateB.scenario,
  refused,
  container: ['withAdminToken', 'withScenario', 'withSeed'].filter((m) => typeof container[m] === 'function')
}) + '\\n')
`

/** All three exports from TypeScript, with the calls the types must refuse. */
export const TYPED_USE = `import { startSandbox, type SandboxOptions, type StartedSandbox } from 'banking-agent-sandbox'
import { SandboxApiError, SandboxClient, unwrap, type AgentSummary, type TokenSet } from 'banking-agent-sandbox/client'
import { SandboxContainer, type ScenarioPartner, type StartedSandboxContainer } from 'banking-agent-sandbox/testcontainers'

export async function suite (): Promise<void> {
  const options: SandboxOptions = { scenario: 'default', seed: 4100, tokenTtl: 60 }
  const sandbox: StartedSandbox = await startSandbox(options)
  const client: SandboxClient = sandbox.client('partner-a')
  const customer = unwrap(await client.api.GET('/api/customers/{customerId}', { params: { path: { customerId: '1001100000001' } } }))
  const id: string = customer.customerId
  const { data, error, response } = await client.api.POST('/api/customers/{customerId}/messages', {
    params: { path: { customerId: id }, header: { 'agent-id': '1002' } },
    body: { message: 'HELLO', fromDepartment: 'IT', fromPerson: 'CI' }
  })
  const status: number = response.status
  const text: string | undefined = data?.message ?? error?.message
  const agent: AgentSummary = await client.createAgent({ like: '1001' })
  const count: number = (await client.countRequests({ status: '4xx' })).count
  const junit: string = await client.getReadiness({ format: 'junit' })
  const ready: boolean = (await client.getReadiness()).ready
  const user: TokenSet = await client.passwordGrant('alice', 'alice-password')
  try {
    await client.withAgent(agent.agentId).closeAccount('1001200000001', { closedDate: '2026-02-01' })
  } catch (err) {
    if (err instanceof SandboxApiError) console.log(err.status, err.code, err.message, err.errors.map((e) => e.field))
  }
  const container: StartedSandboxContainer = await new SandboxContainer('banking-sandbox:latest').withScenario('default').withAdminToken('an-operator-token').start()
  const issuer: string = container.getIssuerUrl()
  const partners: ScenarioPartner[] = container.getPartners()
  const other: SandboxClient = container.getClient('partner-b')
  console.log(status, text, count, junit, ready, user.refresh_token, issuer, partners, other.clientId)
  await container.stop()
  // @ts-expect-error: no such path in the bank's API
  await client.api.GET('/api/nothing-here')
  // @ts-expect-error: a fault rule needs its fault
  await client.createFaultRule({ match: { path: '/api/banks' } })
  // @ts-expect-error: the clock's advance is a duration in text
  await client.setClock({ advance: 30 })
  // @ts-expect-error: the options are the sandbox's configuration keys
  await startSandbox({ colour: 'blue' })
  await sandbox.stop()
}
`

/**
 * The files of one recipe of docs/from-code.md (its \`\`\`<language> file=<name> blocks under the heading that
 * begins "### <title>"), written to a directory of their own beside the installed package, with the test file twice:
 * two files, two fresh agents.
 */
export function recipes (work: string, title: string): string {
  const page = readFileSync(join(ROOT, 'docs', 'from-code.md'), 'utf8')
  const section = page.split(/^#{2,3} /m).find((s) => s.startsWith(title))
  if (section === undefined) throw new Error(`docs/from-code.md has no section "${title}"`)
  const dir = join(work, title.replace(/\W+/g, '-'))
  mkdirSync(dir, { recursive: true })
  const files = [...section.matchAll(/```\w+ file=(\S+)\n([\s\S]*?)```/g)]
  if (files.length === 0) throw new Error(`the section "${title}" has no file`)
  for (const [, name, code] of files) {
    writeFileSync(join(dir, name), code)
    if (/\.test\.[mc]?[jt]s$/.test(name)) writeFileSync(join(dir, `more-${name}`), code)
  }
  return dir
}
