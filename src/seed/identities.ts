import { randomBytes } from 'node:crypto'
import { SandboxError, notFound } from '../errors.js'
import { ClientSecrets, PasswordHashes } from '../store/credentials.js'
import type { Partner } from '../store/partner.js'
import type { PartnerSnapshot, PublicClient } from '../store/records.js'
import type { World } from '../store/world.js'
import { credentialsOf, type AgentSpec, type PartnerIdentity } from './build.js'
import type { LoadedScenario, ScenarioLibrary } from './scenarios.js'

/*
 * Whom rebuilt and new data belongs to. A new agent or partner never takes an id or a partner number that
 * any scenario gives to someone else, so switching scenarios later never collides.
 */

/** What a rebuild keeps of a partner: its credentials and its scenario agents (the caller decides about fresh ones). */
export function identityOf (p: Partner): PartnerIdentity {
  return {
    id: p.id,
    number: p.number,
    name: p.name,
    ...credentialsOf(p),
    redirectUris: p.redirectUris,
    publicClients: p.publicClients,
    registered: p.registered,
    agents: [...p.agents.values()].filter((a) => !a.fresh).map((a) => ({ id: a.id, name: a.name }))
  }
}

/**
 * A partner as its scenario declares it (not registered through the control API), its published secret
 * hashed. (Without the sandbox's secrets: a pepper of this call, for copies whose credentials are replaced by
 * the partner's own before they are kept, as seed/prebuilt.ts's are.)
 */
export function scenarioIdentity (def: LoadedScenario['scenario']['partners'][number], secrets = ClientSecrets.generated()): PartnerIdentity {
  const { secret, users, ...rest } = def
  return { ...rest, secretHash: secrets.hash(secret), redirectUris: def.redirectUris ?? [], registered: false }
}

/** Whether some scenario gives this agent id to another partner. */
function declaredElsewhere (library: ScenarioLibrary, agentId: string, partnerId: string): boolean {
  return library.names().some((n) => library.get(n).scenario.partners.some((p) => p.id !== partnerId && p.agents.some((a) => a.id === agentId)))
}

function nextAgentId (world: World, library: ScenarioLibrary, partner: Partner): string {
  for (let n = 1; n <= 999; n++) {
    const id = `${partner.number}${String(n).padStart(3, '0')}`
    if (!partner.agents.has(id) && world.ownerOfAgent(id) === undefined && !declaredElsewhere(library, id, partner.id)) return id
  }
  throw new SandboxError('SANDBOX_ERR_LIMIT', `Partner '${partner.id}' has no agent ids left`)
}

/**
 * A fresh agent of the partner: the next free id, built like one of the partner's own scenario agents.
 * Another partner's agent is a 404 exactly like one that does not exist (its records must never be copied,
 * and the answer must not tell whether it exists).
 */
export function freshAgentSpec (world: World, library: ScenarioLibrary, partner: Partner, loaded: LoadedScenario, opts: { like?: string, name?: string }): AgentSpec {
  const own = loaded.partners.get(partner.id)?.agents.map((a) => a.id) ?? []
  // a registered partner's agents are no scenario agents: they are built as themselves
  const models = new Set([...own, ...[...partner.agents.values()].filter((a) => !a.fresh).map((a) => a.id)])
  if (opts.like !== undefined && !models.has(opts.like)) throw notFound('Agent', opts.like)
  const id = nextAgentId(world, library, partner)
  return {
    id,
    name: opts.name ?? `FRESH AGENT ${id}`,
    fresh: true,
    // a registered partner's agents are no scenario agents: its first agent is the model then
    like: opts.like ?? own[0] ?? [...partner.agents.values()].find((a) => !a.fresh)?.like ?? id
  }
}

export interface NewPartner { clientId?: string, name?: string, agents?: number, redirectUris?: string[], publicClients?: PublicClient[] }

/** Every client id in use or declared: partners' and their public clients'. */
function clientIdsTaken (world: World, library: ScenarioLibrary): Set<string> {
  const taken = new Set<string>()
  for (const p of world.partners.values()) for (const id of [p.id, ...p.publicClients.map((c) => c.clientId)]) taken.add(id)
  for (const n of library.names()) {
    for (const p of library.get(n).scenario.partners) for (const id of [p.id, ...(p.publicClients ?? []).map((c) => c.clientId)]) taken.add(id)
  }
  return taken
}

/** The least number a registered partner may have: after every one a scenario declares. */
export function leastRegisteredNumber (library: ScenarioLibrary): number {
  return Math.max(1, ...library.names().flatMap((n) => library.get(n).scenario.partners.map((p) => p.number + 1)))
}

/**
 * A partner the operator registers: a free client id, the number given (store: after every one in use or
 * declared), a new secret: kept as its hash, the secret itself answered once (clientSecret).
 */
export function registeredIdentity (world: World, library: ScenarioLibrary, opts: NewPartner, number: number): PartnerIdentity & { clientSecret: string } {
  const id = opts.clientId ?? `partner-${randomBytes(4).toString('hex')}`
  const taken = clientIdsTaken(world, library)
  const publicIds = (opts.publicClients ?? []).map((c) => c.clientId)
  for (const wanted of [id, ...publicIds]) {
    if (taken.has(wanted) || [id, ...publicIds].filter((x) => x === wanted).length > 1) throw new SandboxError('SANDBOX_ERR_CONFLICT', `Client id ${wanted} is taken`)
  }
  const count = opts.agents ?? 1
  const clientSecret = newClientSecret()
  return {
    id,
    number,
    name: opts.name ?? id,
    clientSecret,
    secretHash: world.secrets.hash(clientSecret),
    redirectUris: opts.redirectUris ?? [],
    publicClients: opts.publicClients ?? [],
    registered: true,
    agents: Array.from({ length: count }, (_, i) => ({ id: `${number}${String(i + 1).padStart(3, '0')}`, name: `AGENT ${i + 1} OF ${id.toUpperCase()}` }))
  }
}

/** A client secret the sandbox makes (registration, rotation): 192 random bits, URL-safe. */
export const newClientSecret = (): string => randomBytes(24).toString('base64url')

// the password of every test user of a scenario partner whose published passwords are off: made once per
// process, never shown, so its hash (made once) lets nobody in; a valid hash, so a start never takes it for a
// plain password to migrate
const NOBODYS_PASSWORD = newClientSecret()

/**
 * A partner as built, with none of the secrets and passwords a scenario file publishes (SANDBOX_PUBLISHED_SECRETS
 * =off): a scenario partner whose secret is still a published one gets a random secret nobody is shown (the
 * operator rotates it to learn one); one it has of its own (made so before, or rotated) a reset keeps; its users
 * get a password nobody knows.
 */
export function unpublished (snapshot: PartnerSnapshot, library: ScenarioLibrary, secrets: ClientSecrets, passwords = new PasswordHashes()): PartnerSnapshot {
  if (snapshot.registered) return snapshot
  const published = library.names().flatMap((n) => library.get(n).scenario.partners.filter((p) => p.id === snapshot.id).map((p) => p.secret))
  const isPublished = published.some((secret) => secrets.verify(snapshot.secretHash, secret))
  return {
    ...snapshot,
    secretHash: isPublished ? secrets.hash(newClientSecret()) : snapshot.secretHash,
    users: snapshot.users.map((u) => ({ ...u, passwordHash: passwords.of(NOBODYS_PASSWORD) }))
  }
}
