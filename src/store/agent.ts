import type { ListName } from './partner-log.js'
import type { AgentSnapshot, RecordKind, Sequences, StoredAccount, StoredBeneficiary, StoredCustomer, StoredMessage } from './records.js'

// Ids are the agent id, a digit for the kind of record and an 8-digit sequence: unique across the whole
// sandbox (agent ids are), within the spec's digit limits (accountId <= 16, customerId <= 19), and the
// same again after a reset of the agent.
const KIND_DIGIT: Record<RecordKind, string> = { customer: '1', account: '2', beneficiary: '3', message: '4' }
const SEQUENCE_SPAN = 1e8

/**
 * The number an agent's ids are counted from (agent id * 1e9; an id adds kind digit * 1e8 + sequence) when every
 * such id is a safe integer and the agent id is a positive number that reads back as itself (no leading zero);
 * else undefined, and ids are joined as text. The same characters either way, but a number's decimal text is one
 * flat string (32 bytes for 13 digits) where the joined text is a cons string of three objects (80 bytes), and
 * every stored record keeps its id for life: under W2 that was half of what a stored message kept in the heap.
 */
function numericIdBase (id: string): number | undefined {
  const n = Number(id)
  return n > 0 && Number.isSafeInteger((n + 1) * 10 * SEQUENCE_SPAN) && String(n) === id ? n * 10 * SEQUENCE_SPAN : undefined
}

/** Puts next where old stands in a list (records are immutable: a change is a new object in the old one's place); its index, or -1. */
function swap<V> (list: V[] | undefined, old: V, next: V): number {
  const i = list === undefined ? -1 : list.lastIndexOf(old)
  if (i !== -1) list![i] = next
  return i
}

function push<K, V> (map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
}

/**
 * One agent's records with the indexes that keep every read and every page O(page size):
 * lists are arrays in creation order, lookups are maps. The lists change only through the methods below
 * (they are read-only to everyone else), so that the durable writer can be told what changed.
 */
export class AgentStore {
  readonly id: string
  readonly numericId: number
  readonly name: string
  readonly fresh: boolean
  readonly like: string
  readonly scenario: string
  readonly seed: number
  readonly seq: Sequences
  private readonly idBase: number | undefined
  private readonly lists: { customers: StoredCustomer[], accounts: StoredAccount[], beneficiaries: StoredBeneficiary[], messages: StoredMessage[] }
  /**
   * Where records were replaced in place since the durable writer last took them (partner-view.ts): it
   * finds appended records by a list's length and replaced ones here, without comparing whole lists.
   * Kept only while a data dir watches the agent.
   */
  private replaced: Record<ListName, Set<number>> | undefined

  private readonly customerById = new Map<string, StoredCustomer>()
  private readonly accountById = new Map<string, StoredAccount>()
  private readonly accountNumbers = new Set<string>()
  private readonly accountsByCustomer = new Map<string, StoredAccount[]>()
  private readonly beneficiaryById = new Map<string, StoredBeneficiary>()
  private readonly beneficiariesByCustomer = new Map<string, StoredBeneficiary[]>()
  private readonly messagesByCustomer = new Map<string, StoredMessage[]>()

  constructor (snapshot: AgentSnapshot) {
    this.id = snapshot.id
    this.numericId = Number(snapshot.id)
    this.idBase = numericIdBase(snapshot.id)
    this.name = snapshot.name
    this.fresh = snapshot.fresh
    this.like = snapshot.like
    this.scenario = snapshot.scenario
    this.seed = snapshot.seed
    this.seq = { ...snapshot.seq }
    this.lists = { customers: [], accounts: [], beneficiaries: [], messages: [] }
    for (const c of snapshot.customers) this.addCustomer(c)
    for (const a of snapshot.accounts) this.addAccount(a)
    for (const b of snapshot.beneficiaries) this.addBeneficiary(b)
    for (const m of snapshot.messages) this.addMessage(m)
  }

  get customers (): readonly StoredCustomer[] { return this.lists.customers }
  get accounts (): readonly StoredAccount[] { return this.lists.accounts }
  get beneficiaries (): readonly StoredBeneficiary[] { return this.lists.beneficiaries }
  get messages (): readonly StoredMessage[] { return this.lists.messages }

  get recordCount (): number {
    return this.customers.length + this.accounts.length + this.beneficiaries.length + this.messages.length
  }

  snapshot (): AgentSnapshot {
    return {
      id: this.id,
      name: this.name,
      fresh: this.fresh,
      like: this.like,
      scenario: this.scenario,
      seed: this.seed,
      seq: { ...this.seq },
      customers: this.lists.customers,
      accounts: this.lists.accounts,
      beneficiaries: this.lists.beneficiaries,
      messages: this.lists.messages
    }
  }

