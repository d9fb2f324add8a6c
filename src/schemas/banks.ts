import { Type, type Static } from '@sinclair/typebox'
import { PageOf, ref } from './common.js'

export const Bank = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 10, description: 'Bank unique member number.' }),
  shortName: Type.String({ minLength: 1, maxLength: 30 }),
  fullName: Type.String({ description: 'Bank member full name.' }),
  defaultBranchCode: Type.String({ minLength: 1, maxLength: 6 }),
  swiftBic: Type.String({ minLength: 1, maxLength: 255, description: 'BIC code.' }),
  defaultBranchName: Type.String({ minLength: 1, maxLength: 255 }),
  foreign: Type.Optional(Type.Boolean({ description: 'Whether the bank is a South African branch of a foreign bank.' }))
}, { $id: 'Bank', title: 'Bank', description: 'A local bank available for transacting (spec 2.3).' })
export type Bank = Static<typeof Bank>

export const BankPage = PageOf('BankPage', 'banks', ref(Bank))

export const BANK_SCHEMAS = [Bank, BankPage]
