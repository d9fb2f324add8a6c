import { SandboxError, notFound, validationFailed } from '../errors.js'
import type { AgentStore } from '../store/agent.js'
import type { Partner } from '../store/partner.js'
import { AgentIdTaken, ensureAgentRoom } from '../store/partners.js'
import type { PartnerSnapshot } from '../store/records.js'
import type { World } from '../store/world.js'
import { buildAgentAsync, buildPartnerAsync, credentialsOf, type BuildContext, type PartnerIdentity } from './build.js'
import { freshAgentSpec, identityOf, leastRegisteredNumber, newClientSecret, unpublished, registeredIdentity, scenarioIdentity, type NewPartner } from './identities.js'
import { Prebuilt } from './prebuilt.js'
import type { LoadedScenario, ScenarioLibrary } from './scenarios.js'
import { agentSummary, partnerSummary, type AgentSummary, type PartnerSummary, type RegisteredPartner } from './summaries.js'

export interface RegisterOptions extends NewPartner { scenario?: string, seed?: number }

/** What the sandbox starts with (the config's scenario options). */
export interface StartOptions {
  scenario: string
  seed?: number
  /** The start scenario's partners are made (SANDBOX_SCENARIO_PARTNERS=on); else only registered partners exist. */
  scenarioPartners?: boolean
  /** Scenario partners accept the secrets and passwords their file publishes (SANDBOX_PUBLISHED_SECRETS=on). */
  publishedSecrets?: boolean
}
/** A rotated client secret, as the operator gets it once. */
export interface RotatedSecret { clientId: string, clientSecret: string, previousSecretValidUntil?: string }

// builds of a fresh agent whose id another replica took meanwhile, before the create is refused
const AGENT_ID_ATTEMPTS = 5

/**
 * Resets, scenario switches, fresh agents and partner registration (the control API of /__sandbox).
 * Each operation builds the new data first, then makes it the partner's in one change (World.perform).
 */
export class ScenarioControl {
  constructor (
    private readonly world: World,
    private readonly library: ScenarioLibrary,
    private readonly ctx: BuildContext,
    private readonly start: StartOptions,
    private readonly prebuilt = new Prebuilt()
  ) {}

  /** A partner at the start of a scenario: as the build made it, when it did (seed/prebuilt.ts), else built now. */
  private async partnerAtStart (loaded: LoadedScenario, seed: number, identity: PartnerIdentity): Promise<PartnerSnapshot> {
    const prebuilt = this.prebuilt.partner(loaded, seed, identity)
    // (the build's copy has credentials of its own making: the partner keeps its own)
    const snapshot = prebuilt === undefined ? await buildPartnerAsync(this.ctx, loaded, seed, identity) : { ...prebuilt, ...credentialsOf(identity) }
    return this.start.publishedSecrets === false ? unpublished(snapshot, this.library, this.world.secrets, this.ctx.passwords) : snapshot
  }

  /** The scenario's partners to make when missing: none when the sandbox runs without them. */
  private declared (loaded: LoadedScenario): LoadedScenario['scenario']['partners'] {
    return this.start.scenarioPartners === false ? [] : loaded.scenario.partners
  }

  /** What else goes with a deleted partner (its named snapshots, its journal), each told by its owner. */
  private readonly forgetters: Array<(partnerId: string) => Promise<void> | void> = []

  whenDeleted (forget: (partnerId: string) => Promise<void> | void): void {
    this.forgetters.push(forget)
  }

  /** What ends when a partner's credentials change, it is suspended or deleted, or its tokens expire: its console sessions. */
  private readonly signOutHooks: Array<(partnerId: string) => Promise<void> | void> = []

  whenSignedOut (hook: (partnerId: string) => Promise<void> | void): void {
    this.signOutHooks.push(hook)
  }

  /** Ends what the partner is signed in to (its console sessions), on every replica. */
  async signOut (partnerId: string): Promise<void> {
    for (const hook of this.signOutHooks) await hook(partnerId)
  }

