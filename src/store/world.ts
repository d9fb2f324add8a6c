import { clockNow } from '../clock.js'
import { notFound, SandboxError } from '../errors.js'
import type { Reference } from '../schemas/reference.js'
import { AgentStore } from './agent.js'
import { ClientSecrets } from './credentials.js'
import { migrateCredentials } from './legacy-credentials.js'
import { Partner } from './partner.js'
import type { AgentSnapshot, Guarantee, PartnerSnapshot } from './records.js'

/** Who is asking: the partner of the token, the agent of the Agent-Id header, the user if any. */
export interface Tenant {
  partnerId: string
  agentId: string
  userId?: string
}

export interface Limits {
  maxRecords: number
  maxAgents: number
}

/**
 * One change of a partner's state, named so that it can be sent elsewhere and applied there again (another
 * replica applies the same changes in the same order, and gets the same state): what it changes is decided
 * by its name, its arguments, the time it was made and the partner's state it meets, nothing else.
 */
export interface Change {
  partnerId: string
  name: string
  args: unknown
  /** Real time (epoch ms) when the change was made: the partner's clock turns it into the partner's now. */
  at: number
}

/** What a change is applied to. */
export interface ChangeContext {
  world: World
  partner: Partner
  /** The change's time on the partner's clock. */
  now: number
  /** The change's real time (fault rules' creation times, token cut-offs). */
  at: number
  /** One of the partner's agents; one deleted meanwhile is a 403, as for a request that names it. */
  agent: (agentId: string) => AgentStore
}

/** What the operator's overview names a partner by: read for every partner without loading any of them. */
export interface PartnerCard {
  id: string
  name: string
  /** Registered through the operator's endpoint (else a partner of a scenario). */
  registered: boolean
}

export const cardOf = (p: Partner): PartnerCard => ({ id: p.id, name: p.name, registered: p.registered })

export type ApplyChange = (ctx: ChangeContext, args: never) => unknown

/** Every change the store knows, by name (store/changes.ts lists them). */
export type ChangeRegistry = Readonly<Record<string, ApplyChange>>

/**
 * Where the partners' state lives (design.md "Many replicas, one sandbox"): in this process (memory, or
 * lowdb files with a data dir), or shared by several replicas (Redis). The routes, rules and seed code
 * talk to the World and never know which.
 */
export interface StateBackend {
  /**
   * Brings the partner here up to date with every change made anywhere before the call (read-your-writes
   * across replicas); null when it always is (a process of its own), so that a read needs no promise.
   */
  sync: (world: World, partnerId: string) => Promise<void> | null
  /** Applies a change (World.apply) and answers its result once it is durable and visible to every reader. */
  perform: (world: World, change: Change) => unknown
  /**
   * A new partner, committed when it resolves: 'new' (registration) refuses one whose id is taken with 409,
   * 'if-absent' (the start scenario's partners) leaves one that exists as it is and answers it.
   */
  putPartner: (world: World, snapshot: PartnerSnapshot, mode: 'new' | 'if-absent') => Promise<Partner>
  /** Every partner id of the sandbox (the operator's list, a reset of everything). */
  partnerIds: (world: World) => string[] | Promise<string[]>
  /** Every partner's card, by id (the operator's overview of thousands of partners: no partner is loaded for it). */
  partnerCards: (world: World) => PartnerCard[] | Promise<PartnerCard[]>
  /** The guarantee of that id, whichever partner owns it (spec 4.13 is public), with its owner current. */
  findGuarantee: (world: World, guaranteeId: string) => Guarantee | undefined | Promise<Guarantee | undefined>
  /** Takes guarantee ids for a partner sandbox-wide: 409 if another partner holds one (none is taken then). */
  claimGuarantees: (world: World, partnerId: string, ids: string[]) => void | Promise<void>
  /** The partner that a client id (a partner's, or one of its public clients') belongs to, current here. */
  findClient: (world: World, clientId: string) => string | undefined | Promise<string | undefined>
  /** A partner number for a new partner: after every one given out, and at least `least`. */
  nextPartnerNumber: (world: World, least: number) => number | Promise<number>
  /** A partner and everything it has, gone for good. */
  removePartner: (world: World, partnerId: string) => Promise<void>
  close: () => Promise<void>
  /** How many partners this process holds besides the shared store (replicas only; for the metrics). */
  partnersHeld?: () => number
}

/**
 * Where a process of its own keeps partners' data after a change; a create is answered once commit()
 * resolves. null means nothing to wait for (the memory store): the request then needs no promise at all.
 */
export interface Persistence {
  commit: (partner: Partner) => Promise<void> | null
  remove: (partnerId: string) => Promise<void>
  close: () => Promise<void>
}

const DONE = Promise.resolve()

const agentForbidden = (partnerId: string, agentId: string): SandboxError =>
  new SandboxError('SANDBOX_ERR_AGENT_FORBIDDEN', `Agent-Id '${agentId}' is not an agent of client '${partnerId}'`)

export const memoryPersistence: Persistence = {
  commit: () => null,
  remove: () => DONE,
  close: () => DONE
}

