import { Type, type Static } from '@sinclair/typebox'
import { PageOf, ref } from './common.js'

export const InvestmentType = Type.Object({
  id: Type.Integer(),
  description: Type.String()
}, { $id: 'InvestmentType', title: 'InvestmentType', description: 'An investment type (spec 2.8).' })
export type InvestmentType = Static<typeof InvestmentType>

export const InvestmentTypePage = PageOf('InvestmentTypePage', 'investmentTypes', ref(InvestmentType))

export const INVESTMENT_TYPE_SCHEMAS = [InvestmentType, InvestmentTypePage]
