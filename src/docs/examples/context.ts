import type { DataValidator } from '../../schemas/validation.js'
import { buildPartner } from '../../seed/build.js'
import { scenarioIdentity } from '../../seed/identities.js'
import type { Reference } from '../../schemas/reference.js'
import type { Prebuilt } from '../../seed/prebuilt.js'
import type { ScenarioLibrary } from '../../seed/scenarios.js'
import { AgentStore } from '../../store/agent.js'
import { createRepos } from '../../store/index.js'
import { CHANGES } from '../../store/changes.js'
import { World } from '../../store/world.js'
import { responseKit } from './responses.js'

export const EXAMPLE_SCENARIO = 'default'
const PARTNER = 'partner-a'

// the scenario's records were checked against the schemas when it was built (and in the test suite): a
// private copy built here skips the second check, which would cost a compiled validator
const UNCHECKED = { getSchema: () => () => true } as unknown as DataValidator

/**
 * What every resource's examples draw on: a private copy of partner-a as scenarios/default.json builds
 * it, read through the repositories the routes use, and the fixed records the examples show (the first
 * customer of the test user's agent and what it owns, records of another agent and another partner). The copy is
 * the build's (seed/prebuilt.ts) when it made one; else it is built here, with faker, which the store plugin then
 * loaded at start.
 */
export function exampleContext (scenarios: ScenarioLibrary, reference: Reference, bodyLimit: number, prebuilt: Prebuilt) {
  const loaded = scenarios.get(EXAMPLE_SCENARIO)
  const { scenario } = loaded
  const def = loaded.partners.get(PARTNER)
  if (def === undefined) throw new Error(`scenario ${EXAMPLE_SCENARIO} has no partner ${PARTNER}`)
  const identity = scenarioIdentity(def)
  const snapshot = prebuilt.partner(loaded, scenario.seed, identity) ?? buildPartner({ reference, validator: UNCHECKED }, loaded, scenario.seed, identity)
  const world = new World(reference, { maxRecords: Number.MAX_SAFE_INTEGER, maxAgents: Number.MAX_SAFE_INTEGER }, CHANGES)
  world.putPartner(snapshot)

  const user = def.users?.[0]
  if (user === undefined) throw new Error(`partner ${PARTNER} of scenario ${EXAMPLE_SCENARIO} has no test user`)
  const agentId = user.agentId
  const records = loaded.records.get(agentId)!
  const [first, second] = records.customers
  const customerId = first.customerId
  const account = records.accounts.find((a) => a.customerId === customerId)!
  const otherAgent = snapshot.agents.find((a) => a.id !== agentId)!
  const agentSnapshot = snapshot.agents.find((a) => a.id === agentId)!
  const today = scenario.referenceDate
  // an agent of another partner (403)
  const strangerAgent = scenario.partners.find((p) => p.id !== PARTNER)?.agents[0].id ?? '9999'

  return {
    reference,
    bodyLimit,
    def,
    user,
    agentId,
    tenant: { partnerId: PARTNER, agentId },
    partner: world.partner(PARTNER)!,
    repos: createRepos(world),
    records,
    first,
    second,
    customerId,
    customerUrl: `/api/customers/${customerId}`,
    account,
    otherProduct: records.accounts.find((a) => a.customerId === customerId && a.productCode !== account.productCode)?.productCode ?? reference.products[1].productCode,
    beneficiary: records.beneficiaries.find((b) => b.customerId === customerId)!,
    message: records.messages.find((m) => m.customerId === customerId)!,
    guarantees: (scenario.records.guarantees ?? []).filter((g) => g.partnerId === PARTNER),
    otherAgent,
    foreignCustomer: otherAgent.customers[0].customerId,
    foreignAccount: otherAgent.accounts[0].id,
    today,
    /** Creates run on a copy of the agent as the scenario starts, as on a sandbox just reset. */
    freshAgent: (): AgentStore => new AgentStore(agentSnapshot),
    kit: responseKit({ partnerId: PARTNER, strangerAgent, bodyLimit, timestamp: `${today}T08:00:00.000+00:00` })
  }
}

export type ExampleContext = ReturnType<typeof exampleContext>
