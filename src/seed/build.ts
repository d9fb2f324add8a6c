import type { DataValidator } from '../schemas/validation.js'
import { AgentStore } from '../store/agent.js'
import { buildAccount } from '../store/accounts.js'
import { buildBeneficiary } from '../store/beneficiaries.js'
import { displayName } from '../store/accounts.js'
import { buildCustomer, normaliseParty } from '../store/customers.js'
import { buildMessage } from '../store/messages.js'
import { guaranteeIdOf } from '../store/guarantees.js'
import { PasswordHashes } from '../store/credentials.js'
import type { AgentSnapshot, Guarantee, PartnerSnapshot, TestUser } from '../store/records.js'
import { compact, PARTNER_FILE_FORMAT } from '../store/records.js'
import type { Party } from '../schemas/customers.js'
import { checkAgainst } from './check.js'
import { hashSeed, loadFaker, seededFaker } from './faker.js'
import type { Reference } from '../schemas/reference.js'
import { Generator as RecordGenerator } from './generators.js'
import type { PartnerDef } from './scenario-schema.js'
import { settingsFor, type AgentRecords, type LoadedScenario } from './scenarios.js'

export interface BuildContext {
  reference: Reference
  validator: DataValidator
  /** The scenario users' password hashes, made once per password (store/credentials.ts); else each build hashes them again. */
  passwords?: PasswordHashes
}

export interface AgentSpec {
  id: string
  name: string
  fresh: boolean
  /** Build the agent as this scenario agent (its settings, seed and hand-written records, ids re-prefixed). */
  like?: string
}

/** What a partner keeps across resets: identity and credentials (and, for registered partners, its agents). */
export type PartnerIdentity = Pick<PartnerSnapshot, 'id' | 'number' | 'name' | CredentialField | 'redirectUris' | 'publicClients' | 'registered'> & {
  agents: Array<{ id: string, name: string }>
}

type CredentialField = 'secretHash' | 'previousSecretHash' | 'previousSecretUntil' | 'suspended'

/**
 * The client credentials and standing of an identity, as its partner keeps them: a reset or a rebuilt copy
 * (seed/prebuilt.ts) keeps what the operator made of them (a rotated secret, a suspension), never the scenario's.
 */
export function credentialsOf (identity: { secretHash: string, previousSecretHash?: string, previousSecretUntil?: number, suspended?: boolean }): Pick<PartnerSnapshot, CredentialField> {
  return compact({
    secretHash: identity.secretHash,
    previousSecretHash: identity.previousSecretHash,
    previousSecretUntil: identity.previousSecretUntil,
    suspended: identity.suspended === true ? true : undefined
  })
}

/** A scenario's test users as a partner keeps them: their passwords hashed. */
function usersOf (ctx: BuildContext, def: PartnerDef | undefined): TestUser[] {
  const passwords = ctx.passwords ?? new PasswordHashes()
  return (def?.users ?? []).map(({ password, ...u }) => ({ ...u, customerIds: [...u.customerIds], passwordHash: passwords.of(password) }))
}

const ZERO_SEQ = { customer: 0, account: 0, beneficiary: 0, message: 0 }

/**
 * Building is one piece of code that pauses (yields) every STEP records: run straight through at start
 * and in tests (buildAgent, buildPartner), or with the event loop served between pauses while the
 * sandbox is running (buildAgentAsync, buildPartnerAsync), so that a partner resetting to the large
 * scenario does not stall every other partner's requests for seconds.
 */
type Steps<T> = Generator<void, T, void>
const STEP = 1000

function runThrough<T> (steps: Steps<T>): T {
  for (;;) {
    const r = steps.next()
    if (r.done === true) return r.value
  }
}