  /** What starts afresh when a partner's state is replaced (a reset, a snapshot restored): the advisor's findings. */
  private readonly replacedHooks: Array<(partnerId: string) => Promise<void> | void> = []

  whenReplaced (hook: (partnerId: string) => Promise<void> | void): void {
    this.replacedHooks.push(hook)
  }

  // Control operations build their new data while requests are served (the builders yield), so two of
  // them could interleave (two fresh agents taking one id, a reset dropping an agent made meanwhile):
  // they run one after the other instead. They are rare and short; API requests never wait on this.
  private tail: Promise<unknown> = Promise.resolve()

  private async exclusive<T> (operation: () => Promise<T>): Promise<T> {
    const run = this.tail.then(operation, operation)
    this.tail = run.catch(() => {})
    return await run
  }

  scenario (name: string): LoadedScenario {
    if (!this.library.has(name)) {
      throw validationFailed('request', [{ field: 'scenario', rejectedValue: name, code: 'KnownScenario', defaultMessage: `must be one of [${this.library.names().join(', ')}]` }])
    }
    return this.library.get(name)
  }

  /**
   * The seed of a rebuild: the one asked for; else, when a scenario is named, that scenario's; else the
   * one the records were built with (a reset without arguments gives back exactly what there was).
   */
  private seedFor (loaded: LoadedScenario, scenario: string | undefined, seed: number | undefined, current: number): number {
    return seed ?? (scenario === undefined ? current : loaded.scenario.seed)
  }

  /**
   * The world at first start: every partner of the start scenario. With partners already restored from the
   * data dir, only those missing (a crash during the first start, a file removed by hand) are built.
   */
  async loadStart (): Promise<void> {
    const loaded = this.scenario(this.start.scenario)
    const seed = this.start.seed ?? loaded.scenario.seed
    const existing = new Set(await this.world.backend.partnerIds(this.world))
    for (const def of this.declared(loaded)) {
      // (with replicas: made by the first replica to start; the others read it)
      if (existing.has(def.id)) await this.world.sync(def.id)
      else await this.world.backend.putPartner(this.world, await this.partnerAtStart(loaded, seed, scenarioIdentity(def, this.world.secrets)), 'if-absent')
    }
  }

  restore (snapshots: PartnerSnapshot[]): void {
    for (const s of snapshots) this.world.putPartner(s)
  }

  /** The partner as it stands now (with replicas: every change made anywhere applied). */
  private async partner (partnerId: string): Promise<Partner> {
    await this.world.sync(partnerId)
    const p = this.world.partner(partnerId)
    if (p === undefined) throw notFound('Partner', partnerId)
    return p
  }

  /** A partner back to the start of a scenario; its fresh agents stay as they are (parallel CI runs own them). */
  async resetPartner (partnerId: string, scenarioName?: string, seed?: number): Promise<PartnerSummary> {
    return await this.exclusive(async () => await this.reset(partnerId, scenarioName, seed, true))
  }

  private async reset (partnerId: string, scenarioName: string | undefined, seed: number | undefined, keepFresh: boolean): Promise<PartnerSummary> {
    const partner = await this.partner(partnerId)
    const loaded = this.scenario(scenarioName ?? partner.scenario)
    const s = this.seedFor(loaded, scenarioName, seed, partner.seed)
    const snapshot = await this.partnerAtStart(loaded, s, identityOf(partner))
    return await this.replace(partnerId, snapshot, keepFresh)
  }

  private async replace (partnerId: string, snapshot: PartnerSnapshot, keepFresh: boolean): Promise<PartnerSummary> {
    await this.world.claimGuarantees(partnerId, snapshot.guarantees.map((g) => g.guaranteeId))
    const replaced = await this.world.perform<Partner>(partnerId, 'partners.replace', { snapshot, keepFresh })
    for (const hook of this.replacedHooks) await hook(partnerId)
    return partnerSummary(replaced)
  }

