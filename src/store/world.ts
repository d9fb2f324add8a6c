import { notFound, SandboxError } from '../errors.js'
import type { Reference } from '../schemas/reference.js'
import { AgentStore } from './agent.js'
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
 * Where partners' data goes after a change; a create is answered once commit() resolves. null means
 * nothing to wait for (the memory store): the request then needs no promise at all.
 */
export interface Persistence {
  commit: (partner: Partner) => Promise<void> | null
  remove: (partnerId: string) => Promise<void>
  close: () => Promise<void>
}

const DONE = Promise.resolve()

export const memoryPersistence: Persistence = {
  commit: () => null,
  remove: () => DONE,
  close: () => DONE
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
    private readonly persistence: Persistence = memoryPersistence
  ) {}

  partner (id: string): Partner | undefined {
    return this.partners.get(id)
  }

  /** The partner and agent stores of a tenant; an agent deleted since the request was authorised is a 403. */
  resolve (tenant: Tenant): { partner: Partner, agent: AgentStore } {
    const partner = this.partners.get(tenant.partnerId)
    const agent = partner?.agents.get(tenant.agentId)
    if (partner === undefined || agent === undefined) {
      throw new SandboxError('SANDBOX_ERR_AGENT_FORBIDDEN', `Agent-Id '${tenant.agentId}' is not an agent of client '${tenant.partnerId}'`)
    }
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

  guarantee (id: string): Guarantee | undefined {
    return this.guaranteeOwner.get(id)?.guarantees.get(id)
  }

  ownerOfGuarantee (id: string): Partner | undefined {
    return this.guaranteeOwner.get(id)
  }

  nextPartnerNumber (): number {
    let max = 0
    for (const p of this.partners.values()) max = Math.max(max, p.number)
    return max + 1
  }

  /** Replaces (or adds) a whole partner. Its agent and guarantee ids must not belong to another partner. */
  putPartner (snapshot: PartnerSnapshot): Partner {
    for (const a of snapshot.agents) this.assertAgentFree(a.id, snapshot.id)
    for (const g of snapshot.guarantees) this.assertGuaranteeFree(g.guaranteeId, snapshot.id)
    const old = this.partners.get(snapshot.id)
    if (old !== undefined) this.unindex(old)
    const partner = new Partner(snapshot)
    this.partners.set(partner.id, partner)
    for (const id of partner.agents.keys()) this.agentOwner.set(id, partner)
    for (const id of partner.guarantees.keys()) this.guaranteeOwner.set(id, partner)
    return partner
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

  commit (partner: Partner): Promise<void> | null {
    return this.persistence.commit(partner)
  }

  /** value once the partner's change is committed: at once in memory, after the write with a data dir. */
  committed<T> (partner: Partner, value: T): T | Promise<T> {
    const pending = this.persistence.commit(partner)
    return pending === null ? value : pending.then(() => value)
  }

  forget (partnerId: string): Promise<void> {
    return this.persistence.remove(partnerId)
  }

  close (): Promise<void> {
    return this.persistence.close()
  }

  private assertAgentFree (agentId: string, partnerId: string): void {
    const owner = this.agentOwner.get(agentId)
    if (owner !== undefined && owner.id !== partnerId) {
      throw new SandboxError('SANDBOX_ERR_CONFLICT', `Agent id ${agentId} already belongs to another partner`)
    }
  }

  private assertGuaranteeFree (guaranteeId: string, partnerId: string): void {
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
