import type { DataValidator } from '../schemas/validation.js'
import { readFileSync } from 'node:fs'
import type { Bank } from '../schemas/banks.js'
import type { InvestmentType } from '../schemas/investment-types.js'
import type { PublicAccount } from '../schemas/public-accounts.js'
import type { Product } from '../schemas/products.js'
import type { Reference } from '../schemas/reference.js'
import { DataError, checkAgainst } from './check.js'
import { checkEverything, type Verified } from './verified.js'
import { ROOT } from '../files.js'

export const FIXTURES_DIR = new URL('fixtures/', ROOT)

function readJson (name: string): { json: Record<string, unknown>, text: string } {
  const url = new URL(name, FIXTURES_DIR)
  try {
    const text = readFileSync(url, 'utf8')
    return { json: JSON.parse(text), text }
  } catch (err) {
    throw new DataError(`fixtures/${name}: cannot be read as JSON (${(err as Error).message})`)
  }
}

/** The items under key of a fixture file, each checked against schemaId (unless the build did), and the file itself. */
function list<T> (ajv: DataValidator, verified: Verified, name: string, key: string, schemaId: string, idOf: (x: T) => string | number): { items: T[], file: Record<string, unknown> } {
  const { json: file, text } = readJson(name)
  const checked = verified(`fixtures/${name}`, text)
  const items = file[key]
  if (!Array.isArray(items) || items.length === 0) throw new DataError(`fixtures/${name}: ${key} must be a non-empty array`)
  const seen = new Set<string | number>()
  items.forEach((item, i) => {
    if (!checked) checkAgainst(ajv, schemaId, item, `fixtures/${name}: ${key}[${i}]`)
    const id = idOf(item as T)
    if (seen.has(id)) throw new DataError(`fixtures/${name}: ${key}[${i}]: duplicate id ${JSON.stringify(id)}`)
    seen.add(id)
  })
  return { items: items as T[], file }
}

/** The reference data; verified: the files the build already checked (seed/verified.ts). */
export function loadReference (ajv: DataValidator, verified: Verified = checkEverything): Reference {
  const { items: banks, file: banksFile } = list<Bank>(ajv, verified, 'banks.json', 'banks', 'Bank', (b) => b.id)
  const banksById = new Map(banks.map((b) => [b.id, b]))
  const homeBankId = banksFile.homeBankId as string
  const homeBank = banksById.get(homeBankId)
  if (homeBank === undefined) throw new DataError(`fixtures/banks.json: homeBankId ${JSON.stringify(homeBankId)} is not a bank id`)

  const { items: investmentTypes, file: investmentTypesFile } = list<InvestmentType>(ajv, verified, 'investment-types.json', 'investmentTypes', 'InvestmentType', (t) => t.id)
  const investmentTypesById = new Map(investmentTypes.map((t) => [t.id, t]))
  const defaultInvestmentTypeId = investmentTypesFile.defaultId as number
  if (!investmentTypesById.has(defaultInvestmentTypeId)) throw new DataError('fixtures/investment-types.json: defaultId is not an investment type id')

  const { items: publicAccounts } = list<PublicAccount>(ajv, verified, 'public-accounts.json', 'publicAccounts', 'PublicAccount', (p) => p.accountId ?? '')
  const { items: products } = list<Product>(ajv, verified, 'products.json', 'products', 'Product', (p) => p.productCode)
  const callProduct = products.find((p) => p.callAccount)
  if (callProduct === undefined) throw new DataError('fixtures/products.json: no product has callAccount true')

  return {
    banks,
    banksById,
    homeBank,
    investmentTypes,
    investmentTypesById,
    defaultInvestmentTypeId,
    publicAccounts,
    publicAccountsByName: new Map(publicAccounts.map((p) => [p.name ?? '', p])),
    products,
    productsByCode: new Map(products.map((p) => [p.productCode, p])),
    callProduct
  }
}
