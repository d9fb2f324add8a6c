import type { Partner } from '../store/partner.js'
import type { World } from '../store/world.js'
import type { ScenarioLibrary } from './scenarios.js'

/** A scenario partner's credentials as its scenario file publishes them. */
export interface PublishedCredentials { secret: string, users: Array<{ username: string, password: string }> }

/**
 * What the scenario publishes for this partner (its secret and test passwords: the start banner, the library's
 * partners), while the partner still has that secret; undefined for a registered partner or a rotated secret.
 * The sandbox keeps only hashes (store/credentials.ts): the scenario file is where the values are.
 */
export function publishedCredentials (world: World, library: ScenarioLibrary, partner: Partner): PublishedCredentials | undefined {
  if (partner.registered || !library.has(partner.scenario)) return undefined
  const def = library.get(partner.scenario).scenario.partners.find((p) => p.id === partner.id)
  if (def === undefined || !world.secrets.verify(partner.secretHash, def.secret)) return undefined
  return { secret: def.secret, users: (def.users ?? []).map((u) => ({ username: u.username, password: u.password })) }
}
