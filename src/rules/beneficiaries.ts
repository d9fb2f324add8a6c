import type { FieldError } from '../errors.js'
import type { Reference } from '../schemas/reference.js'
import { RuleErrors, isObject } from './field-errors.js'

// spec 4.7: bankCode is "bank unique member number": it must name a bank of GET /api/banks.
export function beneficiaryRules (body: unknown, ref: Reference): FieldError[] {
  const errors = new RuleErrors()
  if (!isObject(body)) return errors.list
  const { bankCode } = body
  if (typeof bankCode === 'string' && bankCode !== '' && !ref.banksById.has(bankCode)) {
    errors.add('bankCode', bankCode, 'KnownBank', 'must be the id of a bank of GET /api/banks')
  }
  return errors.list
}