async function runCooperatively<T> (steps: Steps<T>): Promise<T> {
  for (;;) {
    const r = steps.next()
    if (r.done === true) return r.value
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** The records of one agent at the start of a scenario: hand-written first, then generated from the seed. */
export function buildAgent (ctx: BuildContext, loaded: LoadedScenario, seed: number, spec: AgentSpec): AgentSnapshot {
  return runThrough(agentSteps(ctx, loaded, seed, spec))
}

export async function buildAgentAsync (ctx: BuildContext, loaded: LoadedScenario, seed: number, spec: AgentSpec): Promise<AgentSnapshot> {
  await loadFaker()
  return await runCooperatively(agentSteps(ctx, loaded, seed, spec))
}

function * agentSteps (ctx: BuildContext, loaded: LoadedScenario, seed: number, spec: AgentSpec): Steps<AgentSnapshot> {
  const { scenario } = loaded
  const like = spec.like ?? spec.id
  const store = new AgentStore({
    id: spec.id,
    name: spec.name,
    fresh: spec.fresh,
    like,
    scenario: scenario.name,
    seed,
    seq: { ...ZERO_SEQ },
    customers: [],
    accounts: [],
    beneficiaries: [],
    messages: []
  })
  const records = loaded.records.get(like)
  if (records !== undefined) {
    const rename = (id: string): string => like === spec.id ? id : `${spec.id}${id.slice(like.length)}`
    addHandWritten(store, records, rename, ctx.reference, scenario.referenceDate)
  }
  const settings = settingsFor(scenario, like)
  const gen = new RecordGenerator(seededFaker(hashSeed(seed, like)), ctx.reference, settings, scenario.referenceDate)
  for (let i = 0; i < settings.customers; i++) {
    addGeneratedCustomer(store, gen)
    if (i % STEP === STEP - 1) yield
  }

  const snapshot = store.snapshot()
  yield * checkRecords(ctx.validator, snapshot, `scenario ${scenario.name}, agent ${spec.id}`)
  return snapshot
}

function addHandWritten (store: AgentStore, records: AgentRecords, rename: (id: string) => string, ref: Reference, referenceDate: string): void {
  const holders = new Map<string, Party>(records.customers.map((c) => [c.customerId, normaliseParty(c.defaultCustomer, ref)]))
  for (const a of records.accounts) {
    store.addAccount(buildAccount(store, ref, {
      id: rename(a.id),
      number: rename(a.number),
      customerId: rename(a.customerId),
      holder: holders.get(a.customerId)!,
      product: ref.productsByCode.get(a.productCode)!,
      openedDate: a.openedDate,
      closedDate: a.closedDate,
      amount: a.amount
    }))
  }
  for (const c of records.customers) {
    const hasOwnAccount = c.defaultAccountNumber !== undefined
    const { customer, account } = buildCustomer(store, { ...c, createCallAccount: hasOwnAccount ? false : c.createCallAccount }, ref, {
      openedDate: referenceDate,
      customerId: rename(c.customerId)
    })
    store.addCustomer(hasOwnAccount ? { ...customer, defaultAccountNumber: rename(c.defaultAccountNumber!) } : customer)
    if (account !== undefined) store.addAccount(account)
  }
  for (const b of records.beneficiaries) {
    store.addBeneficiary(buildBeneficiary(store, ref, rename(b.customerId), b, rename(b.beneficiaryId)))
  }
  for (const m of records.messages) {
    store.addMessage(buildMessage(store, rename(m.customerId), m, m.dateCreated, rename(m.id)))
  }
}

function addGeneratedCustomer (store: AgentStore, gen: RecordGenerator): void {
  const { settings, ref } = gen
  const openedDate = gen.pastDate(5 * 365)
  const { customer, account } = buildCustomer(store, gen.customerRequest(), ref, { openedDate, amount: gen.amount() })
  store.addCustomer(customer)
  if (account !== undefined) store.addAccount(account)
  const holder = customer.defaultCustomer!
  const { customerId } = customer
  for (let i = gen.count(settings.extraAccounts); i > 0; i--) {
    const product = gen.extraProduct()
    const opened = gen.pastDate(5 * 365, openedDate)
    const closedDate = gen.chance(settings.closedAccountShare) ? gen.pastDate(5 * 365, opened) : undefined
    store.addAccount(buildAccount(store, ref, { customerId, holder, product, openedDate: opened, closedDate, amount: closedDate === undefined ? gen.amount() : 0 }))
  }
  for (let i = gen.count(settings.beneficiaries); i > 0; i--) {
    store.addBeneficiary(buildBeneficiary(store, ref, customerId, gen.beneficiaryRequest(displayName(holder))))
  }
  const times = Array.from({ length: gen.count(settings.messages) }, () => gen.pastDateTime(90)).sort()
  for (const time of times) {
    store.addMessage(buildMessage(store, customerId, gen.messageRequest(customer.defaultAccountNumber ?? customerId), time))
  }
}

/** Every record must pass the schema it is served with (design.md): data that could not be served stops the load. */
function * checkRecords (ajv: DataValidator, s: AgentSnapshot, where: string): Steps<void> {
  const lists: Array<[string, Array<Record<string, unknown>>, string, string]> = [
    ['CustomerRecord', s.customers, 'customer', 'customerId'],
    ['Account', s.accounts, 'account', 'id'],
    ['Beneficiary', s.beneficiaries, 'beneficiary', 'beneficiaryId'],
    ['CustomerMessage', s.messages, 'message', 'id']
  ]
  for (const [schemaId, records, kind, idField] of lists) {
    for (let i = 0; i < records.length; i++) {
      checkAgainst(ajv, schemaId, records[i], `${where}: ${kind} ${String(records[i][idField])}`)
      if (i % (10 * STEP) === 10 * STEP - 1) yield
    }
  }
}

function guaranteesFor (loaded: LoadedScenario, partnerId: string, number: number): { guarantees: Guarantee[], seq: number } {
  const { scenario } = loaded
  const guarantees: Guarantee[] = (scenario.records.guarantees ?? [])
    .filter((g) => g.partnerId === partnerId)
    .map((g) => ({ guaranteeId: g.guaranteeId, state: g.state }))
  let seq = 0
  const add = (state: Guarantee['state'], n: number): void => {
    for (let i = 0; i < n; i++) guarantees.push({ guaranteeId: guaranteeIdOf(number, ++seq), state })
  }
  add('VALID', scenario.guarantees.valid)
  add('INVALID', scenario.guarantees.invalid)
  return { guarantees, seq }
}

/**
 * A partner at the start of a scenario. A partner the scenario declares gets the scenario's agents and
 * users; any other (registered) partner keeps its own agents, filled with the scenario's generated data.
 */
export function buildPartner (ctx: BuildContext, loaded: LoadedScenario, seed: number, identity: PartnerIdentity): PartnerSnapshot {
  return runThrough(partnerSteps(ctx, loaded, seed, identity))
}

export async function buildPartnerAsync (ctx: BuildContext, loaded: LoadedScenario, seed: number, identity: PartnerIdentity): Promise<PartnerSnapshot> {
  await loadFaker()
  return await runCooperatively(partnerSteps(ctx, loaded, seed, identity))
}

function * partnerSteps (ctx: BuildContext, loaded: LoadedScenario, seed: number, identity: PartnerIdentity): Steps<PartnerSnapshot> {
  const def = loaded.partners.get(identity.id)
  const agents = def?.agents ?? identity.agents
  const { guarantees, seq } = guaranteesFor(loaded, identity.id, identity.number)
  const built: AgentSnapshot[] = []
  for (const a of agents) built.push(yield * agentSteps(ctx, loaded, seed, { id: a.id, name: a.name, fresh: false }))
  return {
    format: PARTNER_FILE_FORMAT,
    id: identity.id,
    number: def?.number ?? identity.number,
    name: def?.name ?? identity.name,
    ...credentialsOf(identity),
    redirectUris: def?.redirectUris ?? identity.redirectUris,
    publicClients: def?.publicClients ?? identity.publicClients ?? [],
    registered: identity.registered,
    scenario: loaded.scenario.name,
    seed,
    users: usersOf(ctx, def),
    guaranteeSeq: seq,
    guarantees,
    agents: built
  }
}
