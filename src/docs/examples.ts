import type { ErrorBody } from '../errors.js'
import type { Reference } from '../schemas/reference.js'
import type { Prebuilt } from '../seed/prebuilt.js'
import type { ScenarioLibrary } from '../seed/scenarios.js'
import { accountExamples } from './examples/accounts.js'
import { beneficiaryExamples } from './examples/beneficiaries.js'
import { exampleContext } from './examples/context.js'
import { customerExamples } from './examples/customers.js'
import { guaranteeExamples } from './examples/guarantees.js'
import { messageExamples } from './examples/messages.js'
import { referenceExamples } from './examples/reference.js'
import { snapshotExample } from './examples/snapshots.js'
import { served } from './examples/responses.js'
import type { DocExamples, OperationsExamples } from './examples/types.js'

export { EXAMPLE_SCENARIO } from './examples/context.js'
export type { DocExamples, ExampleRequest, OperationExamples, ResponseExample } from './examples/types.js'

/*
 * The examples of the published documents, taken from the default scenario: a private copy of partner-a
 * as scenarios/default.json builds it (agent 1001, test user alice), read through the repositories the
 * routes use and cut to the response schemas. No id, name or amount is written here: they come from the
 * scenario's fixed records and fixtures/. Every example carries the request that produces it, and
 * test/docs.test.ts replays them all against the app. One module per resource under examples/.
 */

type Json = Record<string, unknown>

/** Builds every example (a few milliseconds: one partner of the default scenario, no I/O). */
export function buildDocExamples (scenarios: ScenarioLibrary, reference: Reference, bodyLimit: number, prebuilt: Prebuilt): DocExamples {
  const c = exampleContext(scenarios, reference, bodyLimit, prebuilt)
  const operations: OperationsExamples = {
    ...accountExamples(c),
    ...referenceExamples(c),
    ...beneficiaryExamples(c),
    ...customerExamples(c),
    ...guaranteeExamples(c),
    ...messageExamples(c)
  }
  return {
    agentId: c.agentId,
    partner: { clientId: c.def.id, secret: c.def.secret, user: { username: c.user.username, password: c.user.password } },
    // the sandbox document's snapshot is made of the same records
    schemas: { ...schemaExamples(operations, reference), SandboxSnapshot: snapshotExample(c) },
    operations
  }
}

/** One example per component schema: the responses of the operations, and the requests that pass. */
function schemaExamples (operations: OperationsExamples, reference: Reference): Record<string, unknown> {
  const value = (op: string, name = 'ok'): Json => operations[op].responses.find((r) => r.name === name)!.value as Json
  const request = (op: string): unknown => operations[op].bodies![0].value
  const account = value('GET /api/accounts/{accountId}')
  const customer = value('GET /api/customers/{customerId}')
  const notFound = operations['GET /api/customers/{customerId}'].responses.find((r) => r.status === 404)!.value as ErrorBody
  const badBody = value('POST /api/customers', 'invalidBody') as unknown as ErrorBody
  return {
    Account: account,
    AccountHolder: (account.customers as unknown[])[0],
    Balance: account.balance,
    AccountCreateRequest: request('POST /api/accounts'),
    AccountPage: value('GET /api/accounts'),
    Bank: served('Bank', reference.banks[0]),
    BankPage: value('GET /api/banks'),
    Beneficiary: value('GET /api/customers/{customerId}/beneficiaries/{beneficiaryId}'),
    BeneficiaryCreateRequest: request('POST /api/customers/{customerId}/beneficiaries'),
    BeneficiaryPage: value('GET /api/customers/{customerId}/beneficiaries'),
    CustomerRecord: customer,
    Party: customer.defaultCustomer,
    CustomerCreateRequest: request('POST /api/customers'),
    CustomerPage: value('GET /api/customers'),
    CustomerMessage: (value('GET /api/customers/{customerId}/messages').messages as unknown[])[0],
    CustomerMessageRequest: request('POST /api/customers/{customerId}/messages'),
    MessagePage: value('GET /api/customers/{customerId}/messages'),
    GuaranteeState: value('GET /api/guarantees/{guaranteeID}/state'),
    InvestmentType: served('InvestmentType', reference.investmentTypes[0]),
    InvestmentTypePage: value('GET /api/investment-types'),
    PublicAccount: served('PublicAccount', reference.publicAccounts[0]),
    PublicAccountPage: value('GET /api/accounts/public'),
    Product: value('GET /api/products/{productCode}'),
    ProductPage: value('GET /api/products'),
    PageInfo: value('GET /api/banks').page,
    ErrorBody: notFound,
    FieldError: badBody.errors[0]
  }
}
