import { notFound } from '../errors.js'
import type { Paging } from '../schemas/common.js'
import type { BeneficiaryCreateRequest } from '../schemas/beneficiaries.js'
import type { Reference } from '../schemas/reference.js'
import type { AgentStore } from './agent.js'
import { intern } from './intern.js'
import { pageOf } from './paging.js'
import { compact, type StoredBeneficiary } from './records.js'
import type { ChangeContext, Tenant, World } from './world.js'

/**
 * spec 4.7: the stored beneficiary echoes the request and adds beneficiaryId, bankName and branchName;
 * branchCode defaults to the bank's default branch. The rule KnownBank has already checked bankCode.
 */
export function buildBeneficiary (agent: AgentStore, ref: Reference, customerId: string, req: BeneficiaryCreateRequest, beneficiaryId = agent.nextId('beneficiary')): StoredBeneficiary {
  const bank = ref.banksById.get(req.bankCode)!
  const branchCode = req.branchCode ?? bank.defaultBranchCode
  return compact<StoredBeneficiary>({
    beneficiaryId,
    name: req.name,
    bankCode: bank.id,
    bankName: bank.shortName,
    branchCode,
    branchName: branchCode === bank.defaultBranchCode ? bank.defaultBranchName : `${bank.shortName} BRANCH ${branchCode}`,
    accountType: req.accountType,
    accountNumber: req.accountNumber,
    beneficiaryReference: req.beneficiaryReference,
    clientReference: req.clientReference,
    accountCategory: req.accountCategory,
    customerId
  })
}

export const beneficiaryChanges = {
  'beneficiaries.create' ({ world, partner, agent }: ChangeContext, a: { agentId: string, customerId: string, req: BeneficiaryCreateRequest }): StoredBeneficiary {
    const store = agent(a.agentId)
    const customer = store.customer(a.customerId)
    if (customer === undefined) throw notFound('Customer', a.customerId)
    world.ensureRoom(partner, 1)
    // the customer's own id string, and one copy of each text that repeats, as for messages (store/messages.ts)
    const req = { ...a.req, name: intern(a.req.name), beneficiaryReference: intern(a.req.beneficiaryReference), clientReference: intern(a.req.clientReference), accountCategory: intern(a.req.accountCategory) }
    const beneficiary = buildBeneficiary(store, world.reference, customer.customerId, req)
    store.addBeneficiary(beneficiary)
    return beneficiary
  }
}

export function beneficiariesRepo (world: World) {
  return {
    list (tenant: Tenant, customerId: string, paging: Paging) {
      return pageOf(world.resolveCustomer(tenant, customerId).agent.beneficiariesOf(customerId), paging)
    },

    findById (tenant: Tenant, customerId: string, beneficiaryId: string): StoredBeneficiary {
      const beneficiary = world.resolveCustomer(tenant, customerId).agent.beneficiary(beneficiaryId)
      if (beneficiary?.customerId !== customerId) throw notFound('Beneficiary', beneficiaryId)
      return beneficiary
    },

    create (tenant: Tenant, customerId: string, req: BeneficiaryCreateRequest) {
      return world.perform<StoredBeneficiary>(tenant.partnerId, 'beneficiaries.create', { agentId: tenant.agentId, customerId, req })
    }
  }
}