/** The sandbox in one process: a change is applied at once, then committed (to the data dir, if any). */
export class LocalBackend implements StateBackend {
  constructor (readonly persistence: Persistence = memoryPersistence) {}

  sync (): null {
    return null
  }

  perform (world: World, change: Change): unknown {
    const result = world.apply(change)
    const partner = world.partner(change.partnerId)
    const pending = partner === undefined ? this.persistence.remove(change.partnerId) : this.persistence.commit(partner)
    return pending === null ? result : pending.then(() => result)
  }

  async putPartner (world: World, snapshot: PartnerSnapshot, mode: 'new' | 'if-absent'): Promise<Partner> {
    const existing = world.partner(snapshot.id)
    if (existing !== undefined) {
      if (mode === 'if-absent') return existing
      throw new SandboxError('SANDBOX_ERR_CONFLICT', `Client id ${snapshot.id} is taken`)
    }
    const partner = world.putPartner(snapshot)
    await this.persistence.commit(partner)
    return partner
  }

  partnerIds (world: World): string[] {
    return [...world.partners.keys()]
  }

  partnerCards (world: World): PartnerCard[] {
    return [...world.partners.values()].map(cardOf)
  }

  findGuarantee (world: World, guaranteeId: string): Guarantee | undefined {
    return world.guarantee(guaranteeId)
  }

  claimGuarantees (world: World, partnerId: string, ids: string[]): void {
    for (const id of ids) world.assertGuaranteeFree(id, partnerId)
  }

  findClient (world: World, clientId: string): string | undefined {
    if (world.partner(clientId) !== undefined) return clientId
    for (const p of world.partners.values()) if (p.publicClients.some((c) => c.clientId === clientId)) return p.id
    return undefined
  }

  nextPartnerNumber (world: World, least: number): number {
    let max = 0
    for (const p of world.partners.values()) max = Math.max(max, p.number)
    return Math.max(max + 1, least)
  }

  async removePartner (world: World, partnerId: string): Promise<void> {
    world.removePartner(partnerId)
    await this.persistence.remove(partnerId)
  }

  async close (): Promise<void> {
    await this.persistence.close()
  }
}

/**
 * Every partner of this sandbox, with the sandbox-wide indexes that keep agent ids and guarantee ids
 * unique. Replacing a partner or an agent swaps whole objects, so a reset is atomic for requests
 * running alongside it.
 */
export class World {
  readonly partners = new Map<string, Partner>()
  private readonly agentOwner = new Map<string, Partner>()
  private readonly guaranteeOwner = new Map<string, Partner>()

  constructor (
    readonly reference: Reference,
    readonly limits: Limits,
    private readonly changes: ChangeRegistry,
    readonly backend: StateBackend = new LocalBackend(),
    /** How client secrets are hashed here (store/credential-keys.ts: the pepper of the sandbox). */
    readonly secrets: ClientSecrets = ClientSecrets.generated()
  ) {}

  partner (id: string): Partner | undefined {
    return this.partners.get(id)
  }

  /** See StateBackend.sync: null when the partner is current here already. */
  sync (partnerId: string): Promise<void> | null {
    return this.backend.sync(this, partnerId)
  }

  /**
   * Makes a named change of a partner's state (store/changes.ts) and answers its result: at once in
   * memory, once on disk with a data dir, once every replica can see it with Redis.
   */
  perform<R> (partnerId: string, name: string, args: unknown): R | Promise<R> {
    if (this.changes[name] === undefined) throw new Error(`no change named ${name}`)
    return this.backend.perform(this, { partnerId, name, args, at: Date.now() }) as R | Promise<R>
  }

  /** Applies a change to the partner as it stands here: what every backend does, in the order of the changes. */
  apply (change: Change): unknown {
    const partner = this.partners.get(change.partnerId)
    if (partner === undefined) throw notFound('Partner', change.partnerId)
    const apply = this.changes[change.name] as ((ctx: ChangeContext, args: unknown) => unknown) | undefined
    if (apply === undefined) throw new Error(`no change named ${change.name}`)
    return apply({
      world: this,
      partner,
      now: clockNow(partner.sandbox.clock, change.at),
      at: change.at,
      agent: (agentId) => {
        const agent = partner.agents.get(agentId)
        if (agent === undefined) throw agentForbidden(partner.id, agentId)
        return agent
      }
    }, change.args)
  }

  /** The partner and agent stores of a tenant; an agent deleted since the request was authorised is a 403. */
  resolve (tenant: Tenant): { partner: Partner, agent: AgentStore } {
    const partner = this.partners.get(tenant.partnerId)
    const agent = partner?.agents.get(tenant.agentId)
    if (partner === undefined || agent === undefined) throw agentForbidden(tenant.partnerId, tenant.agentId)
    return { partner, agent }
  }

  /** The stores of a tenant for a path under /customers/{customerId}: an unknown customer is a 404. */
  resolveCustomer (tenant: Tenant, customerId: string): { partner: Partner, agent: AgentStore } {
    const stores = this.resolve(tenant)
    if (stores.agent.customer(customerId) === undefined) throw notFound('Customer', customerId)
    return stores
  }

