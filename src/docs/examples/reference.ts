import type { ExampleContext } from './context.js'
import { pageReply } from '../../store/paging.js'
import type { Paging } from '../../schemas/common.js'
import type { PageInfo } from '../../store/paging.js'
import { paged } from './responses.js'
import type { OperationExamples, OperationsExamples } from './types.js'

/** Examples of the reference data: public accounts, banks, investment types and products (spec 4.4, 4.5, 4.14, 4.16). */
export function referenceExamples (c: ExampleContext): OperationsExamples {
  const { kit, repos } = c
  const productCode = c.account.productCode
  const longCode = 'P'.repeat(257)
  /** A list of reference data: a page of it, size=0, and the answers every operation has. */
  const list = <T>(path: string, query: string, schemaId: string, name: string, read: (p: Paging) => { page: PageInfo, items: T[] }, summary: string): OperationExamples => ({
    responses: [
      kit.ok(query === '' ? path : `${path}?${query}`, schemaId, pageReply(name, read(paged(query))), summary),
      kit.sizeError(path),
      ...kit.common(path)
    ]
  })
  const publicAccounts = list('/api/accounts/public', 'size=3', 'PublicAccountPage', 'publicAccounts', repos.reference.publicAccounts, 'The first three public accounts')
  // one by name: the example value of the name parameter (fill-examples.ts takes it from the first success)
  const named = repos.reference.publicAccounts(paged('')).items.find((a) => a.name !== undefined)?.name
  if (named !== undefined) {
    const query = `name=${encodeURIComponent(named)}`
    publicAccounts.responses.unshift(kit.ok(`/api/accounts/public?${query}`, 'PublicAccountPage', pageReply('publicAccounts', repos.reference.publicAccounts(paged(query), named)), `The public account named ${named}`, { name: 'byName' }))
  }
  return {
    'GET /api/accounts/public': publicAccounts,
    'GET /api/banks': list('/api/banks', 'size=3', 'BankPage', 'banks', repos.reference.banks, 'The first three banks'),
    'GET /api/investment-types': list('/api/investment-types', '', 'InvestmentTypePage', 'investmentTypes', repos.reference.investmentTypes, 'Every investment type'),
    'GET /api/products': list('/api/products', '', 'ProductPage', 'products', repos.reference.products, 'Every product'),
    'GET /api/products/{productCode}': {
      params: { productCode },
      responses: [
        kit.ok(`/api/products/${productCode}`, 'Product', repos.reference.product(productCode), `Product ${productCode}`),
        kit.notFoundError('/api/products/NO-SUCH-PRODUCT', 'Product', 'NO-SUCH-PRODUCT', 'An unknown product code'),
        {
          status: 400,
          name: 'invalidParameter',
          summary: 'A code of 257 characters',
          request: { method: 'GET', url: `/api/products/${longCode}` },
          value: kit.error(400, 'productCode: size must be between 1 and 256', `/api/products/${longCode}`, [{ field: 'productCode', rejectedValue: longCode, defaultMessage: 'size must be between 1 and 256', code: 'Size' }])
        },
        ...kit.common(`/api/products/${productCode}`)
      ]
    }
  }
}
