import type { DataValidator } from '../schemas/validation.js'
import { readdirSync, readFileSync } from 'node:fs'
import { accountRules } from '../rules/accounts.js'
import { beneficiaryRules } from '../rules/beneficiaries.js'
import { customerRules } from '../rules/customers.js'
import type { BeneficiaryCreateRequest } from '../schemas/beneficiaries.js'
import type { CustomerCreateRequest } from '../schemas/customers.js'
import type { CustomerMessageRequest } from '../schemas/messages.js'
import { DataError, checkAgainst, failOnRuleErrors } from './check.js'
import type { Reference } from '../schemas/reference.js'
import { checkEverything, type Verified } from './verified.js'
import { ROOT } from '../files.js'
import { ScenarioSchema, type Generate, type PartnerDef, type Scenario } from './scenario-schema.js'

export const SCENARIOS_DIR = new URL('scenarios/', ROOT)

type Entry<T> = T & { agentId: string }
export type CustomerEntry = Entry<CustomerCreateRequest & { customerId: string, defaultAccountNumber?: string }>
export type AccountEntry = NonNullable<Scenario['records']['accounts']>[number]
export type BeneficiaryEntry = Entry<BeneficiaryCreateRequest & { customerId: string, beneficiaryId: string }>
export type MessageEntry = Entry<CustomerMessageRequest & { customerId: string, id: string, dateCreated: string }>

/** The hand-written records of one agent, in file order. */
export interface AgentRecords {
  customers: CustomerEntry[]
  accounts: AccountEntry[]
  beneficiaries: BeneficiaryEntry[]
  messages: MessageEntry[]
}

/** A scenario file that passed every check, with its records grouped by agent. */
export interface LoadedScenario {
  file: string
  /** The file is the one this build checked (seed/verified.ts): its data may come prebuilt (seed/prebuilt.ts). */
  checkedByBuild: boolean
  scenario: Scenario
  partners: Map<string, PartnerDef>
  records: Map<string, AgentRecords>
}

export interface ScenarioSummary {
  name: string
  description: string
  seed: number
  partners: Array<{ id: string, agents: string[], users: string[] }>
}

/** Every scenario of scenarios/, checked at boot: a file the sandbox could not serve stops the start. */
export class ScenarioLibrary {
  private readonly scenarios = new Map<string, LoadedScenario>()

  /** verified: the files the build already checked (seed/verified.ts); they skip the schema and rule checks. */
  constructor (private readonly ajv: DataValidator, private readonly ref: Reference, dir: URL = SCENARIOS_DIR, private readonly verified: Verified = checkEverything) {
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const loaded = this.load(new URL(name, dir), `scenarios/${name}`)
      if (`${loaded.scenario.name}.json` !== name) throw new DataError(`scenarios/${name}: name must be "${name.slice(0, -5)}" (the file name)`)
      this.scenarios.set(loaded.scenario.name, loaded)
    }
  }

  names (): string[] {
    return [...this.scenarios.keys()]
  }

  has (name: string): boolean {
    return this.scenarios.has(name)
  }

  get (name: string): LoadedScenario {
    const s = this.scenarios.get(name)
    if (s === undefined) throw new Error(`unknown scenario ${name}`)
    return s
  }

  summaries (): ScenarioSummary[] {
    return [...this.scenarios.values()].map(({ scenario: s }) => ({
      name: s.name,
      description: s.description,
      seed: s.seed,
      partners: s.partners.map((p) => ({ id: p.id, agents: p.agents.map((a) => a.id), users: (p.users ?? []).map((u) => u.username) }))
    }))
  }

  private load (url: URL, file: string): LoadedScenario {
    let raw: unknown
    let text: string
    try {
      text = readFileSync(url, 'utf8')
      raw = JSON.parse(text)
    } catch (err) {
      throw new DataError(`${file}: cannot be read as JSON (${(err as Error).message})`)
    }
    const checked = this.verified(file, text)
    if (!checked) {
      if (this.ajv.getSchema('Scenario') === undefined) this.ajv.addSchema(ScenarioSchema)
      checkAgainst(this.ajv, 'Scenario', raw, `${file}:`)
    }
    const scenario = raw as Scenario
    return { ...checkReferences(file, scenario, checked ? undefined : { ajv: this.ajv, ref: this.ref }), checkedByBuild: checked }
  }
}

