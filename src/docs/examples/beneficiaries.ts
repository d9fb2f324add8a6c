import { beneficiaryRules } from '../../rules/beneficiaries.js'
import { buildBeneficiary } from '../../store/beneficiaries.js'
import type { ExampleContext } from './context.js'
import { pageReply } from '../../store/paging.js'
import { paged } from './responses.js'
import type { OperationsExamples } from './types.js'

/** Examples of spec 4.9-4.11: a customer's beneficiaries, one beneficiary, a new beneficiary. */
export function beneficiaryExamples (c: ExampleContext): OperationsExamples {
  const { kit, reference, repos, tenant, customerId, customerUrl, beneficiary, otherAgent, foreignCustomer } = c
  // the new beneficiary: the first customer's beneficiary, given to the second customer
  const target = c.second.customerId
  const targetUrl = `/api/customers/${target}/beneficiaries`
  const { beneficiaryId: _b, customerId: _c, agentId: _a, ...request } = beneficiary
  const badRequest = { ...request, bankCode: '9999999999' }
  const created = buildBeneficiary(c.freshAgent(), reference, target, request)
  const one = `${customerUrl}/beneficiaries/${beneficiary.beneficiaryId}`
  const foreign = `/api/customers/${foreignCustomer}/beneficiaries`
  return {
    'GET /api/customers/{customerId}/beneficiaries': {
      params: { customerId },
      responses: [
        kit.ok(`${customerUrl}/beneficiaries`, 'BeneficiaryPage', pageReply('beneficiaries', repos.beneficiaries.list(tenant, customerId, paged(''))), `The beneficiaries of customer ${customerId}`),
        kit.sizeError(`${customerUrl}/beneficiaries`),
        kit.notFoundError(foreign, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`),
        ...kit.common(`${customerUrl}/beneficiaries`)
      ]
    },
    'GET /api/customers/{customerId}/beneficiaries/{beneficiaryId}': {
      params: { customerId, beneficiaryId: beneficiary.beneficiaryId },
      responses: [
        kit.ok(one, 'Beneficiary', repos.beneficiaries.findById(tenant, customerId, beneficiary.beneficiaryId), `Beneficiary ${beneficiary.beneficiaryId}`),
        kit.paramError(`${customerUrl}/beneficiaries/B1`, 'beneficiaryId', 'B1', 'numeric value out of bounds (<19 digits>.<0 digits> expected)', 'Digits', 'beneficiaryId is not a number'),
        kit.notFoundError(`${targetUrl}/${beneficiary.beneficiaryId}`, 'Beneficiary', beneficiary.beneficiaryId, `Beneficiary ${beneficiary.beneficiaryId} is not one of customer ${target}`),
        ...kit.common(one)
      ]
    },
    'POST /api/customers/{customerId}/beneficiaries': {
      params: { customerId: target },
      bodies: [
        { name: 'beneficiary', summary: `Beneficiary ${beneficiary.name} for customer ${target}`, value: request },
        { name: 'unknownBank', summary: 'An unknown bankCode (400)', value: badRequest }
      ],
      responses: [
        { ...kit.ok(targetUrl, 'Beneficiary', created, 'The new beneficiary'), request: { method: 'POST', url: targetUrl, body: request } },
        kit.bodyError(targetUrl, 'beneficiaryRequest', badRequest, beneficiaryRules(badRequest, reference), 'An unknown bankCode'),
        kit.notFoundError(foreign, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`, 'POST', request),
        ...kit.common(targetUrl, 'POST', request),
        ...kit.bodyProblems(targetUrl, request)
      ]
    }
  }
}
