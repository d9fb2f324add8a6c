import { AgentStore } from './agent.js'
import type { AgentSnapshot, Guarantee, PartnerSnapshot, PublicClient, TestUser } from './records.js'
import { clockNow } from '../clock.js'
import { PARTNER_FILE_FORMAT } from './records.js'
import { initialSandboxState, type PartnerSandboxState } from '../schemas/sandbox-state.js'
import { hasTokenState, initialTokenState, type PartnerTokenState } from './token-state.js'

/** A partner (OAuth client) with its agents, test users and guarantees. */
export class Partner {
  readonly id: string
  readonly number: number
  readonly name: string
  /** The client secret's hash and, during a rotation's overlap, the one before (store/credentials.ts). */
  secretHash: string
  previousSecretHash: string | undefined
  previousSecretUntil: number | undefined
  suspended: boolean
  readonly redirectUris: string[]
  readonly publicClients: PublicClient[]
  readonly registered: boolean
  scenario: string
  seed: number
  users: TestUser[]
  guaranteeSeq: number
  readonly guarantees: Map<string, Guarantee>
  readonly agents: Map<string, AgentStore>
  /** Fault rules and clock: the partner's own sandbox state (a reset builds a partner without them). */
  sandbox: PartnerSandboxState
  /** Revoked access tokens (store/tokens.ts): kept over resets and restores, unlike the sandbox state. */
  tokens: PartnerTokenState

  constructor (s: PartnerSnapshot) {
    this.id = s.id
    this.number = s.number
    this.name = s.name
    this.secretHash = s.secretHash
    this.previousSecretHash = s.previousSecretHash
    this.previousSecretUntil = s.previousSecretUntil
    this.suspended = s.suspended ?? false
    this.redirectUris = s.redirectUris
    this.publicClients = s.publicClients ?? []
    this.registered = s.registered
    this.scenario = s.scenario
    this.seed = s.seed
    this.users = s.users
    this.guaranteeSeq = s.guaranteeSeq
    this.guarantees = new Map(s.guarantees.map((g) => [g.guaranteeId, g]))
    this.agents = new Map(s.agents.map((a) => [a.id, new AgentStore(a)]))
    // a snapshot read as Jackson reads JSON carries no clock for real time: null, as a fresh partner has it
    this.sandbox = s.sandbox === undefined ? initialSandboxState() : { ...s.sandbox, clock: s.sandbox.clock ?? null }
    this.tokens = s.tokens ?? initialTokenState()
  }

  /** What SANDBOX_MAX_RECORDS counts: every agent's records and the partner's guarantees (made through the control API). */
  get recordCount (): number {
    let n = this.guarantees.size
    for (const a of this.agents.values()) n += a.recordCount
    return n
  }

  /** Now on the partner's clock (epoch ms): what the dates of its data follow. */
  now (): number {
    return clockNow(this.sandbox.clock)
  }

  user (username: string): TestUser | undefined {
    return this.users.find((u) => u.username === username)
  }

  snapshot (): PartnerSnapshot {
    return {
      format: PARTNER_FILE_FORMAT,
      id: this.id,
      number: this.number,
      name: this.name,
      secretHash: this.secretHash,
      // (absent unless set: a partner file keeps the shape it had)
      ...(this.previousSecretHash === undefined ? {} : { previousSecretHash: this.previousSecretHash, previousSecretUntil: this.previousSecretUntil }),
      ...(this.suspended ? { suspended: true } : {}),
      redirectUris: this.redirectUris,
      publicClients: this.publicClients,
      registered: this.registered,
      scenario: this.scenario,
      seed: this.seed,
      users: this.users,
      guaranteeSeq: this.guaranteeSeq,
      guarantees: [...this.guarantees.values()],
      agents: [...this.agents.values()].map((a) => a.snapshot()),
      sandbox: this.sandbox,
      ...(hasTokenState(this.tokens) ? { tokens: this.tokens } : {})
    }
  }

  agentSnapshots (): AgentSnapshot[] {
    return [...this.agents.values()].map((a) => a.snapshot())
  }
}
