import { customerRules } from '../../rules/customers.js'
import { MAX_PAGE_SIZE } from '../../schemas/common.js'
import { buildCustomer } from '../../store/customers.js'
import type { ExampleContext } from './context.js'
import { pageReply } from '../../store/paging.js'
import { paged } from './responses.js'
import type { OperationsExamples } from './types.js'

/** Examples of spec 4.6-4.8 and 4.15: the agent's customers, one customer, a new customer, the user's customers. */
export function customerExamples (c: ExampleContext): OperationsExamples {
  const { kit, reference, repos, tenant, records, first, customerId, customerUrl, otherAgent, foreignCustomer, user } = c
  // a new client: a related party of a fixed record who has no record of its own
  const newParty = records.customers.flatMap((r) => r.otherCustomers ?? [])
    .find((p) => p.entityTypeId === '1' && !records.customers.some((r) => r.defaultCustomer.identifyingNumber === p.identifyingNumber))!
  // a second client of the record: another individual, neither the default customer again nor the client of
  // the Party example (the first customer's), so that each of the three can stand in for another in a request
  const taken = [newParty, first.defaultCustomer].map((p) => p?.identifyingNumber)
  const coClient = [...records.customers.flatMap((r) => r.otherCustomers ?? []), ...repos.customers.list(tenant, { page: 0, size: MAX_PAGE_SIZE }).items.map((r) => r.defaultCustomer)]
    .find((p) => p?.entityTypeId === '1' && !taken.includes(p.identifyingNumber))
  const request = {
    customerReference: `${first.customerReference ?? 'CUST'}-B`,
    agentReference: first.agentReference,
    adminFeePercent: first.adminFeePercent,
    createCallAccount: true,
    defaultCustomer: newParty,
    ...(coClient === undefined ? {} : { otherCustomers: [coClient] })
  }
  // a rule the schema cannot say (the request stays valid JSON Schema: the document stays lintable)
  const idNumber = newParty.identifyingNumber
  const badRequest = { ...request, defaultCustomer: { ...newParty, identifyingNumber: idNumber.slice(0, -1) + String((Number(idNumber.slice(-1)) + 1) % 10) } }
  const created = buildCustomer(c.freshAgent(), request, reference, { openedDate: c.today }).customer
  return {
    'POST /api/customers': {
      bodies: [
        { name: 'individual', summary: `Individual ${newParty.name2 ?? ''} ${newParty.name1}`.replace(/ +/g, ' '), value: request },
        { name: 'badIdNumber', summary: 'A South African ID number with a wrong check digit (400)', value: badRequest }
      ],
      responses: [
        { ...kit.ok('/api/customers', 'CustomerRecord', created, 'The new customer record, with the number of its call account'), request: { method: 'POST', url: '/api/customers', body: request } },
        kit.bodyError('/api/customers', 'customerRequest', badRequest, customerRules(badRequest, reference), 'A wrong check digit in the ID number'),
        ...kit.common('/api/customers', 'POST', request),
        ...kit.bodyProblems('/api/customers', request)
      ]
    },
    'GET /api/customers': {
      responses: [
        kit.ok('/api/customers?size=2', 'CustomerPage', pageReply('customers', repos.customers.list(tenant, paged('size=2'))), 'The first two customers of the agent'),
        kit.sizeError('/api/customers'),
        ...kit.common('/api/customers')
      ]
    },
    'GET /api/customers/{customerId}': {
      params: { customerId },
      responses: [
        kit.ok(customerUrl, 'CustomerRecord', repos.customers.findById(tenant, customerId), `Customer ${customerId}`),
        kit.paramError('/api/customers/ABC', 'customerId', 'ABC', 'numeric value out of bounds (<19 digits>.<0 digits> expected)', 'Digits', 'customerId is not a number'),
        kit.notFoundError(`/api/customers/${foreignCustomer}`, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`),
        ...kit.common(customerUrl)
      ]
    },
    'GET /api/users/current/customers': {
      responses: [
        kit.ok('/api/users/current/customers', 'CustomerPage', pageReply('customers', repos.customers.listOfUser({ ...tenant, userId: user.username }, paged(''))),
          `The customers linked to test user ${user.username} (token of the password or authorization code grant)`, { request: { method: 'GET', url: '/api/users/current/customers', auth: 'user' } }),
        kit.sizeError('/api/users/current/customers'),
        ...kit.common('/api/users/current/customers')
      ]
    }
  }
}
