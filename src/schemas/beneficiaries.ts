import { Type, type Static } from '@sinclair/typebox'
import { DigitString, PageOf, UpperText, ref } from './common.js'

// spec 4.7 allowed values
export const BENEFICIARY_ACCOUNT_TYPES: Record<string, string> = { C: 'CURRENT', S: 'SAVINGS', T: 'TRANSMISSION', B: 'BOND ACCOUNT' }
export const BENEFICIARY_ACCOUNT_CATEGORIES = ['3RD PARTY', 'MANDATED']

export const Beneficiary = Type.Object({
  beneficiaryId: Type.String({ description: 'Unique id (at most 19 digits).' }),
  name: Type.String(),
  bankCode: Type.String({ minLength: 1, maxLength: 10, description: 'Bank unique member number.' }),
  bankName: Type.String({ minLength: 1, maxLength: 30 }),
  branchCode: Type.String({ minLength: 1, maxLength: 6 }),
  branchName: Type.String(),
  accountType: Type.String({ description: 'Account type as submitted (C, S, T or B).' }),
  accountNumber: Type.String(),
  beneficiaryReference: Type.String({ minLength: 1, maxLength: 30 }),
  clientReference: Type.String({ minLength: 1, maxLength: 30 }),
  accountCategory: Type.Optional(Type.String())
}, { $id: 'Beneficiary', title: 'Beneficiary', description: 'A beneficiary of a customer (spec 2.4).' })
export type Beneficiary = Static<typeof Beneficiary>

export const BeneficiaryCreateRequest = Type.Object({
  name: UpperText(1, 255, { description: 'Beneficiary name.' }),
  bankCode: Type.String({ minLength: 1, maxLength: 10, description: 'Id of a bank of GET /api/banks (rule KnownBank).' }),
  branchCode: Type.Optional(Type.String({ minLength: 1, maxLength: 6, description: "Branch code; the bank's default branch when absent." })),
  accountType: Type.String({ minLength: 1, maxLength: 1, enum: Object.keys(BENEFICIARY_ACCOUNT_TYPES), description: 'C = CURRENT, S = SAVINGS, T = TRANSMISSION, B = BOND ACCOUNT.' } as object),
  accountNumber: Type.String({ minLength: 1, maxLength: 16, pattern: '^[0-9]+$', description: 'Digits only.' }),
  beneficiaryReference: UpperText(1, 30, { description: "Reference that appears on the beneficiary's transaction." }),
  clientReference: UpperText(1, 30, { description: "Reference that appears on the client's transaction." }),
  accountCategory: Type.String({ minLength: 1, maxLength: 10, enum: BENEFICIARY_ACCOUNT_CATEGORIES, description: '3RD PARTY or MANDATED.' } as object)
}, { $id: 'BeneficiaryCreateRequest', title: 'BeneficiaryCreateRequest', description: 'Creates a beneficiary (spec 4.7).' })
export type BeneficiaryCreateRequest = Static<typeof BeneficiaryCreateRequest>

export const BeneficiaryParams = Type.Object({
  customerId: DigitString(19, 0, { description: 'Customer id.' }),
  beneficiaryId: DigitString(19, 0, { description: 'Beneficiary id.' })
})

export const BeneficiaryPage = PageOf('BeneficiaryPage', 'beneficiaries', ref(Beneficiary))

export const BENEFICIARY_SCHEMAS = [Beneficiary, BeneficiaryCreateRequest, BeneficiaryPage]
