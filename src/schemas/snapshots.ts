import { Type, type Static } from '@sinclair/typebox'
import { AccountHolder, Account } from './accounts.js'
import { Beneficiary } from './beneficiaries.js'
import { ref } from './common.js'
import { CustomerRecord } from './customers.js'
import { CustomerMessage } from './messages.js'
import { PartnerSandboxState } from './sandbox-state.js'

/*
 * A partner's whole sandbox state as one document (GET/PUT /__sandbox/snapshot, named snapshots): every
 * agent's records as the API serves them plus the internal fields the store keeps, guarantees, fault rules
 * and clock. Records are checked against the schemas the API serves them with, as scenario data is.
 */

export const SNAPSHOT_FORMAT = 1

const AgentId = Type.String({ pattern: '^[1-9][0-9]{3,6}$', description: 'Partner number followed by three digits' })
const RecordId = Type.String({ pattern: '^[0-9]{1,19}$' })
const Count = Type.Integer({ minimum: 0, maximum: 99999999 })

// the fault issue registers the sandbox-state schemas under their own $ids: an inline copy without them here
const SandboxState = Type.Unsafe<Static<typeof PartnerSandboxState>>(JSON.parse(JSON.stringify(PartnerSandboxState, (key, value: unknown) => key === '$id' ? undefined : value)))

/*
 * The records as the store keeps them: the fields the API serves and the internal ones, declared in one
 * object each (not an allOf of the API's schema and the rest), so that a reader of the document, person or
 * tool, sees every field an object carries in the object itself, and which of them are always there.
 */
const SnapshotCustomer = Type.Object({ ...CustomerRecord.properties, customerId: RecordId }, { additionalProperties: false })

const SnapshotAccount = Type.Object({
  ...Account.properties,
  id: RecordId,
  number: Type.String({ pattern: '^[0-9]{6,16}$' }),
  agentId: Type.Integer({ minimum: 1000 }),
  customers: Type.Array(ref(AccountHolder), { minItems: 1 }),
  productCode: Type.String({ minLength: 1, maxLength: 256 })
}, { additionalProperties: false })

const SnapshotBeneficiary = Type.Object({ ...Beneficiary.properties, beneficiaryId: RecordId, customerId: RecordId }, { additionalProperties: false })

const SnapshotMessage = Type.Object({
  ...CustomerMessage.properties,
  id: RecordId,
  dateCreated: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}$' }),
  customerId: RecordId
}, { additionalProperties: false })

const SnapshotAgent = Type.Object({
  id: AgentId,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  fresh: Type.Boolean({ description: 'Created with POST /__sandbox/agents' }),
  like: Type.String({ pattern: '^[0-9]{4,7}$' }),
  scenario: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }),
  seed: Type.Integer({ minimum: 0, maximum: 2147483647 }),
  seq: Type.Object({ customer: Count, account: Count, beneficiary: Count, message: Count }, { additionalProperties: false }),
  customers: Type.Array(SnapshotCustomer),
  accounts: Type.Array(SnapshotAccount),
  beneficiaries: Type.Array(SnapshotBeneficiary),
  messages: Type.Array(SnapshotMessage)
}, { additionalProperties: false })

// its example is the default scenario's partner-a cut to a few records (docs/examples/snapshots.ts)
export const SnapshotDocument = Type.Object({
  snapshotFormat: Type.Literal(SNAPSHOT_FORMAT, { description: 'Version of this document format' }),
  partnerId: Type.String({ description: 'The partner whose state this is: a snapshot is restored to the same partner only' }),
  scenario: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', description: 'The scenario a later reset without a body returns to' }),
  seed: Type.Integer({ minimum: 0, maximum: 2147483647 }),
  guaranteeSeq: Type.Integer({ minimum: 0, maximum: 99999999 }),
  guarantees: Type.Array(Type.Object({
    guaranteeId: Type.String({ minLength: 1, maxLength: 255 }),
    state: Type.Union([Type.Literal('VALID'), Type.Literal('INVALID')])
  }, { additionalProperties: false })),
  agents: Type.Array(SnapshotAgent, { minItems: 1 }),
  sandbox: SandboxState
}, { $id: 'SandboxSnapshot', title: 'SandboxSnapshot', additionalProperties: false, description: "A partner's whole sandbox state" })
export type SnapshotDocument = Static<typeof SnapshotDocument>

export const SnapshotName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'Letters, digits, . _ -; at most 64 characters', examples: ['kyc-pending-customer'] })

export const SaveSnapshotRequest = Type.Object({ name: SnapshotName }, { $id: 'SandboxSaveSnapshotRequest', title: 'SandboxSaveSnapshotRequest', additionalProperties: false })

export const SnapshotInfo = Type.Object({
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  bytes: Type.Integer({ description: 'Size of the snapshot document' })
}, { $id: 'SandboxSnapshotInfo', title: 'SandboxSnapshotInfo' })
export type SnapshotInfo = Static<typeof SnapshotInfo>

export const SnapshotList = Type.Object({ snapshots: Type.Array(ref(SnapshotInfo), { description: 'Oldest first' }) }, { $id: 'SandboxSnapshotList', title: 'SandboxSnapshotList' })

export const SnapshotNameParam = Type.Object({ name: SnapshotName })

export const SNAPSHOT_SCHEMAS = [SnapshotDocument, SaveSnapshotRequest, SnapshotInfo, SnapshotList]
