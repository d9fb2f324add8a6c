import { notFound, validationFailed } from '../errors.js'
import type { Paging } from '../schemas/common.js'
import type { CustomerCreateRequest, Party } from '../schemas/customers.js'
import type { Reference } from '../schemas/reference.js'
import type { AgentStore } from './agent.js'
import { buildAccount } from './accounts.js'
import { pageOf } from './paging.js'
import { compact, type StoredAccount, type StoredCustomer } from './records.js'
import { todaySast } from '../clock.js'
import type { ChangeContext, Tenant, World } from './world.js'

/** Only the Party fields of the spec, with the investment type defaulted to ITF (spec 2.5). */
export function normaliseParty (p: Party, ref: Reference): Party {
  return compact({
    entityTypeId: p.entityTypeId,
    name1: p.name1,
    name2: p.name2,
    mobilePhoneNumber: p.mobilePhoneNumber,
    email: p.email,
    kycStatus: p.kycStatus,
    identifyingNumber: p.identifyingNumber,
    taxNumber: p.taxNumber,
    address: p.address,
    investmentTypeId: p.investmentTypeId ?? ref.defaultInvestmentTypeId
  })
}

/**
 * A new customer record built from a create request (spec 4.8) with its call account unless the
 * deprecated createCallAccount is false. Used by POST /api/customers and by the scenario generators.
 */
export function buildCustomer (agent: AgentStore, req: CustomerCreateRequest, ref: Reference, opts: { openedDate: string, amount?: number, customerId?: string }):
{ customer: StoredCustomer, account?: StoredAccount } {
  const customerId = opts.customerId ?? agent.nextId('customer')
  const defaultCustomer = normaliseParty(req.defaultCustomer, ref)
  let account: StoredAccount | undefined
  if (req.createCallAccount !== false) {
    account = buildAccount(agent, ref, { customerId, holder: defaultCustomer, product: ref.callProduct, openedDate: opts.openedDate, amount: opts.amount })
  }
  const customer = compact<StoredCustomer>({
    customerId,
    defaultAccountNumber: account?.number,
    customerReference: req.customerReference,
    agentReference: req.agentReference,
    adminFeePercent: req.adminFeePercent,
    defaultCustomer,
    otherCustomers: req.otherCustomers?.map((p) => normaliseParty(p, ref))
  })
  return { customer, account }
}

/** The changes of customers (store/changes.ts): made here, and again by every replica that applies them. */
export const customerChanges = {
  'customers.create' ({ world, partner, now, agent }: ChangeContext, a: { agentId: string, req: CustomerCreateRequest }): StoredCustomer {
    const store = agent(a.agentId)
    world.ensureRoom(partner, 2)
    const { customer, account } = buildCustomer(store, a.req, world.reference, { openedDate: todaySast(now) })
    store.addCustomer(customer)
    if (account !== undefined) store.addAccount(account)
    return customer
  },

  /** State control (issue 11): the KYC status of the default customer, or of otherCustomers[index]; a new record in the old one's place. */
  'customers.kyc' ({ agent }: ChangeContext, a: { agentId: string, customerId: string, kycStatus: boolean, otherIndex?: number }): StoredCustomer {
    const store = agent(a.agentId)
    const customer = store.customer(a.customerId)
    if (customer === undefined) throw notFound('Customer', a.customerId)
    const { kycStatus, otherIndex } = a
    const others = customer.otherCustomers ?? []
    if (otherIndex !== undefined && otherIndex >= others.length) {
      throw validationFailed('request', [{ field: 'otherCustomer', rejectedValue: otherIndex, code: 'Index', defaultMessage: `must be an index of the customer's otherCustomers (0 to ${others.length - 1}); it has ${others.length}` }])
    }
    const next: StoredCustomer = otherIndex === undefined
      ? { ...customer, defaultCustomer: customer.defaultCustomer === undefined ? undefined : { ...customer.defaultCustomer, kycStatus } }
      : { ...customer, otherCustomers: others.map((p, i) => i === otherIndex ? { ...p, kycStatus } : p) }
    store.replaceCustomer(compact(next))
    return store.customer(a.customerId)!
  }
}

export function customersRepo (world: World) {
  return {
    list (tenant: Tenant, paging: Paging) {
      return pageOf(world.agentOf(tenant).customers, paging)
    },

    findById (tenant: Tenant, customerId: string): StoredCustomer {
      const customer = world.agentOf(tenant).customer(customerId)
      if (customer === undefined) throw notFound('Customer', customerId)
      return customer
    },

    /** spec 4.11: the customers linked to the token's user, of the acting agent. */
    listOfUser (tenant: Tenant, paging: Paging) {
      const agent = world.agentOf(tenant)
      const user = tenant.userId === undefined ? undefined : world.partner(tenant.partnerId)?.user(tenant.userId)
      const customers = (user?.customerIds ?? []).map((id) => agent.customer(id)).filter((c) => c !== undefined)
      return pageOf(customers, paging)
    },

    setKyc (tenant: Tenant, customerId: string, kycStatus: boolean, otherIndex?: number) {
      return world.perform<StoredCustomer>(tenant.partnerId, 'customers.kyc', { agentId: tenant.agentId, customerId, kycStatus, otherIndex })
    },

    create (tenant: Tenant, req: CustomerCreateRequest) {
      return world.perform<StoredCustomer>(tenant.partnerId, 'customers.create', { agentId: tenant.agentId, req })
    }
  }
}