  agentOf (tenant: Tenant): AgentStore {
    return this.resolve(tenant).agent
  }

  ownerOfAgent (agentId: string): Partner | undefined {
    return this.agentOwner.get(agentId)
  }

  /** See StateBackend.partnerCards. */
  partnerCards (): PartnerCard[] | Promise<PartnerCard[]> {
    return this.backend.partnerCards(this)
  }

  /** See StateBackend.findClient. */
  findClient (clientId: string): string | undefined | Promise<string | undefined> {
    return this.backend.findClient(this, clientId)
  }

  /** See StateBackend.findGuarantee. */
  findGuarantee (id: string): Guarantee | undefined | Promise<Guarantee | undefined> {
    return this.backend.findGuarantee(this, id)
  }

  /** See StateBackend.claimGuarantees. */
  claimGuarantees (partnerId: string, ids: string[]): void | Promise<void> {
    return this.backend.claimGuarantees(this, partnerId, ids)
  }

  /** The guarantee among the partners here. */
  guarantee (id: string): Guarantee | undefined {
    return this.guaranteeOwner.get(id)?.guarantees.get(id)
  }

  ownerOfGuarantee (id: string): Partner | undefined {
    return this.guaranteeOwner.get(id)
  }

  /** Replaces (or adds) a whole partner. Its agent and guarantee ids must not belong to another partner. */
  putPartner (snapshot: PartnerSnapshot): Partner {
    for (const a of snapshot.agents) this.assertAgentFree(a.id, snapshot.id)
    for (const g of snapshot.guarantees) this.assertGuaranteeFree(g.guaranteeId, snapshot.id)
    const old = this.partners.get(snapshot.id)
    if (old !== undefined) this.unindex(old)
    // (a partner kept before credentials were hashed: hashed here, whichever store it came from)
    migrateCredentials(snapshot, this.secrets)
    const partner = new Partner(snapshot)
    this.partners.set(partner.id, partner)
    for (const id of partner.agents.keys()) this.agentOwner.set(id, partner)
    for (const id of partner.guarantees.keys()) this.guaranteeOwner.set(id, partner)
    return partner
  }

  /**
   * A partner as another replica made it (its snapshot in the shared store): the indexes follow it even
   * where a partner held here says otherwise (one removed meanwhile that this replica has not heard of).
   */
  adoptPartner (snapshot: PartnerSnapshot): Partner {
    for (const a of snapshot.agents) this.agentOwner.delete(a.id)
    for (const g of snapshot.guarantees) this.guaranteeOwner.delete(g.guaranteeId)
    return this.putPartner(snapshot)
  }

  removePartner (id: string): void {
    const old = this.partners.get(id)
    if (old === undefined) return
    this.unindex(old)
    this.partners.delete(id)
  }

  /** Replaces (or adds) one agent of a partner, leaving the partner's other agents as they are. */
  putAgent (partner: Partner, snapshot: AgentSnapshot): AgentStore {
    this.assertAgentFree(snapshot.id, partner.id)
    const agent = new AgentStore(snapshot)
    partner.agents.set(agent.id, agent)
    this.agentOwner.set(agent.id, partner)
    return agent
  }

  removeAgent (partner: Partner, agentId: string): void {
    partner.agents.delete(agentId)
    if (this.agentOwner.get(agentId) === partner) this.agentOwner.delete(agentId)
  }

  putGuarantee (partner: Partner, g: Guarantee): void {
    this.assertGuaranteeFree(g.guaranteeId, partner.id)
    partner.guarantees.set(g.guaranteeId, g)
    this.guaranteeOwner.set(g.guaranteeId, partner)
  }

  /** Refuses a write that would take a partner past its record limit (a shared sandbox stays usable). */
  ensureRoom (partner: Partner, adding: number): void {
    if (partner.recordCount + adding > this.limits.maxRecords) {
      throw new SandboxError('SANDBOX_ERR_LIMIT',
        `Partner '${partner.id}' holds ${partner.recordCount} records; the limit is ${this.limits.maxRecords}. ` +
        'Reset to a scenario (POST /__sandbox/reset) or delete fresh agents to make room.')
    }
  }

  close (): Promise<void> {
    return this.backend.close()
  }

  private assertAgentFree (agentId: string, partnerId: string): void {
    const owner = this.agentOwner.get(agentId)
    if (owner !== undefined && owner.id !== partnerId) {
      throw new SandboxError('SANDBOX_ERR_CONFLICT', `Agent id ${agentId} already belongs to another partner`)
    }
  }

  assertGuaranteeFree (guaranteeId: string, partnerId: string): void {
    const owner = this.guaranteeOwner.get(guaranteeId)
    if (owner !== undefined && owner.id !== partnerId) {
      throw new SandboxError('SANDBOX_ERR_CONFLICT', `Guarantee ${guaranteeId} already exists`)
    }
  }

  private unindex (partner: Partner): void {
    for (const id of partner.agents.keys()) if (this.agentOwner.get(id) === partner) this.agentOwner.delete(id)
    for (const id of partner.guarantees.keys()) if (this.guaranteeOwner.get(id) === partner) this.guaranteeOwner.delete(id)
  }
}
