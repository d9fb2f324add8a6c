import { notFound } from '../errors.js'
import type { Paging } from '../schemas/common.js'
import type { Product } from '../schemas/products.js'
import { pageOf } from './paging.js'
import type { World } from './world.js'

/** The fixtures served as lists (spec 4.4, 4.14, 4.15, 4.16): the same for every agent. */
export function referenceRepo (world: World) {
  const ref = world.reference
  return {
    banks: (paging: Paging) => pageOf(ref.banks, paging),
    investmentTypes: (paging: Paging) => pageOf(ref.investmentTypes, paging),
    products: (paging: Paging) => pageOf(ref.products, paging),

    /** spec 4.15: name, when present, selects the public account with that name (case and edge spaces ignored). */
    publicAccounts (paging: Paging, name?: string) {
      if (name === undefined) return pageOf(ref.publicAccounts, paging)
      const wanted = name.trim().toUpperCase()
      return pageOf(ref.publicAccounts.filter((p) => p.name?.toUpperCase() === wanted), paging)
    },

    product (productCode: string): Product {
      const product = ref.productsByCode.get(productCode)
      if (product === undefined) throw notFound('Product', productCode)
      return product
    }
  }
}
