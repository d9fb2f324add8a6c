import type { AgentSnapshot, RecordKind, Sequences, StoredAccount, StoredBeneficiary, StoredCustomer, StoredMessage } from './records.js'

// Ids are the agent id, a digit for the kind of record and an 8-digit sequence: unique across the whole
// sandbox (agent ids are), within the spec's digit limits (accountId <= 16, customerId <= 19), and the
// same again after a reset of the agent.
const KIND_DIGIT: Record<RecordKind, string> = { customer: '1', account: '2', beneficiary: '3', message: '4' }

/** Puts next where old stands in a list (records are immutable: a change is a new object in the old one's place). */
function swap<V> (list: V[] | undefined, old: V, next: V): void {
  const i = list === undefined ? -1 : list.lastIndexOf(old)
  if (i !== -1) list![i] = next
}

function push<K, V> (map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
}

/**
 * One agent's records with the indexes that keep every read and every page O(page size):
 * lists are arrays in creation order, lookups are maps.
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
  readonly customers: StoredCustomer[]
  readonly accounts: StoredAccount[]
  readonly beneficiaries: StoredBeneficiary[]
  readonly messages: StoredMessage[]

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
    this.name = snapshot.name
    this.fresh = snapshot.fresh
    this.like = snapshot.like
    this.scenario = snapshot.scenario
    this.seed = snapshot.seed
    this.seq = { ...snapshot.seq }
    this.customers = []
    this.accounts = []
    this.beneficiaries = []
    this.messages = []
    for (const c of snapshot.customers) this.addCustomer(c)
    for (const a of snapshot.accounts) this.addAccount(a)
    for (const b of snapshot.beneficiaries) this.addBeneficiary(b)
    for (const m of snapshot.messages) this.addMessage(m)
  }

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
      customers: this.customers,
      accounts: this.accounts,
      beneficiaries: this.beneficiaries,
      messages: this.messages
    }
  }

  /**
   * The next id of a kind. The sequence is always past every id of the kind the agent holds (see
   * noteId: hand-written records come first and follow the same scheme), so the id is free.
   */
  nextId (kind: RecordKind): string {
    this.seq[kind] += 1
    return `${this.id}${KIND_DIGIT[kind]}${String(this.seq[kind]).padStart(8, '0')}`
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
    this.customers.push(c)
    this.customerById.set(c.customerId, c)
    this.noteId('customer', c.customerId)
  }

  addAccount (a: StoredAccount): void {
    this.accounts.push(a)
    this.accountById.set(a.id, a)
    this.noteId('account', a.id)
    this.accountNumbers.add(a.number)
    for (const holder of a.customers) push(this.accountsByCustomer, holder.customerId, a)
  }

  addBeneficiary (b: StoredBeneficiary): void {
    this.beneficiaries.push(b)
    this.beneficiaryById.set(b.beneficiaryId, b)
    this.noteId('beneficiary', b.beneficiaryId)
    push(this.beneficiariesByCustomer, b.customerId, b)
  }

  addMessage (m: StoredMessage): void {
    this.messages.push(m)
    this.noteId('message', m.id)
    push(this.messagesByCustomer, m.customerId, m)
  }

  /** A changed customer record (same id) in the place of the stored one: lists keep their order. */
  replaceCustomer (next: StoredCustomer): void {
    const old = this.customerById.get(next.customerId)
    if (old === undefined) throw new Error(`no customer ${next.customerId}`)
    swap(this.customers, old, next)
    this.customerById.set(next.customerId, next)
  }

  /** A changed account (same id, same holders) in the place of the stored one. */
  replaceAccount (next: StoredAccount): void {
    const old = this.accountById.get(next.id)
    if (old === undefined) throw new Error(`no account ${next.id}`)
    swap(this.accounts, old, next)
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
