import { clockNow } from '../clock.js'
import { validationFailed, type FieldError } from '../errors.js'
import { customerRules } from '../rules/customers.js'
import { RuleErrors } from '../rules/field-errors.js'
import { SNAPSHOT_FORMAT, type SnapshotDocument } from '../schemas/snapshots.js'
import type { Partner } from '../store/partner.js'
import type { PartnerSnapshot } from '../store/records.js'
import type { World } from '../store/world.js'
import type { Reference } from '../schemas/reference.js'

/*
 * A partner's whole state as a document and back. The schema (SandboxSnapshot) checks each record as the
 * API serves it; the checks here are the ones across records that scenario files get too: ids in the
 * sandbox's scheme and unique, owners that exist, agents and guarantees that are no other partner's,
 * the request rules of customers, and the partner's limits.
 */

export function documentOf (p: Partner): SnapshotDocument {
  return {
    snapshotFormat: SNAPSHOT_FORMAT,
    partnerId: p.id,
    scenario: p.scenario,
    seed: p.seed,
    guaranteeSeq: p.guaranteeSeq,
    guarantees: [...p.guarantees.values()],
    agents: p.agentSnapshots(),
    sandbox: p.sandbox
  }
}

export interface SnapshotContext { reference: Reference, scenarios: string[] }

const KIND = { customer: '1', account: '2', beneficiary: '3', message: '4' } as const

/** Every problem of a document (that passed the schema) for this partner, as field errors. */
function problems (doc: SnapshotDocument, partner: Partner, world: World, ctx: SnapshotContext): FieldError[] {
  const errors = new RuleErrors()
  if (!ctx.scenarios.includes(doc.scenario)) errors.add('scenario', doc.scenario, 'KnownScenario', `must be one of [${ctx.scenarios.join(', ')}]`)
  if (doc.partnerId !== partner.id) errors.add('partnerId', doc.partnerId, 'SamePartner', `must be '${partner.id}': a snapshot is restored to the partner it was taken from`)
  if (doc.agents.length > world.limits.maxAgents) errors.add('agents', doc.agents.length, 'MaxAgents', `must have at most ${world.limits.maxAgents} agents (SANDBOX_MAX_AGENTS)`)
  let records = 0
  const agentIds = new Set<string>()
  // a customer the partner could have created under the document's clock or its own is valid (a company
  // registered in 2030 by a partner whose clock is in 2030): the latest of their todays and real time
  const now = Math.max(Date.now(), partner.now(), clockNow(doc.sandbox.clock))
  doc.agents.forEach((a, i) => {
    const at = `agents[${i}]`
    if (!a.id.startsWith(String(partner.number)) || a.id.length !== String(partner.number).length + 3) errors.add(`${at}.id`, a.id, 'AgentOfPartner', `must be the partner number ${partner.number} followed by three digits`)
    else if (agentIds.has(a.id)) errors.add(`${at}.id`, a.id, 'Unique', 'must not repeat an agent id')
    else if (world.ownerOfAgent(a.id) !== undefined && world.ownerOfAgent(a.id) !== partner) errors.add(`${at}.id`, a.id, 'AgentOfPartner', 'belongs to another partner')
    agentIds.add(a.id)
    records += a.customers.length + a.accounts.length + a.beneficiaries.length + a.messages.length
    const ids = new Set<string>()
    const claim = (id: string, kind: keyof typeof KIND, field: string): void => {
      if (!id.startsWith(`${a.id}${KIND[kind]}`) || id.length !== a.id.length + 9) errors.add(field, id, 'IdScheme', `must be the agent id ${a.id}, the digit ${KIND[kind]} and 8 digits`)
      else if (ids.has(id)) errors.add(field, id, 'Unique', `must not repeat the id ${id}`)
      ids.add(id)
    }
    const customers = new Set(a.customers.map((c) => c.customerId))
    const known = (id: string, field: string): void => { if (!customers.has(id)) errors.add(field, id, 'KnownCustomer', `must be a customer of agent ${a.id} in ${at}.customers`) }
    a.customers.forEach((c, j) => {
      claim(c.customerId, 'customer', `${at}.customers[${j}].customerId`)
      for (const e of customerRules(c, ctx.reference, now)) errors.add(`${at}.customers[${j}].${e.field}`, e.rejectedValue, e.code, e.defaultMessage)
    })
    const numbers = new Set<string>()
    a.accounts.forEach((acc, j) => {
      claim(acc.id, 'account', `${at}.accounts[${j}].id`)
      if (numbers.has(acc.number)) errors.add(`${at}.accounts[${j}].number`, acc.number, 'Unique', 'must not repeat an account number')
      numbers.add(acc.number)
      if (acc.agentId !== Number(a.id)) errors.add(`${at}.accounts[${j}].agentId`, acc.agentId, 'SameAgent', `must be ${a.id}`)
      acc.customers.forEach((h, k) => known(h.customerId, `${at}.accounts[${j}].customers[${k}].customerId`))
    })
    a.beneficiaries.forEach((b, j) => {
      claim(b.beneficiaryId, 'beneficiary', `${at}.beneficiaries[${j}].beneficiaryId`)
      known(b.customerId, `${at}.beneficiaries[${j}].customerId`)
    })
    a.messages.forEach((m, j) => {
      claim(m.id, 'message', `${at}.messages[${j}].id`)
      known(m.customerId, `${at}.messages[${j}].customerId`)
    })
  })
  // guarantees count as records (store/partner.ts recordCount)
  if (records + doc.guarantees.length > world.limits.maxRecords) errors.add('agents', records + doc.guarantees.length, 'MaxRecords', `must hold at most ${world.limits.maxRecords} records (SANDBOX_MAX_RECORDS), guarantees included`)
  const guarantees = new Set<string>()
  doc.guarantees.forEach((g, i) => {
    const owner = world.ownerOfGuarantee(g.guaranteeId)
    if (guarantees.has(g.guaranteeId)) errors.add(`guarantees[${i}].guaranteeId`, g.guaranteeId, 'Unique', 'must not repeat a guarantee id')
    else if (owner !== undefined && owner !== partner) errors.add(`guarantees[${i}].guaranteeId`, g.guaranteeId, 'GuaranteeOfPartner', 'belongs to another partner')
    guarantees.add(g.guaranteeId)
  })
  return errors.list
}

/**
 * The partner with the document's state (its identity, users and credentials stay), or a 400 naming
 * every problem; nothing changes until the caller puts the result in the world.
 */
export function partnerFromDocument (doc: SnapshotDocument, partner: Partner, world: World, ctx: SnapshotContext): PartnerSnapshot {
  const found = problems(doc, partner, world, ctx)
  if (found.length > 0) throw validationFailed('snapshot', found)
  const current = partner.snapshot()
  return { ...current, scenario: doc.scenario, seed: doc.seed, guaranteeSeq: doc.guaranteeSeq, guarantees: doc.guarantees, agents: doc.agents, sandbox: doc.sandbox }
}