  async createAgent (partnerId: string, opts: { scenario?: string, seed?: number, like?: string, name?: string }): Promise<AgentSummary> {
    return await this.exclusive(async () => await this.addAgent(partnerId, opts))
  }

  private async addAgent (partnerId: string, opts: { scenario?: string, seed?: number, like?: string, name?: string }): Promise<AgentSummary> {
    // another replica may take the id this one chose while it builds the agent: then built again with the next
    for (let attempt = 1; ; attempt++) {
      const partner = await this.partner(partnerId)
      ensureAgentRoom(this.world, partner)
      const loaded = this.scenario(opts.scenario ?? partner.scenario)
      // without a scenario, the agent starts like the partner's own agents: same scenario, same seed
      const seed = this.seedFor(loaded, opts.scenario, opts.seed, partner.seed)
      const snapshot = await buildAgentAsync(this.ctx, loaded, seed, freshAgentSpec(this.world, this.library, partner, loaded, opts))
      try {
        return agentSummary(await this.world.perform<AgentStore>(partnerId, 'agents.put', { snapshot, rebuild: false }))
      } catch (err) {
        if (!(err instanceof AgentIdTaken) || attempt === AGENT_ID_ATTEMPTS) throw err
      }
    }
  }

  private agent (partner: Partner, agentId: string): AgentStore {
    const agent = partner.agents.get(agentId)
    if (agent === undefined) throw notFound('Agent', agentId)
    return agent
  }

  /** One agent back to the start of a scenario; the partner's other agents are untouched. */
  async resetAgent (partnerId: string, agentId: string, opts: { scenario?: string, seed?: number }): Promise<AgentSummary> {
    return await this.exclusive(async () => await this.rebuildAgent(partnerId, agentId, opts))
  }

  private async rebuildAgent (partnerId: string, agentId: string, opts: { scenario?: string, seed?: number }): Promise<AgentSummary> {
    const current = this.agent(await this.partner(partnerId), agentId)
    const loaded = this.scenario(opts.scenario ?? current.scenario)
    const seed = this.seedFor(loaded, opts.scenario, opts.seed, current.seed)
    const snapshot = await buildAgentAsync(this.ctx, loaded, seed, { id: agentId, name: current.name, fresh: current.fresh, like: current.like })
    return agentSummary(await this.world.perform<AgentStore>(partnerId, 'agents.put', { snapshot, rebuild: true }))
  }

  async deleteAgent (partnerId: string, agentId: string): Promise<void> {
    await this.exclusive(async () => await this.dropAgent(partnerId, agentId))
  }

  private async dropAgent (partnerId: string, agentId: string): Promise<void> {
    await this.world.perform(partnerId, 'agents.drop', { agentId })
  }

  /**
   * A partner's whole state replaced by one that make() builds from the current partner (a snapshot, checked
   * there: a throw changes nothing). One control operation like the others: no reset or new agent interleaves.
   */
  async replacePartner (partnerId: string, make: (partner: Partner) => PartnerSnapshot | Promise<PartnerSnapshot>): Promise<PartnerSummary> {
    return await this.exclusive(async () => await this.replace(partnerId, await make(await this.partner(partnerId)), false))
  }

  /** Operator: a new partner (OAuth client) with its own agents, filled from a scenario. */
  async registerPartner (opts: RegisterOptions): Promise<RegisteredPartner> {
    return await this.exclusive(async () => await this.register(opts))
  }

  private async register (opts: RegisterOptions): Promise<RegisteredPartner> {
    const loaded = this.scenario(opts.scenario ?? this.start.scenario)
    const number = await this.world.backend.nextPartnerNumber(this.world, leastRegisteredNumber(this.library))
    const identity = registeredIdentity(this.world, this.library, opts, number)
    const snapshot = await buildPartnerAsync(this.ctx, loaded, opts.seed ?? loaded.scenario.seed, identity)
    // a client id registered again after its partner was deleted: the tokens issued to that partner (before
    // this second, as Keycloak's not-before policy counts) are not this partner's
    snapshot.tokens = { revoked: {}, revokedBefore: Math.floor(Date.now() / 1000) }
    const partner = await this.world.backend.putPartner(this.world, snapshot, 'new')
    return { clientId: identity.id, clientSecret: identity.clientSecret, agentIds: identity.agents.map((a) => a.id), summary: partnerSummary(partner) }
  }

