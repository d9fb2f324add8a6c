import t from 'tap'
import { todaySast } from '../../src/clock.js'
import { COMPANY_TYPE_CODES, companyRegistrationProblem, luhnCheckDigit, southAfricanIdProblem } from '../../src/rules/identity-numbers.js'

/** A 13-digit ID number with the given first 12 digits and its correct Luhn check digit. */
function withCheckDigit (first12: string): string {
  return first12 + String(luhnCheckDigit(first12))
}

t.test('luhnCheckDigit computes the Luhn mod-10 digit to append', async (t) => {
  t.equal(luhnCheckDigit('7992739871'), 3, 'the textbook example 7992739871 -> 3')
  t.equal(luhnCheckDigit('800101500908'), 7, 'reference vector 8001015009087')
  t.equal(luhnCheckDigit('900104981808'), 0, 'reference vector 9001049818080')
  t.equal(luhnCheckDigit('880123511108'), 8, 'reference vector 8801235111088')
  t.equal(luhnCheckDigit('000133905'), 0, 'tax number vector 0001339050')
  t.equal(luhnCheckDigit('084308984'), 8, 'tax number vector 0843089848')
  t.equal(luhnCheckDigit(''), 0, 'no digits -> 0')
})

t.test('southAfricanIdProblem accepts the reference test vectors', async (t) => {
  for (const id of ['9001049818080', '8001015009087', '8801235111088']) {
    t.equal(southAfricanIdProblem(id), null, `${id} is valid`)
  }
})

t.test('southAfricanIdProblem accepts 29 February of a leap year in either century', async (t) => {
  t.equal(southAfricanIdProblem(withCheckDigit('000229500008')), null, '000229 (2000 was a leap year)')
  t.equal(southAfricanIdProblem(withCheckDigit('960229500008')), null, '960229 (1996 was a leap year)')
})

t.test('southAfricanIdProblem rejects dates that are not calendar dates', async (t) => {
  const cases: Array<[string, string]> = [
    ['990230', '30 February'],
    ['990229', '29 February 1999/2099 (not a leap year)'],
    ['800001', 'month 00'],
    ['801301', 'month 13'],
    ['800100', 'day 00'],
    ['800132', 'day 32'],
    ['800431', '31 April']
  ]
  for (const [date, what] of cases) {
    const id = withCheckDigit(`${date}500908`)
    t.match(southAfricanIdProblem(id), /real date of birth/, `${id}: ${what} is rejected`)
  }
})

t.test('southAfricanIdProblem rejects a wrong check digit', async (t) => {
  t.match(southAfricanIdProblem('8001015009088'), /Luhn check digit/)
  t.match(southAfricanIdProblem('9001049818081'), /Luhn check digit/)
})

t.test('southAfricanIdProblem rejects anything that is not 13 digits', async (t) => {
  for (const id of ['', '800101500908', '80010150090870', '800101500908X', '8001 015009087', ' 8001015009087', '+800101500908', '８００１０１５００９０８７']) {
    t.match(southAfricanIdProblem(id), /13 digits/, `${JSON.stringify(id)} is rejected`)
  }
})

t.test('companyRegistrationProblem accepts YYYY/NNNNNN/NN with every listed type code', async (t) => {
  const codes = ['06', '07', '08', '09', '10', '12', '21', '22', '23', '24', '25', '26', '30', '31']
  t.same(Object.keys(COMPANY_TYPE_CODES).sort(), codes, 'the catalogue is exactly the codes of spec 2.5')
  for (const code of codes) {
    t.equal(companyRegistrationProblem(`2000/000001/${code}`), null, `type code ${code} is accepted`)
  }
})

t.test('companyRegistrationProblem rejects type codes the spec does not list', async (t) => {
  for (const code of ['00', '01', '05', '11', '20', '27', '99']) {
    t.match(companyRegistrationProblem(`2000/000001/${code}`), /company-type code/, `type code ${code} is rejected`)
  }
})

t.test('companyRegistrationProblem takes years from 1800 to the current year', async (t) => {
  const today = Date.UTC(2026, 0, 15)
  t.match(companyRegistrationProblem('1799/123456/07', today), /from 1800 to 2026/, '1799 is too early')
  t.equal(companyRegistrationProblem('1800/123456/07', today), null, '1800 is accepted')
  t.equal(companyRegistrationProblem('2026/123456/07', today), null, 'the current year is accepted')
  t.match(companyRegistrationProblem('2027/123456/07', today), /from 1800 to 2026/, 'next year is in the future')
  t.match(companyRegistrationProblem('0000/123456/07', today), /from 1800/, 'year 0000 is rejected')
})

t.test('companyRegistrationProblem turns the year at midnight in South Africa, not in UTC', async (t) => {
  const newYearInJohannesburg = Date.UTC(2026, 11, 31, 23, 0)
  t.equal(companyRegistrationProblem('2027/000001/07', newYearInJohannesburg), null, '01:00 SAST on 1 January 2027 is already 2027')
  t.match(companyRegistrationProblem('2028/000001/07', newYearInJohannesburg), /from 1800 to 2027/)
})

t.test('companyRegistrationProblem uses the real current year by default', async (t) => {
  const thisYear = Number(todaySast().slice(0, 4))
  t.equal(companyRegistrationProblem(`${thisYear}/000001/07`), null, 'this year is accepted')
  t.match(companyRegistrationProblem(`${thisYear + 1}/000001/07`), /registration year/, 'next year is rejected')
})

t.test('companyRegistrationProblem rejects values not shaped YYYY/NNNNNN/NN', async (t) => {
  for (const value of ['', '2000/000001', '2000/00001/07', '2000/0000001/07', '200/000001/07', '2000-000001-07',
    '2000/000001/7', '2000/000001/070', ' 2000/000001/07', '2000/000001/07 ', 'ABCD/000001/07', '2000/00000A/07', 'K2000/000001/07']) {
    t.match(companyRegistrationProblem(value), /YYYY\/NNNNNN\/NN/, `${JSON.stringify(value)} is rejected`)
  }
})
