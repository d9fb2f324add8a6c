import type { SnapshotDocument } from '../../schemas/snapshots.js'
import { documentOf } from '../../seed/snapshot.js'
import type { ExampleContext } from './context.js'

/** The record with the most fields (the first of them): the one that shows every field a record can have. */
function fullest<T extends object> (records: T[]): T[] {
  const best = records.reduce<T | undefined>((b, r) => b === undefined || Object.keys(r).length > Object.keys(b).length ? r : b, undefined)
  return best === undefined ? [] : [best]
}

/**
 * The example of a partner's whole state (GET and PUT /__sandbox/snapshot): the example partner as the
 * default scenario starts it, cut to the test user's agent with the records the other examples show (its
 * first customer, that customer's account, beneficiary and message), the record of each kind with the most
 * fields (so that every field has a value: a closed account, a customer with other clients) and the
 * customers these belong to, and the scenario's guarantees.
 */
export function snapshotExample (c: ExampleContext): SnapshotDocument {
  const doc = documentOf(c.partner)
  const agent = doc.agents.find((a) => a.id === c.agentId)!
  const accounts = agent.accounts.filter((r) => r.id === c.account.id || fullest(agent.accounts).includes(r))
  const beneficiaries = agent.beneficiaries.filter((r) => r.beneficiaryId === c.beneficiary.beneficiaryId || fullest(agent.beneficiaries).includes(r))
  const messages = agent.messages.filter((r) => r.id === c.message.id || fullest(agent.messages).includes(r))
  const owners = new Set([
    c.customerId,
    ...fullest(agent.customers).map((r) => r.customerId),
    ...accounts.flatMap((r) => r.customers.map((h) => h.customerId)),
    ...[...beneficiaries, ...messages].map((r) => r.customerId)
  ])
  return {
    ...doc,
    guarantees: doc.guarantees.filter((g) => c.guarantees.some((s) => s.guaranteeId === g.guaranteeId)),
    agents: [{ ...agent, customers: agent.customers.filter((r) => owners.has(r.customerId)), accounts, beneficiaries, messages }]
  }
}
