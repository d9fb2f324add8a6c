import type { TSchema } from '@sinclair/typebox'
import type { Ajv } from 'ajv'
import { errorBody, notFound, validationFailed, type ErrorBody, type FieldError } from '../errors.js'
import { accountRules } from '../rules/accounts.js'
import { beneficiaryRules } from '../rules/beneficiaries.js'
import { customerRules } from '../rules/customers.js'
import { API_SCHEMAS } from '../schemas/index.js'
import { buildPartner } from '../seed/build.js'
import type { Reference } from '../seed/fixtures.js'
import type { ScenarioLibrary } from '../seed/scenarios.js'
import { buildAccount } from '../store/accounts.js'
import { AgentStore } from '../store/agent.js'
import { buildBeneficiary } from '../store/beneficiaries.js'
import { buildCustomer } from '../store/customers.js'
import { createRepos } from '../store/index.js'
import { buildMessage } from '../store/messages.js'
import { World } from '../store/world.js'

/*
 * The examples of the published documents, taken from the default scenario: a private copy of partner-a
 * as scenarios/default.json builds it (agent 1001, test user alice), read through the repositories the
 * routes use and cut to the response schemas. No id, name or amount is written here: they come from the
 * scenario's fixed records and fixtures/. Every example carries the request that produces it, and
 * test/docs.test.ts replays them all against the app.
 */

export const EXAMPLE_SCENARIO = 'default'
const PARTNER = 'partner-a'

export interface ExampleRequest {
  method: 'GET' | 'POST'
  url: string
  /** Agent-Id header; default the example agent, null sends none. */
  agent?: string | null
  /** Whose bearer token: the partner's client credentials (default), the test user's password grant, or none. */
  auth?: 'client' | 'user' | 'none'
  body?: unknown
  /** Content-Type of a body sent as text (default: JSON). */
  contentType?: string
  /** Accept header (default none). */
  accept?: string
}

export interface ResponseExample {
  status: number
  /** Key of the example in the document. */
  name: string
  summary: string
  request: ExampleRequest
  value: unknown
  /** Top-level fields that depend on the day of the call (dates of created records): a replay ignores them. */
  volatile?: string[]
}

export interface OperationExamples {
  /** Path parameter values of the successful example. */
  params?: Record<string, string>
  /** Request bodies, the first one the one that passes. */
  bodies?: Array<{ name: string, summary: string, value: unknown }>
  responses: ResponseExample[]
}

export interface DocExamples {
  agentId: string
  /** The partner the examples act as and its test user. */
  partner: { clientId: string, secret: string, user: { username: string, password: string } }
  /** One example per component schema, by $id. */
  schemas: Record<string, unknown>
  /** By operation, e.g. "GET /api/customers/{customerId}". */
  operations: Record<string, OperationExamples>
}

type Json = Record<string, unknown>
const UNCHECKED = { getSchema: () => () => true } as unknown as Ajv
const SCHEMAS = new Map(API_SCHEMAS.map((s) => [s.$id as string, s]))

/** The value as the response schema serialises it: properties the schema does not name are dropped. */
function served (schema: TSchema | string, value: unknown): unknown {
  const s = (typeof schema === 'string' ? SCHEMAS.get(schema) : schema) as Json | undefined
  if (s === undefined) throw new Error(`no schema ${String(schema)}`)
  if (typeof s.$ref === 'string') return served(s.$ref, value)
  if (Array.isArray(value)) return s.items === undefined ? value : value.map((v) => served(s.items as TSchema, v))
  if (s.properties !== undefined && typeof value === 'object' && value !== null) {
    const out: Json = {}
    for (const [k, p] of Object.entries(s.properties as Record<string, TSchema>)) {
      const v = (value as Json)[k]
      if (v !== undefined) out[k] = served(p, v)
    }
    return out
  }
  return value
}