  /** Operator: every partner of the sandbox, as it stands now. */
  async everyPartner (): Promise<Partner[]> {
    const ids = await this.world.backend.partnerIds(this.world)
    await Promise.all(ids.map(async (id) => await this.world.sync(id)))
    return ids.map((id) => this.world.partner(id)).filter((p) => p !== undefined)
  }

  /** Operator: a registered partner and everything it has, gone (a scenario's partner cannot be: 409). */
  async deletePartner (partnerId: string): Promise<void> {
    await this.exclusive(async () => {
      const partner = await this.partner(partnerId)
      if (!partner.registered) throw new SandboxError('SANDBOX_ERR_CONFLICT', `Partner ${partnerId} belongs to a scenario; only registered partners can be deleted`)
      await this.world.backend.removePartner(this.world, partnerId)
      for (const forget of this.forgetters) await forget(partnerId)
      await this.signOut(partnerId)
    })
  }

  /**
   * Operator: a new client secret for the partner (the one given, else a new one), answered once. With an
   * overlap, the secret it replaces still works for that many seconds (a rolling change of the partner's
   * systems); without, it stops at once. The partner's console sessions end; its tokens stay valid until they
   * expire, as Keycloak's do when a client secret is regenerated.
   */
  async rotateSecret (partnerId: string, opts: { secret?: string, overlapSeconds?: number }): Promise<RotatedSecret> {
    return await this.exclusive(async () => {
      await this.partner(partnerId)
      const clientSecret = opts.secret ?? newClientSecret()
      const now = Date.now()
      const overlapUntil = opts.overlapSeconds === undefined || opts.overlapSeconds === 0 ? undefined : now + opts.overlapSeconds * 1000
      await this.world.perform(partnerId, 'partners.secret', { secretHash: this.world.secrets.hash(clientSecret), overlapUntil })
      await this.signOut(partnerId)
      return { clientId: partnerId, clientSecret, ...(overlapUntil === undefined ? {} : { previousSecretValidUntil: new Date(overlapUntil).toISOString() }) }
    })
  }

  /**
   * Operator: a partner suspended (its token requests, tokens and console refused; its data kept, on every
   * replica at once) or resumed. Suspending ends its console sessions.
   */
  async suspendPartner (partnerId: string, suspended: boolean): Promise<{ clientId: string, suspended: boolean }> {
    return await this.exclusive(async () => {
      await this.partner(partnerId)
      await this.world.perform(partnerId, 'partners.suspend', { suspended })
      if (suspended) await this.signOut(partnerId)
      return { clientId: partnerId, suspended }
    })
  }

  /** Operator: every partner to the start of one scenario (the start scenario by default); fresh agents go. */
  async resetAll (scenarioName?: string, seed?: number): Promise<PartnerSummary[]> {
    return await this.exclusive(async () => await this.resetEverything(scenarioName, seed))
  }

  private async resetEverything (scenarioName: string | undefined, seed: number | undefined): Promise<PartnerSummary[]> {
    const loaded = this.scenario(scenarioName ?? this.start.scenario)
    const s = this.seedFor(loaded, scenarioName, seed, this.start.seed ?? loaded.scenario.seed)
    const existing = new Set(await this.world.backend.partnerIds(this.world))
    for (const def of this.declared(loaded)) {
      if (!existing.has(def.id)) await this.world.backend.putPartner(this.world, await this.partnerAtStart(loaded, s, scenarioIdentity(def, this.world.secrets)), 'if-absent')
    }
    const out: PartnerSummary[] = []
    for (const id of await this.world.backend.partnerIds(this.world)) out.push(await this.reset(id, loaded.scenario.name, s, false))
    return out
  }
}
