import { luhnCheckDigit } from '../rules/identity-numbers.js'
import type { BodyKind, Mutation } from './types.js'

/*
 * Valid bodies for the create operations, new on every call (a target keeps what earlier runs created: a
 * repeated reference or identity number must not turn a valid probe into a conflict). Values are random but
 * valid by construction: a South African ID number with a real date of birth and its Luhn digit; references
 * to the side's own banks, products and customers.
 */

type Json = Record<string, unknown>

function digits (n: number): string {
  let out = ''
  for (let i = 0; i < n; i++) out += String(Math.floor(Math.random() * 10))
  return out
}

function letters (n: number): string {
  let out = ''
  for (let i = 0; i < n; i++) out += String.fromCharCode(65 + Math.floor(Math.random() * 26))
  return out
}

/** YYMMDD SSSS C A Z: born 1950-1999 on a day every month has, citizen, Luhn digit. */
export function southAfricanId (): string {
  const yy = String(50 + Math.floor(Math.random() * 50))
  const mm = String(1 + Math.floor(Math.random() * 12)).padStart(2, '0')
  const dd = String(1 + Math.floor(Math.random() * 28)).padStart(2, '0')
  const first12 = `${yy}${mm}${dd}${digits(4)}08`
  return `${first12}${luhnCheckDigit(first12)}`
}

export function validBody (kind: BodyKind, vars: Record<string, string>): Json {
  switch (kind) {
    case 'account':
      return { customerId: vars.customerId, productCode: vars.productCode }
    case 'beneficiary':
      return {
        name: `PARITY ${letters(6)}`,
        bankCode: vars.bankCode,
        accountType: 'C',
        accountNumber: `4${digits(9)}`,
        beneficiaryReference: `PARITY ${letters(6)}`,
        clientReference: `PARITY ${letters(6)}`,
        accountCategory: '3RD PARTY'
      }
    case 'customer':
      return {
        customerReference: `PARITY-${letters(4)}${digits(6)}`,
        agentReference: `PARITY ${letters(6)}`,
        adminFeePercent: '1.50',
        defaultCustomer: {
          entityTypeId: '1',
          name1: `PARITY${letters(4)}`,
          name2: `PROBE ${letters(5)}`,
          mobilePhoneNumber: `2782${digits(7)}`,
          email: `PARITY.${letters(6)}@EXAMPLE.CO.ZA`,
          kycStatus: true,
          identifyingNumber: southAfricanId(),
          taxNumber: digits(10),
          address: `${1 + Math.floor(Math.random() * 999)} PARITY STREET, JOHANNESBURG, 2196`,
          investmentTypeId: Number(vars.investmentTypeId ?? 1)
        }
      }
    case 'message':
      return { message: `PARITY PROBE ${letters(8)}`, fromDepartment: 'PARITY KIT', fromPerson: `PROBE ${letters(5)}` }
  }
}

/** Values of RULE_BREAKS that depend on the body they break. */
function resolve (value: unknown, body: Json): unknown {
  const party = body.defaultCustomer as Json | undefined
  if (value === '{defaultCustomerCopy}') return [{ ...party }]
  if (value === '{idWrongCheckDigit}') {
    const id = String(party?.identifyingNumber)
    return `${id.slice(0, 12)}${(Number(id[12]) + 1) % 10}`
  }
  return value
}

export function mutate (body: Json, mutations: Mutation[]): Json {
  const out = structuredClone(body)
  for (const m of mutations) {
    const keys = m.path.split('.')
    let at: Json = out
    for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Json
    const last = keys[keys.length - 1]
    if (m.remove === true) delete at[last]
    else at[last] = resolve(m.set, body)
  }
  return out
}
