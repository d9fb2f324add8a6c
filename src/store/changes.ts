import { accountStateChanges } from './account-state.js'
import { accountChanges } from './accounts.js'
import { beneficiaryChanges } from './beneficiaries.js'
import { credentialChanges } from './partner-credentials.js'
import { customerChanges } from './customers.js'
import { guaranteeChanges } from './guarantees.js'
import { messageChanges } from './messages.js'
import { partnerChanges } from './partners.js'
import { sandboxStateChanges } from './sandbox-state.js'
import { tokenChanges } from './tokens.js'
import type { ChangeRegistry } from './world.js'

/**
 * Every change of a partner's state, by name (World.perform): the names travel between replicas, so a
 * name, once released, keeps its meaning and its arguments (a rolling deploy runs two versions at once).
 */
export const CHANGES: ChangeRegistry = {
  ...customerChanges,
  ...accountChanges,
  ...accountStateChanges,
  ...beneficiaryChanges,
  ...messageChanges,
  ...guaranteeChanges,
  ...sandboxStateChanges,
  ...partnerChanges,
  ...credentialChanges,
  ...tokenChanges
}
