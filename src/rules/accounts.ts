import type { FieldError } from '../errors.js'
import type { Reference } from '../schemas/reference.js'
import { RuleErrors, isObject } from './field-errors.js'

// spec 4.3 / 4.16: productCode must be a product of GET /api/products.
export function accountRules (body: unknown, ref: Reference): FieldError[] {
  const errors = new RuleErrors()
  if (!isObject(body)) return errors.list
  const { productCode } = body
  if (typeof productCode === 'string' && productCode !== '' && !ref.productsByCode.has(productCode)) {
    errors.add('productCode', productCode, 'KnownProduct', 'must be the productCode of a product of GET /api/products')
  }
  return errors.list
}
