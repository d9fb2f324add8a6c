import type { FieldError } from '../errors.js'
import type { Reference } from '../schemas/reference.js'
import { RuleErrors, isObject } from './field-errors.js'
import { companyRegistrationProblem, southAfricanIdProblem } from './identity-numbers.js'

/*
 * spec 2.5 / 4.8 rules beyond the schema. They run on bodies that may have failed the schema too
 * (so that one answer lists every problem), hence the defensive type checks.
 */

function partyRules (party: unknown, path: string, ref: Reference, now: number, errors: RuleErrors): void {
  if (!isObject(party)) return
  const { entityTypeId, identifyingNumber, name2, investmentTypeId } = party
  if (typeof identifyingNumber === 'string' && identifyingNumber !== '') {
    let problem: string | null = null
    let code = ''
    if (entityTypeId === '1') {
      problem = southAfricanIdProblem(identifyingNumber)
      code = 'SouthAfricanIdNumber'
    } else if (entityTypeId === '4' || entityTypeId === '5' || entityTypeId === '6') {
      problem = companyRegistrationProblem(identifyingNumber, now)
      code = 'CompanyRegistrationNumber'
    }
    if (problem !== null) errors.add(`${path}.identifyingNumber`, identifyingNumber, code, problem)
  }
  if (entityTypeId === '1' && (typeof name2 !== 'string' || name2.trim() === '')) {
    errors.add(`${path}.name2`, name2, 'Name2RequiredForIndividual', 'must not be blank when entityTypeId is 1 (Individual): it holds the given names')
  }
  if (typeof investmentTypeId === 'number' && !ref.investmentTypesById.has(investmentTypeId)) {
    errors.add(`${path}.investmentTypeId`, investmentTypeId, 'KnownInvestmentType', 'must be the id of an investment type of GET /api/investment-types')
  }
}

/** The same client, as far as a bank can tell: same entity type and identifying number. */
function sameParty (a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return typeof a.identifyingNumber === 'string' &&
    a.entityTypeId === b.entityTypeId &&
    a.identifyingNumber.trim().toUpperCase() === String(b.identifyingNumber).trim().toUpperCase()
}

/** `now`: the partner's clock for a request (a company's registration year may not be past its today). */
export function customerRules (body: unknown, ref: Reference, now = Date.now()): FieldError[] {
  const errors = new RuleErrors()
  if (!isObject(body)) return errors.list
  partyRules(body.defaultCustomer, 'defaultCustomer', ref, now, errors)
  if (Array.isArray(body.otherCustomers)) {
    body.otherCustomers.forEach((other, i) => {
      const path = `otherCustomers[${i}]`
      partyRules(other, path, ref, now, errors)
      if (isObject(other) && isObject(body.defaultCustomer) && sameParty(other, body.defaultCustomer)) {
        errors.add(`${path}.identifyingNumber`, other.identifyingNumber, 'DefaultCustomerNotRepeated', 'must not repeat the default customer')
      }
    })
  }
  return errors.list
}
