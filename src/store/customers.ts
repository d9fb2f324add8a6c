import { notFound, validationFailed } from '../errors.js'
import type { Paging } from '../schemas/common.js'
import type { CustomerCreateRequest, Party } from '../schemas/customers.js'
import type { Reference } from '../schemas/reference.js'
import type { AgentStore } from './agent.js'
import { buildAccount } from './accounts.js'
import { pageOf } from './paging.js'
import { compact, type StoredAccount, type StoredCustomer } from './records.js'
import { todaySast } from '../clock.js'
import type { Tenant, World } from './world.js'

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

    /**
     * State control (issue 11): the KYC status of the default customer, or of otherCustomers[index];
     * a new record object in the old one's place.
     */
    setKyc (tenant: Tenant, customerId: string, kycStatus: boolean, otherIndex?: number): StoredCustomer | Promise<StoredCustomer> {
      const { partner, agent } = world.resolve(tenant)
      const customer = agent.customer(customerId)
      if (customer === undefined) throw notFound('Customer', customerId)
      const others = customer.otherCustomers ?? []
      if (otherIndex !== undefined && otherIndex >= others.length) {
        throw validationFailed('request', [{ field: 'otherCustomer', rejectedValue: otherIndex, code: 'Index', defaultMessage: `must be an index of the customer's otherCustomers (0 to ${others.length - 1}); it has ${others.length}` }])
      }
      const next: StoredCustomer = otherIndex === undefined
        ? { ...customer, defaultCustomer: customer.defaultCustomer === undefined ? undefined : { ...customer.defaultCustomer, kycStatus } }
        : { ...customer, otherCustomers: others.map((p, i) => i === otherIndex ? { ...p, kycStatus } : p) }
      agent.replaceCustomer(compact(next))
      return world.committed(partner, agent.customer(customerId)!)
    },

    create (tenant: Tenant, req: CustomerCreateRequest): StoredCustomer | Promise<StoredCustomer> {
      const { partner, agent } = world.resolve(tenant)
      world.ensureRoom(partner, 2)
      const { customer, account } = buildCustomer(agent, req, world.reference, { openedDate: todaySast(partner.now()) })
      agent.addCustomer(customer)
      if (account !== undefined) agent.addAccount(account)
      return world.committed(partner, customer)
    }
  }
}
