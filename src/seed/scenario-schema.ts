import { Type, type Static } from '@sinclair/typebox'
import { DigitString } from '../schemas/common.js'
import { PublicClientDef } from '../schemas/sandbox.js'

/*
 * The shape of a scenario file (scenarios/*.json). Records are written the way a partner would send
 * them (create requests) plus the fixed ids docs/scenarios.md promises; the loader builds them with the same
 * code as the API and checks them against the request rules and the response schemas.
 */

const Share = Type.Number({ minimum: 0, maximum: 1 })
const Range = Type.Object({
  min: Type.Integer({ minimum: 0, maximum: 50 }),
  max: Type.Integer({ minimum: 0, maximum: 50 })
}, { additionalProperties: false })

export const GenerateSchema = Type.Object({
  customers: Type.Integer({ minimum: 0, maximum: 200000, description: 'Generated customers per agent' }),
  extraAccounts: Range,
  beneficiaries: Range,
  messages: Range,
  otherCustomers: Range,
  closedAccountShare: Share,
  unverifiedShare: Share,
  foreignBankShare: Share,
  /** Fill optional text fields to their maximum size (edge cases). */
  longValues: Type.Boolean()
}, { $id: 'ScenarioGenerate', additionalProperties: false })
export type Generate = Static<typeof GenerateSchema>

const AgentId = Type.String({ pattern: '^[1-9][0-9]{3,6}$', description: 'Partner number followed by three digits, e.g. 1001' })
const RecordId = (digits: number) => DigitString(digits, 0, { pattern: '^[0-9]+$' })

const AgentDef = Type.Object({
  id: AgentId,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  generate: Type.Optional(Type.Partial(GenerateSchema, { additionalProperties: false }))
}, { additionalProperties: false })

const UserDef = Type.Object({
  username: Type.String({ pattern: '^[a-z][a-z0-9._-]{1,63}$' }),
  password: Type.String({ minLength: 8, maxLength: 128 }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  email: Type.String({ format: 'email' }),
  agentId: AgentId,
  customerIds: Type.Array(RecordId(19))
}, { additionalProperties: false })

export const PartnerDefSchema = Type.Object({
  id: Type.String({ pattern: '^[a-z][a-z0-9-]{2,63}$', description: 'OAuth client id' }),
  number: Type.Integer({ minimum: 1, maximum: 9999, description: 'Prefix of the agent ids' }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  secret: Type.String({ minLength: 8, maxLength: 128 }),
  redirectUris: Type.Optional(Type.Array(Type.String({ pattern: '^https?://' }))),
  publicClients: Type.Optional(Type.Array(PublicClientDef, { maxItems: 10 })),
  agents: Type.Array(AgentDef, { minItems: 1 }),
  users: Type.Optional(Type.Array(UserDef))
}, { additionalProperties: false })
export type PartnerDef = Static<typeof PartnerDefSchema>

const Owned = { agentId: AgentId }

const CustomerEntry = Type.Object({
  ...Owned,
  customerId: RecordId(19),
  defaultAccountNumber: Type.Optional(Type.String({ description: 'Number of an account of records.accounts held by this customer; else a call account is generated' }))
})
const AccountEntry = Type.Object({
  ...Owned,
  id: RecordId(16),
  number: Type.String({ pattern: '^[0-9]{6,16}$' }),
  customerId: RecordId(19),
  productCode: Type.String({ minLength: 1 }),
  openedDate: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
  closedDate: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
  amount: Type.Optional(Type.Number({ minimum: 0 }))
}, { additionalProperties: false })
const BeneficiaryEntry = Type.Object({ ...Owned, customerId: RecordId(19), beneficiaryId: RecordId(19) })
const MessageEntry = Type.Object({
  ...Owned,
  customerId: RecordId(19),
  id: RecordId(19),
  dateCreated: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}$' })
})
const GuaranteeEntry = Type.Object({
  partnerId: Type.String(),
  guaranteeId: Type.String({ minLength: 1, maxLength: 255 }),
  state: Type.Union([Type.Literal('VALID'), Type.Literal('INVALID')])
}, { additionalProperties: false })

export const ScenarioSchema = Type.Object({
  $schema: Type.Optional(Type.String()),
  name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }),
  description: Type.String({ minLength: 1 }),
  seed: Type.Integer({ minimum: 0, maximum: 2147483647 }),
  referenceDate: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Generated dates lie before this day, so the same seed gives the same bytes on any day' }),
  generate: GenerateSchema,
  guarantees: Type.Object({ valid: Type.Integer({ minimum: 0, maximum: 10000 }), invalid: Type.Integer({ minimum: 0, maximum: 10000 }) }, { additionalProperties: false }),
  partners: Type.Array(PartnerDefSchema, { minItems: 1 }),
  records: Type.Object({
    // each entry is also a create request of the API (CustomerCreateRequest, BeneficiaryCreateRequest,
    // CustomerMessageRequest): checked against those schemas and rules separately
    customers: Type.Optional(Type.Array(CustomerEntry)),
    accounts: Type.Optional(Type.Array(AccountEntry)),
    beneficiaries: Type.Optional(Type.Array(BeneficiaryEntry)),
    messages: Type.Optional(Type.Array(MessageEntry)),
    guarantees: Type.Optional(Type.Array(GuaranteeEntry))
  }, { additionalProperties: false })
}, { $id: 'Scenario', additionalProperties: false })
export type Scenario = Static<typeof ScenarioSchema>
export type ScenarioRecords = Scenario['records']