function emptyRecords (): AgentRecords {
  return { customers: [], accounts: [], beneficiaries: [], messages: [] }
}

/**
 * The checks across records: owners exist, ids follow the sandbox scheme and are unique, requests pass the
 * API schemas and rules (those last two with `rules` only: not again for a file the build checked).
 */
function checkReferences (file: string, scenario: Scenario, rules: { ajv: DataValidator, ref: Reference } | undefined): Omit<LoadedScenario, 'checkedByBuild'> {
  const partners = new Map<string, PartnerDef>()
  const agentOwner = new Map<string, string>()
  const numbers = new Set<number>()
  const clientIds = new Set(scenario.partners.map((p) => p.id))
  scenario.partners.forEach((p, i) => {
    const where = `${file}: partners[${i}]`
    if (partners.has(p.id)) throw new DataError(`${where}.id: duplicate partner ${p.id}`)
    if (numbers.has(p.number)) throw new DataError(`${where}.number: duplicate partner number ${p.number}`)
    partners.set(p.id, p)
    numbers.add(p.number)
    ;(p.publicClients ?? []).forEach((c, j) => {
      if (clientIds.has(c.clientId)) throw new DataError(`${where}.publicClients[${j}].clientId: client id ${c.clientId} is used twice`)
      clientIds.add(c.clientId)
    })
    p.agents.forEach((a, j) => {
      if (!a.id.startsWith(String(p.number)) || a.id.length !== String(p.number).length + 3) {
        throw new DataError(`${where}.agents[${j}].id: must be the partner number ${p.number} followed by three digits`)
      }
      if (agentOwner.has(a.id)) throw new DataError(`${where}.agents[${j}].id: duplicate agent ${a.id}`)
      agentOwner.set(a.id, p.id)
    })
  })

  const records = new Map<string, AgentRecords>()
  const ids = new Set<string>()
  const of = (agentId: string, where: string): AgentRecords => {
    if (!agentOwner.has(agentId)) throw new DataError(`${where}.agentId: ${agentId} is not an agent of the scenario`)
    let r = records.get(agentId)
    if (r === undefined) records.set(agentId, r = emptyRecords())
    return r
  }
  const claim = (id: string, agentId: string, kind: string, where: string, field: string): void => {
    // an unknown owner first: otherwise the id scheme check would blame the id for it
    if (!agentOwner.has(agentId)) throw new DataError(`${where}.agentId: ${agentId} is not an agent of the scenario`)
    if (!id.startsWith(`${agentId}${kind}`) || id.length !== agentId.length + 9) {
      throw new DataError(`${where}.${field}: must be the agent id ${agentId}, the digit ${kind} and 8 digits (the sandbox's id scheme)`)
    }
    if (ids.has(id)) throw new DataError(`${where}.${field}: duplicate id ${id}`)
    ids.add(id)
  }
  const customersOf = new Map<string, Set<string>>()
  const { records: r } = scenario

  for (const [i, e] of (r.customers ?? []).entries()) {
    const where = `${file}: records.customers[${i}]`
    if (rules !== undefined) {
      checkAgainst(rules.ajv, 'CustomerCreateRequest', e, where)
      failOnRuleErrors(customerRules(e, rules.ref), where)
    }
    claim(e.customerId, e.agentId, '1', where, 'customerId')
    of(e.agentId, where).customers.push(e as CustomerEntry)
    customersOf.set(e.agentId, (customersOf.get(e.agentId) ?? new Set()).add(e.customerId))
  }
  const hasCustomer = (agentId: string, id: string) => customersOf.get(agentId)?.has(id) === true
  const accountNumbers = new Map<string, string>()
  for (const [i, e] of (r.accounts ?? []).entries()) {
    const where = `${file}: records.accounts[${i}]`
    claim(e.id, e.agentId, '2', where, 'id')
    if (!e.number.startsWith(e.agentId)) throw new DataError(`${where}.number: must start with the agent id ${e.agentId}`)
    if (accountNumbers.has(e.number)) throw new DataError(`${where}.number: duplicate account number ${e.number}`)
    if (!hasCustomer(e.agentId, e.customerId)) throw new DataError(`${where}.customerId: ${e.customerId} is not a customer of agent ${e.agentId} in records.customers`)
    if (rules !== undefined) failOnRuleErrors(accountRules(e, rules.ref), where)
    accountNumbers.set(e.number, e.customerId)
    of(e.agentId, where).accounts.push(e)
  }
  for (const [i, e] of (r.customers ?? []).entries()) {
    if (e.defaultAccountNumber !== undefined && accountNumbers.get(e.defaultAccountNumber) !== e.customerId) {
      throw new DataError(`${file}: records.customers[${i}].defaultAccountNumber: must be the number of an account of records.accounts held by ${e.customerId}`)
    }
  }
  for (const [i, e] of (r.beneficiaries ?? []).entries()) {
    const where = `${file}: records.beneficiaries[${i}]`
    if (rules !== undefined) {
      checkAgainst(rules.ajv, 'BeneficiaryCreateRequest', e, where)
      failOnRuleErrors(beneficiaryRules(e, rules.ref), where)
    }
    claim(e.beneficiaryId, e.agentId, '3', where, 'beneficiaryId')
    if (!hasCustomer(e.agentId, e.customerId)) throw new DataError(`${where}.customerId: ${e.customerId} is not a customer of agent ${e.agentId} in records.customers`)
    of(e.agentId, where).beneficiaries.push(e as BeneficiaryEntry)
  }
  for (const [i, e] of (r.messages ?? []).entries()) {
    const where = `${file}: records.messages[${i}]`
    if (rules !== undefined) checkAgainst(rules.ajv, 'CustomerMessageRequest', e, where)
    claim(e.id, e.agentId, '4', where, 'id')
    if (!hasCustomer(e.agentId, e.customerId)) throw new DataError(`${where}.customerId: ${e.customerId} is not a customer of agent ${e.agentId} in records.customers`)
    of(e.agentId, where).messages.push(e as MessageEntry)
  }
  const guaranteeIds = new Set<string>()
  for (const [i, g] of (r.guarantees ?? []).entries()) {
    const where = `${file}: records.guarantees[${i}]`
    if (!partners.has(g.partnerId)) throw new DataError(`${where}.partnerId: ${g.partnerId} is not a partner of the scenario`)
    if (guaranteeIds.has(g.guaranteeId)) throw new DataError(`${where}.guaranteeId: duplicate guarantee ${g.guaranteeId}`)
    guaranteeIds.add(g.guaranteeId)
  }
  for (const [i, p] of scenario.partners.entries()) {
    for (const [j, u] of (p.users ?? []).entries()) {
      const where = `${file}: partners[${i}].users[${j}]`
      if (agentOwner.get(u.agentId) !== p.id) throw new DataError(`${where}.agentId: ${u.agentId} is not an agent of ${p.id}`)
      for (const id of u.customerIds) {
        if (!hasCustomer(u.agentId, id)) throw new DataError(`${where}.customerIds: ${id} is not a customer of agent ${u.agentId} in records.customers`)
      }
    }
  }
  return { file, scenario, partners, records }
}

/** The generate settings of an agent: the scenario's, overridden by the agent's own. */
export function settingsFor (scenario: Scenario, agentId: string): Generate {
  const def = scenario.partners.flatMap((p) => p.agents).find((a) => a.id === agentId)
  return { ...scenario.generate, ...def?.generate }
}
