import { Type, type Static } from '@sinclair/typebox'
import { DigitString, UpperText, UPPER_EMAIL_PATTERN, PageOf, ref } from './common.js'

// spec 2.5: entityTypeId allowed values
export const ENTITY_TYPES: Record<string, string> = { 1: 'Individual', 3: 'Trust', 4: 'CC', 5: 'Pty (Ltd)', 6: 'Ltd' }
export const ENTITY_TYPE_IDS = Object.keys(ENTITY_TYPES)

export const Party = Type.Object({
  entityTypeId: DigitString(2, 0, {
    enum: ENTITY_TYPE_IDS,
    description: `Entity type (spec 2.5): ${Object.entries(ENTITY_TYPES).map(([k, v]) => `${k} = ${v}`).join(', ')}.`
  } as object),
  name1: UpperText(1, 255, { needsLetter: true, description: 'Surname for an individual, else the company or trust name. Upper-case Latin letters, digits, space, punctuation; must contain a letter.' }),
  name2: Type.Optional(UpperText(0, 255, { description: "Given names; mandatory when entityTypeId is 1 (sandbox rule 'Name2RequiredForIndividual'), optional otherwise." })),
  mobilePhoneNumber: Type.Optional(DigitString(14, 0, { description: 'Mobile number, e.g. 27821234567.' })),
  email: Type.Optional(Type.String({ format: 'email', pattern: UPPER_EMAIL_PATTERN, description: 'Well-formed email address written in upper case (spec 2.5). Well-formed as Hibernate Validator\'s @Email, which the bank applies: a domain of one label (ADMIN@LOCALHOST) and the empty value pass; local part at most 64, domain labels at most 63 characters.' })),
  kycStatus: Type.Optional(Type.Boolean({ description: 'Whether the customer has been KYC-verified.' })),
  identifyingNumber: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'By entity type (spec 2.5): 1 a valid South African ID number YYMMDDSSSSCAZ (real date, Luhn check digit; rule SouthAfricanIdNumber); ' +
      '3 any text (trust number); 4, 5, 6 a company registration number YYYY/NNNNNN/NN with 1800 <= YYYY <= this year (South African time, on the partner\'s sandbox clock) and NN a company-type code ' +
      '06, 07, 08, 09, 10, 12, 21, 22, 23, 24, 25, 26, 30 or 31 (rule CompanyRegistrationNumber).'
  }),
  taxNumber: Type.String({ minLength: 1, maxLength: 255, description: 'Tax reference number.' }),
  address: Type.Optional(UpperText(1, 255, { description: 'Address in upper case.' })),
  investmentTypeId: Type.Optional(Type.Integer({ description: 'Id of an investment type of GET /api/investment-types (rule KnownInvestmentType); defaults to ITF when absent.' }))
}, { $id: 'Party', title: 'Party', description: 'A client: the default customer or one of the other customers of a customer record (spec 2.5).' })
export type Party = Static<typeof Party>

export const CustomerRecord = Type.Object({
  customerId: Type.String({ description: 'Customer unique id (at most 19 digits).' }),
  defaultAccountNumber: Type.Optional(Type.String({ description: 'Number of the call account created with the record.' })),
  customerReference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  agentReference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  adminFeePercent: Type.Optional(Type.String({ description: 'Administration fee percentage.' })),
  defaultCustomer: Type.Optional(ref(Party)),
  otherCustomers: Type.Optional(Type.Array(ref(Party)))
}, { $id: 'CustomerRecord', title: 'CustomerRecord', description: 'A customer record (spec 2.5).' })
export type CustomerRecord = Static<typeof CustomerRecord>

export const CustomerCreateRequest = Type.Object({
  customerReference: Type.Optional(UpperText(1, 255, { description: 'Unique reference.' })),
  agentReference: Type.Optional(UpperText(1, 255, { description: 'Agent reference.' })),
  adminFeePercent: Type.Optional(DigitString(2, 2, { description: 'Administration fee percentage, e.g. 1.50.' })),
  createCallAccount: Type.Optional(Type.Boolean({ deprecated: true, description: 'Deprecated (spec 4.8). The sandbox creates a call account unless this is false.' })),
  defaultCustomer: ref(Party),
  otherCustomers: Type.Optional(Type.Array(ref(Party), { description: 'Other clients of the record; must not repeat the default customer (rule DefaultCustomerNotRepeated).' }))
}, { $id: 'CustomerCreateRequest', title: 'CustomerCreateRequest', description: 'Creates a customer record from a default customer (spec 4.8).' })
export type CustomerCreateRequest = Static<typeof CustomerCreateRequest>

export const CustomerIdParams = Type.Object({
  customerId: DigitString(19, 0, { description: 'Customer id.' })
})

export const CustomerPage = PageOf('CustomerPage', 'customers', ref(CustomerRecord))

export const CUSTOMER_SCHEMAS = [Party, CustomerRecord, CustomerCreateRequest, CustomerPage]
