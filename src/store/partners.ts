import { notFound, SandboxError } from '../errors.js'
import type { AgentStore } from './agent.js'
import type { Partner } from './partner.js'
import type { AgentSnapshot, PartnerSnapshot } from './records.js'
import { carriedTokenState } from './tokens.js'
import type { ChangeContext, World } from './world.js'

/*
 * Whole partners and agents replaced, added or removed (resets, snapshots, fresh agents): the control API's
 * changes. The new data is built by the caller (seed/control.ts) and carried by the change, so that applying
 * it again elsewhere needs no scenario generator and gives the same records.
 */

/** The records of a built agent that is not stored yet (a stored one knows its recordCount). */
export function recordsOf (a: AgentSnapshot): number {
  return a.customers.length + a.accounts.length + a.beneficiaries.length + a.messages.length
}

/** A reset that shrinks the data is always allowed (even above the limit); one that grows it must fit. */
function ensureGrowth (world: World, partner: Partner, growth: number): void {
  if (growth > 0) world.ensureRoom(partner, growth)
}

/** The agent id a new agent was built with is taken meanwhile (another replica made an agent first): build again. */
export class AgentIdTaken extends SandboxError {
  constructor (agentId: string) {
    super('SANDBOX_ERR_CONFLICT', `Agent id ${agentId} was taken meanwhile`)
  }
}

export const partnerChanges = {
  /**
   * The partner's state replaced by the snapshot. keepFresh: its fresh agents stay as they are when the change
   * applies (parallel CI runs own them), and the partner must not grow past its record limit (the operator's
   * reset of everything may). The partner's revoked tokens stay revoked: no reset or restore brings one back.
   */
  'partners.replace' ({ world, partner, at }: ChangeContext, a: { snapshot: PartnerSnapshot, keepFresh: boolean }): Partner {
    let next: PartnerSnapshot = { ...a.snapshot, tokens: carriedTokenState(partner, at) }
    if (a.keepFresh) {
      const taken = new Set(next.agents.map((x) => x.id))
      const fresh = [...partner.agents.values()].filter((x) => x.fresh && !taken.has(x.id)).map((x) => x.snapshot())
      next = { ...next, agents: [...next.agents, ...fresh] }
      ensureGrowth(world, partner, next.agents.reduce((n, x) => n + recordsOf(x), next.guarantees.length) - partner.recordCount)
    }
    return world.putPartner(next)
  },

  /** A new agent (fresh: within the partner's agent limit) or one agent rebuilt in place. */
  'agents.put' ({ world, partner }: ChangeContext, a: { snapshot: AgentSnapshot, rebuild: boolean }): AgentStore {
    const current = partner.agents.get(a.snapshot.id)
    if (a.rebuild) {
      if (current === undefined) throw notFound('Agent', a.snapshot.id)
      ensureGrowth(world, partner, recordsOf(a.snapshot) - current.recordCount)
    } else {
      if (current !== undefined) throw new AgentIdTaken(a.snapshot.id)
      ensureAgentRoom(world, partner)
      world.ensureRoom(partner, recordsOf(a.snapshot))
    }
    return world.putAgent(partner, a.snapshot)
  },

  'agents.drop' ({ world, partner }: ChangeContext, a: { agentId: string }): null {
    const agent = partner.agents.get(a.agentId)
    if (agent === undefined) throw notFound('Agent', a.agentId)
    if (!agent.fresh) throw new SandboxError('SANDBOX_ERR_CONFLICT', `Agent ${a.agentId} belongs to the scenario; only fresh agents can be deleted`)
    world.removeAgent(partner, a.agentId)
    return null
  }
}

/** Refuses a new agent past the partner's agent limit. */
export function ensureAgentRoom (world: World, partner: Partner): void {
  if (partner.agents.size >= world.limits.maxAgents) {
    throw new SandboxError('SANDBOX_ERR_LIMIT', `Partner '${partner.id}' has ${partner.agents.size} agents; the limit is ${world.limits.maxAgents}. Delete fresh agents you no longer need.`)
  }
}
