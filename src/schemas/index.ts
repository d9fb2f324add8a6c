import type { TSchema } from '@sinclair/typebox'
import { COMMON_SCHEMAS } from './common.js'
import { CUSTOMER_SCHEMAS } from './customers.js'
import { ACCOUNT_SCHEMAS } from './accounts.js'
import { BANK_SCHEMAS } from './banks.js'
import { BENEFICIARY_SCHEMAS } from './beneficiaries.js'
import { MESSAGE_SCHEMAS } from './messages.js'
import { GUARANTEE_SCHEMAS } from './guarantees.js'
import { INVESTMENT_TYPE_SCHEMAS } from './investment-types.js'
import { PUBLIC_ACCOUNT_SCHEMAS } from './public-accounts.js'
import { PRODUCT_SCHEMAS } from './products.js'
import { JOURNAL_SCHEMAS } from './journal.js'
import { SANDBOX_SCHEMAS } from './sandbox.js'
import { SANDBOX_CONTROL_SCHEMAS } from './sandbox-controls.js'
import { SANDBOX_STATE_SCHEMAS } from './sandbox-state.js'
import { SNAPSHOT_SCHEMAS } from './snapshots.js'
import { ADVICE_SCHEMAS } from './advice.js'
import { OVERVIEW_SCHEMAS } from './overview.js'

/** Every schema with an $id, registered once (fastify.addSchema, the standalone validator, the docs). */
export const API_SCHEMAS: TSchema[] = [
  ...COMMON_SCHEMAS,
  ...CUSTOMER_SCHEMAS,
  ...ACCOUNT_SCHEMAS,
  ...BANK_SCHEMAS,
  ...BENEFICIARY_SCHEMAS,
  ...MESSAGE_SCHEMAS,
  ...GUARANTEE_SCHEMAS,
  ...INVESTMENT_TYPE_SCHEMAS,
  ...PUBLIC_ACCOUNT_SCHEMAS,
  ...PRODUCT_SCHEMAS,
  ...SANDBOX_SCHEMAS,
  ...SANDBOX_STATE_SCHEMAS,
  ...SANDBOX_CONTROL_SCHEMAS,
  ...JOURNAL_SCHEMAS,
  ...SNAPSHOT_SCHEMAS,
  ...ADVICE_SCHEMAS,
  ...OVERVIEW_SCHEMAS
]
