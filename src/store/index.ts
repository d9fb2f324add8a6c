import { accountStateRepo } from './account-state.js'
import { accountsRepo } from './accounts.js'
import { beneficiariesRepo } from './beneficiaries.js'
import { customersRepo } from './customers.js'
import { guaranteesRepo } from './guarantees.js'
import { messagesRepo } from './messages.js'
import { referenceRepo } from './reference.js'
import { sandboxStateRepo } from './sandbox-state.js'
import type { World } from './world.js'

/** One repository per resource, each taking the tenant first. */
export function createRepos (world: World) {
  return {
    accounts: accountsRepo(world),
    accountState: accountStateRepo(world),
    beneficiaries: beneficiariesRepo(world),
    customers: customersRepo(world),
    guarantees: guaranteesRepo(world),
    messages: messagesRepo(world),
    reference: referenceRepo(world),
    sandboxState: sandboxStateRepo(world)
  }
}

export type Repos = ReturnType<typeof createRepos>
