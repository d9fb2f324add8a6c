import { Type, type Static } from '@sinclair/typebox'
import { PageOf, ref } from './common.js'

// spec 2.10 / 4.16: only productCode (size 1-256) is shown; the other fields are the sandbox's.
export const Product = Type.Object({
  productCode: Type.String({ minLength: 1, maxLength: 256 }),
  name: Type.String(),
  description: Type.String(),
  accountType: Type.String({ description: 'accountType of the accounts opened with this product.' }),
  callAccount: Type.Boolean({ description: 'True for the call account opened when no productCode is given.' })
}, { $id: 'Product', title: 'Product', description: 'A product offered to the agent (spec 4.16; fields other than productCode are the sandbox\'s assumption).' })
export type Product = Static<typeof Product>

export const ProductParams = Type.Object({
  productCode: Type.String({ minLength: 1, maxLength: 256 })
})

export const ProductPage = PageOf('ProductPage', 'products', ref(Product))

export const PRODUCT_SCHEMAS = [Product, ProductPage]
