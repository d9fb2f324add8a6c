import type { Bank } from './banks.js'
import type { InvestmentType } from './investment-types.js'
import type { Product } from './products.js'
import type { PublicAccount } from './public-accounts.js'

/** The static reference data of fixtures/, checked against the API schemas and indexed. */
export interface Reference {
  banks: Bank[]
  banksById: Map<string, Bank>
  homeBank: Bank
  investmentTypes: InvestmentType[]
  investmentTypesById: Map<number, InvestmentType>
  defaultInvestmentTypeId: number
  publicAccounts: PublicAccount[]
  publicAccountsByName: Map<string, PublicAccount>
  products: Product[]
  productsByCode: Map<string, Product>
  callProduct: Product
}