/** Builds every example (a few milliseconds: one partner of the default scenario, no I/O). */
export function buildDocExamples (scenarios: ScenarioLibrary, reference: Reference, bodyLimit: number): DocExamples {
  const loaded = scenarios.get(EXAMPLE_SCENARIO)
  const { scenario } = loaded
  const def = loaded.partners.get(PARTNER)
  if (def === undefined) throw new Error(`scenario ${EXAMPLE_SCENARIO} has no partner ${PARTNER}`)
  // the scenario's records were checked against the schemas when it was loaded (and in the test suite):
  // this private copy skips the second check, which would cost a compiled validator
  const ctx = { reference, validator: UNCHECKED }
  const snapshot = buildPartner(ctx, loaded, scenario.seed, { ...def, redirectUris: [], registered: false })
  const world = new World(reference, { maxRecords: Number.MAX_SAFE_INTEGER, maxAgents: Number.MAX_SAFE_INTEGER })
  world.putPartner(snapshot)
  const repos = createRepos(world)

  // the fixed records: the first customer of the first agent with hand-written records, and what it owns
  const user = def.users?.[0]
  if (user === undefined) throw new Error(`partner ${PARTNER} of scenario ${EXAMPLE_SCENARIO} has no test user`)
  const agentId = user.agentId
  const records = loaded.records.get(agentId)!
  const [first, second] = records.customers
  const customerId = first.customerId
  const account = records.accounts.find((a) => a.customerId === customerId)!
  const otherProduct = records.accounts.find((a) => a.customerId === customerId && a.productCode !== account.productCode)?.productCode ?? reference.products[1].productCode
  const beneficiary = records.beneficiaries.find((b) => b.customerId === customerId)!
  const message = records.messages.find((m) => m.customerId === customerId)!
  const guarantees = (scenario.records.guarantees ?? []).filter((g) => g.partnerId === PARTNER)
  const otherAgent = snapshot.agents.find((a) => a.id !== agentId)!
  // an agent of another partner (403)
  const strangerAgent = scenario.partners.find((p) => p.id !== PARTNER)?.agents[0].id ?? '9999'
  const foreignCustomer = otherAgent.customers[0].customerId
  const foreignAccount = otherAgent.accounts[0].id
  // a new client for POST /api/customers: a related party of a fixed record who has no record of its own
  const newParty = records.customers.flatMap((c) => c.otherCustomers ?? [])
    .find((p) => p.entityTypeId === '1' && !records.customers.some((c) => c.defaultCustomer.identifyingNumber === p.identifyingNumber))!

  const tenant = { partnerId: PARTNER, agentId }
  const agentSnapshot = snapshot.agents.find((a) => a.id === agentId)!
  /** Creates run on a copy of the agent as the scenario starts, as on a sandbox just reset. */
  const freshAgent = (): AgentStore => new AgentStore(agentSnapshot)
  const today = scenario.referenceDate
  const timestamp = `${today}T08:00:00.000+00:00`
  const error = (status: number, message: string, path: string, errors: FieldError[] = []): ErrorBody => ({ ...errorBody(status, message, path, errors), timestamp })
  const paged = (query: string): { page: number, size: number } => {
    const q = new URLSearchParams(query)
    return { page: Number(q.get('page') ?? 0), size: Number(q.get('size') ?? 10) }
  }
  const pathOf = (url: string): string => url.split('?')[0]

  // --- the requests that pass ---
  const customerRequest = {
    customerReference: `${first.customerReference ?? 'CUST'}-B`,
    agentReference: first.agentReference,
    adminFeePercent: first.adminFeePercent,
    defaultCustomer: newParty
  }
  const accountRequest = { customerId, productCode: otherProduct }
  const { beneficiaryId: _b, customerId: _c, agentId: _a, ...beneficiaryRequest } = beneficiary
  const messageRequest = { message: message.message, fromDepartment: message.fromDepartment, fromPerson: message.fromPerson }

  // --- and the ones that break a rule the schema cannot say (still valid JSON Schema: the document stays lintable) ---
  const idNumber = newParty.identifyingNumber
  const badCustomerRequest = { ...customerRequest, defaultCustomer: { ...newParty, identifyingNumber: idNumber.slice(0, -1) + String((Number(idNumber.slice(-1)) + 1) % 10) } }
  const badAccountRequest = { customerId, productCode: 'NO-SUCH-PRODUCT' }
  const badBeneficiaryRequest = { ...beneficiaryRequest, bankCode: '9999999999' }

  const created = {
    customer: (() => { const a = freshAgent(); return buildCustomer(a, customerRequest, reference, { openedDate: today }).customer })(),
    account: (() => {
      const a = freshAgent()
      const c = a.customer(customerId)!
      return buildAccount(a, reference, { customerId, holder: c.defaultCustomer!, product: reference.productsByCode.get(otherProduct)!, openedDate: today })
    })(),
    beneficiary: buildBeneficiary(freshAgent(), reference, second.customerId, beneficiaryRequest),
    message: buildMessage(freshAgent(), customerId, messageRequest, `${today}T10:00:00.000`)
  }

  // --- responses ---
  const ok = (url: string, schemaId: string, value: unknown, summary: string, extra: Partial<ResponseExample> = {}): ResponseExample =>
    ({ status: 200, name: 'ok', summary, request: { method: 'GET', url }, value: served(schemaId, value), ...extra })
  const page = <T>(name: string, result: { page: unknown, items: T[] }): Json => ({ page: result.page, sortResponses: [], [name]: result.items })

  const common = (url: string, method: 'GET' | 'POST' = 'GET', body?: unknown): ResponseExample[] => {
    const path = pathOf(url)
    const req = { method, url, ...(body === undefined ? {} : { body }) }
    return [
      { status: 400, name: 'agentIdMissing', summary: 'No Agent-Id header', request: { ...req, agent: null }, value: error(400, "Required request header 'Agent-Id' for method parameter type String is not present", path) },
      { status: 401, name: 'tokenMissing', summary: 'No bearer token', request: { ...req, auth: 'none' }, value: error(401, 'Full authentication is required to access this resource: send Authorization: Bearer <access token>', path) },
      { status: 403, name: 'agentNotBound', summary: `Agent-Id ${strangerAgent} belongs to another partner`, request: { ...req, agent: strangerAgent }, value: error(403, `Agent-Id '${strangerAgent}' is not bound to client '${PARTNER}'`, path) },
      notAcceptable(req)
    ]
  }
  const notAcceptable = (req: ExampleRequest): ResponseExample =>
    ({ status: 406, name: 'notAcceptable', summary: 'Accept: application/xml', request: { ...req, accept: 'application/xml' }, value: error(406, 'No acceptable representation: the API answers application/json', pathOf(req.url)) })
  const paramError = (url: string, field: string, rejected: unknown, message: string, code: string, summary: string): ResponseExample =>
    ({ status: 400, name: 'invalidParameter', summary, request: { method: 'GET', url }, value: error(400, `${field}: ${message}`, pathOf(url), [{ field, rejectedValue: rejected, defaultMessage: message, code }]) })
  const sizeError = (url: string): ResponseExample => paramError(`${url}?size=0`, 'size', 0, 'must be greater than or equal to 1', 'Min', 'size=0 (size is 1 to 2000)')
  const bodyError = (url: string, objectName: string, body: unknown, errors: FieldError[], summary: string): ResponseExample =>
    ({ status: 400, name: 'invalidBody', summary, request: { method: 'POST', url, body }, value: error(400, validationFailed(objectName, errors).message, pathOf(url), errors) })
  const notFoundError = (url: string, what: string, id: string, summary: string, method: 'GET' | 'POST' = 'GET', body?: unknown): ResponseExample =>
    ({ status: 404, name: 'notFound', summary, request: { method, url, ...(body === undefined ? {} : { body }) }, value: error(404, notFound(what, id).message, pathOf(url)) })
  const bodyProblems = (url: string, body: unknown): ResponseExample[] => [
    {
      status: 413,
      name: 'bodyTooLarge',
      summary: `A body over the limit (${bodyLimit} bytes by default; SANDBOX_BODY_LIMIT)`,
      request: { method: 'POST', url, body: { ...(body as Json), padding: 'X'.repeat(bodyLimit) } },
      value: error(413, `Request body is larger than the limit of ${bodyLimit} bytes`, pathOf(url))
    },
    {
      status: 415,
      name: 'notJson',
      summary: 'A body sent as text/plain',
      request: { method: 'POST', url, body: JSON.stringify(body), contentType: 'text/plain' },
      value: error(415, "Content-Type 'text/plain' is not supported; send application/json", pathOf(url))
    }
  ]
  const customerUrl = `/api/customers/${customerId}`
  const banksUrl = '/api/banks'
  const operations: Record<string, OperationExamples> = {
    'GET /api/accounts': {
      responses: [
        ok(`/api/accounts?customerId=${customerId}`, 'AccountPage', page('accounts', repos.accounts.list(tenant, paged(''), customerId)), `The accounts of customer ${customerId}`),
        paramError('/api/accounts?customerId=12A', 'customerId', '12A', 'numeric value out of bounds (<19 digits>.<0 digits> expected)', 'Digits', 'customerId is not a number'),
        ...common('/api/accounts')
      ]
    },
    'GET /api/accounts/{accountId}': {
      params: { accountId: account.id },
      responses: [
        ok(`/api/accounts/${account.id}`, 'Account', repos.accounts.findById(tenant, account.id), `Account ${account.id}`),
        paramError('/api/accounts/12345678901234567', 'accountId', '12345678901234567', 'numeric value out of bounds (<16 digits>.<0 digits> expected)', 'Digits', 'accountId has 17 digits'),
        notFoundError(`/api/accounts/${foreignAccount}`, 'Account', foreignAccount, `Account ${foreignAccount} belongs to agent ${otherAgent.id}`),
        ...common(`/api/accounts/${account.id}`)
      ]
    },
    'POST /api/accounts': {
      bodies: [
        { name: 'product', summary: `A ${otherProduct} account for customer ${customerId}`, value: accountRequest },
        { name: 'unknownProduct', summary: 'An unknown productCode (400)', value: badAccountRequest }
      ],
      responses: [
        { ...ok('/api/accounts', 'Account', created.account, `The new ${otherProduct} account (openedDate is the day of the call)`), request: { method: 'POST', url: '/api/accounts', body: accountRequest }, volatile: ['openedDate'] },
        bodyError('/api/accounts', 'accountCreateRequest', badAccountRequest, accountRules(badAccountRequest, reference), 'An unknown productCode'),
        ...common('/api/accounts', 'POST', accountRequest),
        ...bodyProblems('/api/accounts', accountRequest)
      ]
    },
    'GET /api/accounts/public': {
      responses: [
        ok('/api/accounts/public?size=3', 'PublicAccountPage', page('publicAccounts', repos.reference.publicAccounts(paged('size=3'))), 'The first three public accounts'),
        sizeError('/api/accounts/public'),
        ...common('/api/accounts/public')
      ]
    },
    'GET /api/banks': {
      responses: [
        ok(`${banksUrl}?size=3`, 'BankPage', page('banks', repos.reference.banks(paged('size=3'))), 'The first three banks'),
        sizeError(banksUrl),
        ...common(banksUrl)
      ]
    },
    'GET /api/customers/{customerId}/beneficiaries': {
      params: { customerId },
      responses: [
        ok(`${customerUrl}/beneficiaries`, 'BeneficiaryPage', page('beneficiaries', repos.beneficiaries.list(tenant, customerId, paged(''))), `The beneficiaries of customer ${customerId}`),
        sizeError(`${customerUrl}/beneficiaries`),
        notFoundError(`/api/customers/${foreignCustomer}/beneficiaries`, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`),
        ...common(`${customerUrl}/beneficiaries`)
      ]
    },
    'GET /api/customers/{customerId}/beneficiaries/{beneficiaryId}': {
      params: { customerId, beneficiaryId: beneficiary.beneficiaryId },
      responses: [
        ok(`${customerUrl}/beneficiaries/${beneficiary.beneficiaryId}`, 'Beneficiary', repos.beneficiaries.findById(tenant, customerId, beneficiary.beneficiaryId), `Beneficiary ${beneficiary.beneficiaryId}`),
        paramError(`${customerUrl}/beneficiaries/B1`, 'beneficiaryId', 'B1', 'numeric value out of bounds (<19 digits>.<0 digits> expected)', 'Digits', 'beneficiaryId is not a number'),
        notFoundError(`/api/customers/${second.customerId}/beneficiaries/${beneficiary.beneficiaryId}`, 'Beneficiary', beneficiary.beneficiaryId, `Beneficiary ${beneficiary.beneficiaryId} is not one of customer ${second.customerId}`),
        ...common(`${customerUrl}/beneficiaries/${beneficiary.beneficiaryId}`)
      ]
    },
    'POST /api/customers/{customerId}/beneficiaries': {
      params: { customerId: second.customerId },
      bodies: [
        { name: 'beneficiary', summary: `Beneficiary ${beneficiary.name} for customer ${second.customerId}`, value: beneficiaryRequest },
        { name: 'unknownBank', summary: 'An unknown bankCode (400)', value: badBeneficiaryRequest }
      ],
      responses: [
        { ...ok(`/api/customers/${second.customerId}/beneficiaries`, 'Beneficiary', created.beneficiary, 'The new beneficiary'), request: { method: 'POST', url: `/api/customers/${second.customerId}/beneficiaries`, body: beneficiaryRequest } },
        bodyError(`/api/customers/${second.customerId}/beneficiaries`, 'beneficiaryRequest', badBeneficiaryRequest, beneficiaryRules(badBeneficiaryRequest, reference), 'An unknown bankCode'),
        notFoundError(`/api/customers/${foreignCustomer}/beneficiaries`, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`, 'POST', beneficiaryRequest),
        ...common(`/api/customers/${second.customerId}/beneficiaries`, 'POST', beneficiaryRequest),
        ...bodyProblems(`/api/customers/${second.customerId}/beneficiaries`, beneficiaryRequest)
      ]
    },
    'POST /api/customers': {
      bodies: [
        { name: 'individual', summary: `Individual ${newParty.name2 ?? ''} ${newParty.name1}`.replace(/ +/g, ' '), value: customerRequest },
        { name: 'badIdNumber', summary: 'A South African ID number with a wrong check digit (400)', value: badCustomerRequest }
      ],
      responses: [
        { ...ok('/api/customers', 'CustomerRecord', created.customer, 'The new customer record, with the number of its call account'), request: { method: 'POST', url: '/api/customers', body: customerRequest } },
        bodyError('/api/customers', 'customerRequest', badCustomerRequest, customerRules(badCustomerRequest, reference), 'A wrong check digit in the ID number'),
        ...common('/api/customers', 'POST', customerRequest),
        ...bodyProblems('/api/customers', customerRequest)
      ]
    },
    'GET /api/customers': {
      responses: [
        ok('/api/customers?size=2', 'CustomerPage', page('customers', repos.customers.list(tenant, paged('size=2'))), 'The first two customers of the agent'),
        sizeError('/api/customers'),
        ...common('/api/customers')
      ]
    },
    'GET /api/customers/{customerId}': {
      params: { customerId },
      responses: [
        ok(customerUrl, 'CustomerRecord', repos.customers.findById(tenant, customerId), `Customer ${customerId}`),
        paramError('/api/customers/ABC', 'customerId', 'ABC', 'numeric value out of bounds (<19 digits>.<0 digits> expected)', 'Digits', 'customerId is not a number'),
        notFoundError(`/api/customers/${foreignCustomer}`, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`),
        ...common(customerUrl)
      ]
    },
    'GET /api/users/current/customers': {
      responses: [
        ok('/api/users/current/customers', 'CustomerPage', page('customers', repos.customers.listOfUser({ ...tenant, userId: user.username }, paged(''))),
          `The customers linked to test user ${user.username} (token of the password or authorization code grant)`, { request: { method: 'GET', url: '/api/users/current/customers', auth: 'user' } }),
        sizeError('/api/users/current/customers'),
        ...common('/api/users/current/customers')
      ]
    },
    'GET /api/guarantees/{guaranteeID}/state': {
      params: { guaranteeID: guarantees[0].guaranteeId },
      responses: [
        ...guarantees.map((g, i): ResponseExample => ({
          ...ok(`/api/guarantees/${g.guaranteeId}/state`, 'GuaranteeState', repos.guarantees.state(g.guaranteeId), `Guarantee ${g.guaranteeId}`),
          name: i === 0 ? 'ok' : `ok${i + 1}`,
          request: { method: 'GET', url: `/api/guarantees/${g.guaranteeId}/state`, auth: 'none', agent: null }
        })),
        { ...ok('/api/guarantees/NOSTATE-1/state', 'GuaranteeState', repos.guarantees.state('NOSTATE-1'), 'Any id starting NOSTATE-: no state'), name: 'noState', request: { method: 'GET', url: '/api/guarantees/NOSTATE-1/state', auth: 'none', agent: null } },
        { ...notFoundError('/api/guarantees/NOTFOUND-1/state', 'Guarantee', 'NOTFOUND-1', 'Any id starting NOTFOUND-, or an unknown id'), request: { method: 'GET', url: '/api/guarantees/NOTFOUND-1/state', auth: 'none', agent: null } },
        notAcceptable({ method: 'GET', url: `/api/guarantees/${guarantees[0].guaranteeId}/state`, auth: 'none', agent: null }),
        {
          status: 400,
          name: 'invalidParameter',
          summary: 'An id of 256 characters',
          request: { method: 'GET', url: `/api/guarantees/${'G'.repeat(256)}/state`, auth: 'none', agent: null },
          value: error(400, 'guaranteeID: size must be between 1 and 255', `/api/guarantees/${'G'.repeat(256)}/state`, [{ field: 'guaranteeID', rejectedValue: 'G'.repeat(256), defaultMessage: 'size must be between 1 and 255', code: 'Size' }])
        }
      ]
    },
    'GET /api/investment-types': {
      responses: [
        ok('/api/investment-types', 'InvestmentTypePage', page('investmentTypes', repos.reference.investmentTypes(paged(''))), 'Every investment type'),
        sizeError('/api/investment-types'),
        ...common('/api/investment-types')
      ]
    },
    'POST /api/customers/{customerId}/messages': {
      params: { customerId },
      bodies: [{ name: 'message', summary: `A message to customer ${customerId}`, value: messageRequest }],
      responses: [
        { ...ok(`${customerUrl}/messages`, 'CustomerMessage', created.message, 'The message with its id and creation time (the time of the call)'), request: { method: 'POST', url: `${customerUrl}/messages`, body: messageRequest }, volatile: ['dateCreated'] },
        (() => {
          const { fromPerson: _p, ...body } = messageRequest
          return bodyError(`${customerUrl}/messages`, 'customerMessage', body, [{ field: 'fromPerson', rejectedValue: null, defaultMessage: 'must not be null', code: 'NotNull' }], 'No fromPerson')
        })(),
        notFoundError(`/api/customers/${foreignCustomer}/messages`, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`, 'POST', messageRequest),
        ...common(`${customerUrl}/messages`, 'POST', messageRequest),
        ...bodyProblems(`${customerUrl}/messages`, messageRequest)
      ]
    },
    'GET /api/customers/{customerId}/messages': {
      params: { customerId },
      responses: [
        ok(`${customerUrl}/messages`, 'MessagePage', page('messages', repos.messages.list(tenant, customerId, paged(''))), `The messages of customer ${customerId}`),
        sizeError(`${customerUrl}/messages`),
        notFoundError(`/api/customers/${foreignCustomer}/messages`, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`),
        ...common(`${customerUrl}/messages`)
      ]
    },
    'GET /api/products': {
      responses: [
        ok('/api/products', 'ProductPage', page('products', repos.reference.products(paged(''))), 'Every product'),
        sizeError('/api/products'),
        ...common('/api/products')
      ]
    },
    'GET /api/products/{productCode}': {
      params: { productCode: account.productCode },
      responses: [
        ok(`/api/products/${account.productCode}`, 'Product', repos.reference.product(account.productCode), `Product ${account.productCode}`),
        notFoundError('/api/products/NO-SUCH-PRODUCT', 'Product', 'NO-SUCH-PRODUCT', 'An unknown product code'),
        {
          status: 400,
          name: 'invalidParameter',
          summary: 'A code of 257 characters',
          request: { method: 'GET', url: `/api/products/${'P'.repeat(257)}` },
          value: error(400, 'productCode: size must be between 1 and 256', `/api/products/${'P'.repeat(257)}`, [{ field: 'productCode', rejectedValue: 'P'.repeat(257), defaultMessage: 'size must be between 1 and 256', code: 'Size' }])
        },
        ...common(`/api/products/${account.productCode}`)
      ]
    }
  }

  // one example per component schema: the responses above, and the requests that pass
  const okValue = (op: string, name = 'ok'): Json => operations[op].responses.find((r) => r.name === name)!.value as Json
  const accountValue = okValue('GET /api/accounts/{accountId}')
  const customerValue = okValue('GET /api/customers/{customerId}')
  const notFoundValue = operations['GET /api/customers/{customerId}'].responses.find((r) => r.status === 404)!.value as ErrorBody
  const badBody = operations['POST /api/customers'].responses.find((r) => r.name === 'invalidBody')!.value as ErrorBody
  const schemas: Record<string, unknown> = {
    Account: accountValue,
    AccountHolder: (accountValue.customers as unknown[])[0],
    Balance: accountValue.balance,
    AccountCreateRequest: accountRequest,
    AccountPage: okValue('GET /api/accounts'),
    Bank: served('Bank', reference.banks[0]),
    BankPage: okValue('GET /api/banks'),
    Beneficiary: okValue('GET /api/customers/{customerId}/beneficiaries/{beneficiaryId}'),
    BeneficiaryCreateRequest: beneficiaryRequest,
    BeneficiaryPage: okValue('GET /api/customers/{customerId}/beneficiaries'),
    CustomerRecord: customerValue,
    Party: customerValue.defaultCustomer,
    CustomerCreateRequest: customerRequest,
    CustomerPage: okValue('GET /api/customers'),
    CustomerMessage: (okValue('GET /api/customers/{customerId}/messages').messages as unknown[])[0],
    CustomerMessageRequest: messageRequest,
    MessagePage: okValue('GET /api/customers/{customerId}/messages'),
    GuaranteeState: okValue('GET /api/guarantees/{guaranteeID}/state'),
    InvestmentType: served('InvestmentType', reference.investmentTypes[0]),
    InvestmentTypePage: okValue('GET /api/investment-types'),
    PublicAccount: served('PublicAccount', reference.publicAccounts[0]),
    PublicAccountPage: okValue('GET /api/accounts/public'),
    Product: okValue('GET /api/products/{productCode}'),
    ProductPage: okValue('GET /api/products'),
    PageInfo: okValue('GET /api/banks').page,
    ErrorBody: notFoundValue,
    FieldError: badBody.errors[0]
  }

  return {
    agentId,
    partner: { clientId: def.id, secret: def.secret, user: { username: user.username, password: user.password } },
    schemas,
    operations
  }
}
