import type { AgentStore } from '../store/agent.js'
import type { Partner } from '../store/partner.js'

/*
 * What the control API answers about a partner or an agent: who it is, what it was built from and how many
 * records it holds, never the records themselves (the bank's API serves those).
 */

export interface AgentSummary {
  agentId: string
  name: string
  fresh: boolean
  like: string
  scenario: string
  seed: number
  customers: number
  accounts: number
  beneficiaries: number
  messages: number
}

export interface PartnerSummary {
  partnerId: string
  name: string
  scenario: string
  seed: number
  agents: AgentSummary[]
  users: string[]
  publicClients: Array<{ clientId: string, redirectUris: string[] }>
  guarantees: number
}

export interface RegisteredPartner {
  clientId: string
  clientSecret: string
  agentIds: string[]
  summary: PartnerSummary
}

export function agentSummary (a: AgentStore): AgentSummary {
  return {
    agentId: a.id,
    name: a.name,
    fresh: a.fresh,
    like: a.like,
    scenario: a.scenario,
    seed: a.seed,
    customers: a.customers.length,
    accounts: a.accounts.length,
    beneficiaries: a.beneficiaries.length,
    messages: a.messages.length
  }
}

export function partnerSummary (p: Partner): PartnerSummary {
  return {
    partnerId: p.id,
    name: p.name,
    scenario: p.scenario,
    seed: p.seed,
    agents: [...p.agents.values()].map(agentSummary),
    users: p.users.map((u) => u.username),
    publicClients: p.publicClients.map((c) => ({ clientId: c.clientId, redirectUris: c.redirectUris })),
    guarantees: p.guarantees.size
  }
}
