import { Type, type Static } from '@sinclair/typebox'
import { DigitString, PageOf, PagingQuery, ref } from './common.js'

export const AccountHolder = Type.Object({
  customerId: Type.String(),
  displayName: Type.String(),
  provider: Type.String({ description: 'Institution providing the account services.' })
}, { $id: 'AccountHolder', title: 'AccountHolder' })

export const Balance = Type.Object({
  currency: Type.String({ description: 'ISO 4217 currency code (ZAR).' }),
  amount: Type.Number({ description: 'Decimal amount.' })
}, { $id: 'Balance', title: 'Balance' })

// spec 2.2: every field optional in responses
export const Account = Type.Object({
  id: Type.Optional(Type.String({ description: 'Unique id of the account (at most 16 digits).' })),
  number: Type.Optional(Type.String({ description: 'Account number.' })),
  agentId: Type.Optional(Type.Integer({ description: 'Id of the agent the account belongs to.' })),
  bankId: Type.Optional(Type.String({ description: 'Bank identity number.' })),
  branchCode: Type.Optional(Type.String()),
  accountType: Type.Optional(Type.String({ description: 'Account type (the product code, e.g. CALL).' })),
  customers: Type.Optional(Type.Array(ref(AccountHolder))),
  label: Type.Optional(Type.String()),
  type: Type.Optional(Type.String({ description: 'Type of account (descriptive text).' })),
  balance: Type.Optional(ref(Balance)),
  swiftBic: Type.Optional(Type.String()),
  openedDate: Type.Optional(Type.String({ description: 'Date opened, YYYY-MM-DD.' })),
  closedDate: Type.Optional(Type.String({ description: 'Date closed, YYYY-MM-DD; absent while open.' }))
}, { $id: 'Account', title: 'Account', description: 'An account (spec 2.2).' })
export type Account = Static<typeof Account>

export const AccountCreateRequest = Type.Object({
  customerId: DigitString(19, 0, { description: "Customer to create another account for; must be one of the agent's customers (rule CustomerOfAgent)." }),
  productCode: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Product of GET /api/products (rule KnownProduct); a call account when absent.' }))
}, { $id: 'AccountCreateRequest', title: 'AccountCreateRequest', description: 'Creates an account for a customer (spec 4.3).' })
export type AccountCreateRequest = Static<typeof AccountCreateRequest>

export const AccountIdParams = Type.Object({
  accountId: DigitString(16, 0, { description: 'Account id.' })
})

export const AccountListQuery = Type.Composite([PagingQuery, Type.Object({
  customerId: Type.Optional(DigitString(19, 0, { description: 'Only the accounts of this customer (spec 4.2).' }))
})])

export const AccountPage = PageOf('AccountPage', 'accounts', ref(Account))

export const ACCOUNT_SCHEMAS = [AccountHolder, Balance, Account, AccountCreateRequest, AccountPage]
