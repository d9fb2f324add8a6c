import { todaySast } from '../clock.js'

/*
 * South African identity numbers (reference/south-africa.md): the rules JSON Schema cannot express.
 * Each check returns null when the value is valid, else the reason in words a partner can act on.
 */

/** Luhn mod-10 check digit for a string of digits (the digit that would be appended). */
export function luhnCheckDigit (digits: string): number {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return (10 - (sum % 10)) % 10
}

function isRealDate (year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}

/** spec 2.5 entityTypeId 1: YYMMDD SSSS C A Z, a real date of birth (either century) and a Luhn check digit. */
export function southAfricanIdProblem (value: string): string | null {
  if (!/^\d{13}$/.test(value)) return 'must be a South African ID number of 13 digits (YYMMDDSSSSCAZ)'
  const yy = Number(value.slice(0, 2))
  const mm = Number(value.slice(2, 4))
  const dd = Number(value.slice(4, 6))
  if (!isRealDate(1900 + yy, mm, dd) && !isRealDate(2000 + yy, mm, dd)) {
    return `must start with a real date of birth YYMMDD (${value.slice(0, 6)} is not a calendar date)`
  }
  if (luhnCheckDigit(value.slice(0, 12)) !== Number(value[12])) return 'must end with a valid Luhn check digit'
  return null
}

// spec 2.5: company-type codes allowed as NN
export const COMPANY_TYPE_CODES: Record<string, string> = {
  '06': 'public company (Ltd)',
  '07': 'private company (Pty) Ltd',
  '08': 'non-profit company',
  '09': 'company limited by guarantee',
  10: 'external company',
  12: 'non-profit external company',
  21: 'personal liability company (Inc)',
  22: 'unlimited company',
  23: 'close corporation (CC)',
  24: 'primary co-operative',
  25: 'secondary co-operative',
  26: 'tertiary co-operative',
  30: 'state-owned company',
  31: 'statutory body'
}

/**
 * spec 2.5 entityTypeId 4, 5, 6: YYYY/NNNNNN/NN, 1800 <= YYYY <= this year, NN a company-type code.
 * `now` (epoch ms) is the partner's clock when a request is judged.
 */
export function companyRegistrationProblem (value: string, now = Date.now()): string | null {
  const m = /^(\d{4})\/(\d{6})\/(\d{2})$/.exec(value)
  if (m === null) return 'must be a company registration number YYYY/NNNNNN/NN'
  const year = Number(m[1])
  // "not in the future" as seen in South Africa (the year turns at midnight SAST, not UTC)
  const thisYear = Number(todaySast(now).slice(0, 4))
  if (year < 1800 || year > thisYear) return `must have a registration year from 1800 to ${thisYear}`
  if (COMPANY_TYPE_CODES[m[3]] === undefined) {
    return `must end with a company-type code (${Object.keys(COMPANY_TYPE_CODES).join(', ')})`
  }
  return null
}
