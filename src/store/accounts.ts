import { notFound, validationFailed } from '../errors.js'
import type { Paging } from '../schemas/common.js'
import type { AccountCreateRequest } from '../schemas/accounts.js'
import type { Party } from '../schemas/customers.js'
import type { Product } from '../schemas/products.js'
import type { Reference } from '../schemas/reference.js'
import type { AgentStore } from './agent.js'
import { pageOf } from './paging.js'
import { compact, type StoredAccount } from './records.js'
import { todaySast } from '../clock.js'
import type { ChangeContext, Tenant, World } from './world.js'

/** How a party is named on an account: given names and surname for an individual, else the name. */
export function displayName (p: Party): string {
  return p.entityTypeId === '1' && p.name2 !== undefined && p.name2 !== '' ? `${p.name2} ${p.name1}` : p.name1
}

export interface AccountSpec {
  customerId: string
  holder: Party
  product: Product
  openedDate: string
  closedDate?: string
  amount?: number
  id?: string
  number?: string
}

/** A new account at the sandbox's bank (fixtures/banks.json homeBankId) for one holder, balance 0.00 ZAR unless given. */
export function buildAccount (agent: AgentStore, ref: Reference, spec: AccountSpec): StoredAccount {
  const id = spec.id ?? agent.nextId('account')
  const number = spec.number ?? agent.nextAccountNumber()
  const bank = ref.homeBank
  const name = displayName(spec.holder)
  return compact<StoredAccount>({
    id,
    number,
    agentId: agent.numericId,
    bankId: bank.id,
    branchCode: bank.defaultBranchCode,
    accountType: spec.product.accountType,
    customers: [{ customerId: spec.customerId, displayName: name, provider: bank.shortName }],
    label: `${name} - ${spec.product.name}`,
    type: spec.product.name,
    balance: { currency: 'ZAR', amount: spec.amount ?? 0 },
    swiftBic: bank.swiftBic,
    openedDate: spec.openedDate,
    closedDate: spec.closedDate,
    productCode: spec.product.productCode
  })
}

export const accountChanges = {
  'accounts.create' ({ world, partner, now, agent }: ChangeContext, a: { agentId: string, req: AccountCreateRequest }): StoredAccount {
    const store = agent(a.agentId)
    const customer = store.customer(a.req.customerId)
    if (customer?.defaultCustomer === undefined) {
      throw validationFailed('accountCreateRequest', [{
        field: 'customerId',
        rejectedValue: a.req.customerId,
        defaultMessage: "must be the id of one of the agent's customers",
        code: 'CustomerOfAgent'
      }])
    }
    // the rule KnownProduct has already checked productCode (rules/accounts.ts)
    const product = a.req.productCode === undefined ? world.reference.callProduct : world.reference.productsByCode.get(a.req.productCode)!
    world.ensureRoom(partner, 1)
    const account = buildAccount(store, world.reference, { customerId: customer.customerId, holder: customer.defaultCustomer, product, openedDate: todaySast(now) })
    store.addAccount(account)
    return account
  }
}

export function accountsRepo (world: World) {
  return {
    list (tenant: Tenant, paging: Paging, customerId?: string) {
      const agent = world.agentOf(tenant)
      return pageOf(customerId === undefined ? agent.accounts : agent.accountsOf(customerId), paging)
    },

    findById (tenant: Tenant, accountId: string): StoredAccount {
      const account = world.agentOf(tenant).account(accountId)
      if (account === undefined) throw notFound('Account', accountId)
      return account
    },

    create (tenant: Tenant, req: AccountCreateRequest) {
      return world.perform<StoredAccount>(tenant.partnerId, 'accounts.create', { agentId: tenant.agentId, req })
    }
  }
}