  /** From now on, the indexes of records replaced in place are kept until takeReplaced (the durable writer's view). */
  watchReplacements (): void {
    this.replaced = { customers: new Set(), accounts: new Set(), beneficiaries: new Set(), messages: new Set() }
  }

  /** The indexes of a list's records replaced in place since the last call (and since watchReplacements). */
  takeReplaced (list: ListName): number[] {
    const indexes = this.replaced?.[list]
    if (indexes === undefined || indexes.size === 0) return []
    const out = [...indexes]
    indexes.clear()
    return out
  }

  /**
   * The next id of a kind. The sequence is always past every id of the kind the agent holds (see
   * noteId: hand-written records come first and follow the same scheme), so the id is free.
   */
  nextId (kind: RecordKind): string {
    const n = this.seq[kind] += 1
    if (this.idBase !== undefined && n < SEQUENCE_SPAN) return String(this.idBase + Number(KIND_DIGIT[kind]) * SEQUENCE_SPAN + n)
    return `${this.id}${KIND_DIGIT[kind]}${String(n).padStart(8, '0')}`
  }

  /** Moves the sequence of a kind past an id of that kind the agent now holds. */
  private noteId (kind: RecordKind, id: string): void {
    if (id.length !== this.id.length + 9 || !id.startsWith(this.id) || id[this.id.length] !== KIND_DIGIT[kind]) return
    const n = Number(id.slice(-8))
    if (n > this.seq[kind]) this.seq[kind] = n
  }

  /** An account number derived from the account sequence: agent id + 7 digits, unique sandbox-wide. */
  nextAccountNumber (): string {
    let n = this.seq.account
    let number: string
    do {
      number = `${this.id}${String(n).padStart(7, '0')}`
      n += 1
    } while (this.accountNumbers.has(number))
    return number
  }

  addCustomer (c: StoredCustomer): void {
    this.lists.customers.push(c)
    this.customerById.set(c.customerId, c)
    this.noteId('customer', c.customerId)
  }

  addAccount (a: StoredAccount): void {
    this.lists.accounts.push(a)
    this.accountById.set(a.id, a)
    this.noteId('account', a.id)
    this.accountNumbers.add(a.number)
    for (const holder of a.customers) push(this.accountsByCustomer, holder.customerId, a)
  }

  addBeneficiary (b: StoredBeneficiary): void {
    this.lists.beneficiaries.push(b)
    this.beneficiaryById.set(b.beneficiaryId, b)
    this.noteId('beneficiary', b.beneficiaryId)
    push(this.beneficiariesByCustomer, b.customerId, b)
  }

  addMessage (m: StoredMessage): void {
    this.lists.messages.push(m)
    this.noteId('message', m.id)
    push(this.messagesByCustomer, m.customerId, m)
  }

  /** A changed customer record (same id) in the place of the stored one: lists keep their order. */
  replaceCustomer (next: StoredCustomer): void {
    const old = this.customerById.get(next.customerId)
    if (old === undefined) throw new Error(`no customer ${next.customerId}`)
    const i = swap(this.lists.customers, old, next)
    if (i !== -1) this.replaced?.customers.add(i)
    this.customerById.set(next.customerId, next)
  }

  /** A changed account (same id, same holders) in the place of the stored one. */
  replaceAccount (next: StoredAccount): void {
    const old = this.accountById.get(next.id)
    if (old === undefined) throw new Error(`no account ${next.id}`)
    const i = swap(this.lists.accounts, old, next)
    if (i !== -1) this.replaced?.accounts.add(i)
    this.accountById.set(next.id, next)
    for (const holder of old.customers) swap(this.accountsByCustomer.get(holder.customerId), old, next)
  }

  customer (id: string): StoredCustomer | undefined {
    return this.customerById.get(id)
  }

  account (id: string): StoredAccount | undefined {
    return this.accountById.get(id)
  }

  hasAccountNumber (number: string): boolean {
    return this.accountNumbers.has(number)
  }

  accountsOf (customerId: string): StoredAccount[] {
    return this.accountsByCustomer.get(customerId) ?? []
  }

  beneficiary (id: string): StoredBeneficiary | undefined {
    return this.beneficiaryById.get(id)
  }

  beneficiariesOf (customerId: string): StoredBeneficiary[] {
    return this.beneficiariesByCustomer.get(customerId) ?? []
  }

  messagesOf (customerId: string): StoredMessage[] {
    return this.messagesByCustomer.get(customerId) ?? []
  }
}
