import t, { type Test } from 'tap'
import { digitsOk } from '../../src/schemas/validation.js'

/*
 * digitsOk is Bean Validation's @Digits on a String (Hibernate's DigitsValidatorForCharSequence): the
 * value is parsed as java.math.BigDecimal (unparsable -> invalid), then precision - scale integral digits
 * and max(scale, 0) fraction digits are compared with the limits.
 */

const MOBILE = { integer: 14, fraction: 0 } // spec 2.5 mobilePhoneNumber
const FEE = { integer: 2, fraction: 2 } // spec 4.8 adminFeePercent
const CUSTOMER_ID = { integer: 19, fraction: 0 } // spec 4 customerId, beneficiaryId
const ACCOUNT_ID = { integer: 16, fraction: 0 } // spec 4 accountId

function check (t: Test, rule: { integer: number, fraction: number }, value: string, expected: boolean, why: string): void {
  t.equal(digitsOk(value, rule), expected, `${JSON.stringify(value)} ${expected ? 'passes' : 'fails'} @Digits(${rule.integer}, ${rule.fraction}): ${why}`)
}

t.test('mobile numbers: @Digits(14, 0) counts the digits of the parsed number', async (t) => {
  check(t, MOBILE, '27821234567', true, '11 digits')
  check(t, MOBILE, '0821234567', true, 'the leading zero is not a digit of the number: 9 integral digits')
  check(t, MOBILE, '+27821234567', true, 'a leading + is a sign')
  check(t, MOBILE, '12345678901234', true, 'exactly 14 digits')
  check(t, MOBILE, '123456789012345', false, '15 digits')
  check(t, MOBILE, '000000000012345678901234', true, 'leading zeros do not count')
  check(t, MOBILE, '082 123 4567', false, 'spaces do not parse')
  check(t, MOBILE, '082-123-4567', false, 'hyphens do not parse')
  check(t, MOBILE, '(082)1234567', false, 'brackets do not parse')
  check(t, MOBILE, ' 0821234567', false, 'no trimming')
  check(t, MOBILE, '', false, 'the empty string is not a number')
  check(t, MOBILE, '0821234567.5', false, 'a fraction digit where 0 are allowed')
  check(t, MOBILE, '0821234567.', true, 'BigDecimal accepts a trailing point (scale 0)')
  check(t, MOBILE, '-27821234567', true, 'a minus sign parses too')
})

t.test('adminFeePercent: @Digits(2, 2)', async (t) => {
  check(t, FEE, '1.50', true, '1 integral, 2 fraction digits')
  check(t, FEE, '12.5', true, '2 integral, 1 fraction digit')
  check(t, FEE, '99.99', true, 'the largest value')
  check(t, FEE, '0', true, 'zero')
  check(t, FEE, '0.00', true, 'zero with two decimals')
  check(t, FEE, '.5', true, 'BigDecimal accepts a missing integral part')
  check(t, FEE, '05.25', true, 'a leading zero does not count')
  check(t, FEE, '1.555', false, '3 fraction digits')
  check(t, FEE, '100', false, '3 integral digits')
  check(t, FEE, '100.0', false, '3 integral digits')
  check(t, FEE, '1,5', false, 'a decimal comma does not parse')
  check(t, FEE, '1.5%', false, 'a percent sign does not parse')
  check(t, FEE, 'abc', false, 'not a number')
  check(t, FEE, '.', false, 'a lone point does not parse')
  check(t, FEE, 'NaN', false, 'BigDecimal has no NaN')
  check(t, FEE, 'Infinity', false, 'BigDecimal has no Infinity')
  check(t, FEE, '0x10', false, 'no hexadecimal')
})

t.test('exponent forms are parsed as BigDecimal parses them', async (t) => {
  check(t, FEE, '1.5E1', true, '15: 2 integral digits, scale 0')
  check(t, FEE, '1E-2', true, '0.01: 2 fraction digits')
  check(t, FEE, '1e-3', false, '0.001: 3 fraction digits')
  check(t, FEE, '1E+2', false, '100: precision 1, scale -2 -> 3 integral digits')
  check(t, FEE, '0E+3', false, 'zero with scale -3 still has 4 integral digits for BigDecimal')
  check(t, FEE, '1e', false, 'an exponent needs digits')
  check(t, FEE, 'E2', false, 'a mantissa is needed')
  check(t, MOBILE, '2.7821234567E10', true, '27821234567 has 11 integral digits')
  check(t, MOBILE, '1E14', false, '15 integral digits')
  check(t, MOBILE, '1E13', true, '14 integral digits')
})

t.test('identifiers: 19 digits for customerId and beneficiaryId, 16 for accountId', async (t) => {
  check(t, CUSTOMER_ID, '1001100000001', true, '13 digits')
  check(t, CUSTOMER_ID, '1234567890123456789', true, '19 digits')
  check(t, CUSTOMER_ID, '12345678901234567890', false, '20 digits')
  check(t, CUSTOMER_ID, '01234567890123456789', true, '20 characters but 19 digits after the leading zero')
  check(t, CUSTOMER_ID, '1001100000001.0', false, 'a fraction digit')
  check(t, CUSTOMER_ID, 'CUST-1', false, 'not a number')
  check(t, ACCOUNT_ID, '1234567890123456', true, '16 digits')
  check(t, ACCOUNT_ID, '12345678901234567', false, '17 digits')
})
