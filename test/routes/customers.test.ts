import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { todaySast } from '../../src/clock.js'
import { luhnCheckDigit } from '../../src/rules/identity-numbers.js'
import { PARTNER_B, api, build, tokenFor, userToken } from '../helper.js'

/* spec 2.5, 4.8-4.11: customer records, their create request and every field rule of Party. */

type Json = Record<string, any>
interface FieldErrorJson { field: string, rejectedValue: unknown, defaultMessage: string, code: string }

function individual (): Json {
  return {
    entityTypeId: '1',
    name1: 'MOKOENA',
    name2: 'THABO JAMES',
    mobilePhoneNumber: '27821234567',
    email: 'THABO.MOKOENA@EXAMPLE.CO.ZA',
    kycStatus: true,
    identifyingNumber: '8001015009087',
    taxNumber: '0001339050',
    address: '12 JAN SMUTS AVENUE, ROSEBANK, JOHANNESBURG, 2196'
  }
}

function trust (): Json {
  return { entityTypeId: '3', name1: 'THE NAIDOO FAMILY TRUST', identifyingNumber: 'IT 1234/2019(G)', taxNumber: '9001234567' }
}

function company (): Json {
  return { entityTypeId: '5', name1: 'ACACIA PROPERTY HOLDINGS (PTY) LTD', identifyingNumber: '2000/000001/07', taxNumber: '9012345675' }
}

/** A create request that passes every rule; each field case below changes one thing of it. */
function validRequest (): Json {
  return {
    customerReference: 'CUST-T-0001',
    agentReference: 'MATTER 7/2026',
    adminFeePercent: '1.50',
    defaultCustomer: individual(),
    otherCustomers: [trust(), company()]
  }
}

const ABSENT = Symbol('absent')

/** validRequest() with the value at a path like "otherCustomers[1].name1" replaced (or removed). */
function withValue (path: string, value: unknown): Json {
  const body = validRequest()
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.')
  let target: Json = body
  for (const k of keys.slice(0, -1)) target = target[k]
  const last = keys[keys.length - 1]
  if (value === ABSENT) delete target[last]
  else target[last] = value
  return body
}

function show (value: unknown): string {
  if (value === ABSENT) return 'absent'
  if (typeof value === 'string' && value.length > 40) return `"${value[0]}"×${value.length}`
  return JSON.stringify(value)
}

function errorsOf (body: Json): FieldErrorJson[] {
  return Array.isArray(body.errors) ? body.errors : []
}

async function create (app: FastifyInstance, body: unknown, agent = '1001') {
  return await api(app, { url: '/api/customers', method: 'POST', body, agent })
}

async function countOf (app: FastifyInstance, url: string, agent = '1001'): Promise<number> {
  const res = await api(app, { url, agent })
  return res.json().page.totalElements
}

const thisYear = Number(todaySast().slice(0, 4))
const S255 = 'A'.repeat(255)
const S256 = 'A'.repeat(256)
const D = 'defaultCustomer'
const O0 = 'otherCustomers[0]' // the trust of validRequest()
const O1 = 'otherCustomers[1]' // the company of validRequest()

/*
 * Every field rule: [path, value, expected code or 'ok', why, field named in errors[] when not the path].
 * A failing case must answer 400 with an errors[] entry naming the field and the rule.
 */
type FieldCase = [path: string, value: unknown, expected: string, why: string, field?: string]
const FIELD_CASES: FieldCase[] = [
  // entityTypeId: allowed 1, 3, 4, 5, 6; @Digits(2, 0); required
  [`${D}.entityTypeId`, '1', 'ok', 'Individual'],
  [`${D}.entityTypeId`, '3', 'ok', 'Trust (any identifying number, name2 optional)'],
  [`${O1}.entityTypeId`, '4', 'ok', 'CC with a registration number'],
  [`${O1}.entityTypeId`, '5', 'ok', 'Pty (Ltd) with a registration number'],
  [`${O1}.entityTypeId`, '6', 'ok', 'Ltd with a registration number'],
  [`${O0}.entityTypeId`, 3, 'ok', 'a JSON number is converted to the String the way Jackson converts it'],
  [`${D}.entityTypeId`, '2', 'OneOf', 'not an entity type of spec 2.5'],
  [`${D}.entityTypeId`, '7', 'OneOf', 'not an entity type of spec 2.5'],
  [`${D}.entityTypeId`, '0', 'OneOf', 'not an entity type of spec 2.5'],
  [`${D}.entityTypeId`, '123', 'Digits', 'more than 2 integral digits'],
  [`${D}.entityTypeId`, '1.5', 'Digits', 'a fraction digit'],
  [`${D}.entityTypeId`, 'A', 'Digits', 'not a number'],
  [`${D}.entityTypeId`, ABSENT, 'NotNull', 'required'],
  [`${D}.entityTypeId`, null, 'NotNull', 'null is absent for Bean Validation'],
  [`${O1}.entityTypeId`, ABSENT, 'NotNull', 'required in otherCustomers too'],

  // name1: upper-case charset, must contain a letter, size 1-255, required
  [`${D}.name1`, "O'BRIEN-SMITH & CO. (PTY) LTD", 'ok', 'letters, space and punctuation'],
  [`${D}.name1`, 'A !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', 'ok', 'all 32 ASCII punctuation characters'],
  [`${D}.name1`, '1ST AVENUE 2', 'ok', 'digits with a letter'],
  [`${D}.name1`, S255, 'ok', 'exactly 255 characters'],
  [`${D}.name1`, S256, 'Size', '256 characters'],
  [`${D}.name1`, '', 'Size', 'empty'],
  [`${D}.name1`, 'mokoena', 'Pattern', 'lower case'],
  [`${D}.name1`, 'Mokoena', 'Pattern', 'mixed case'],
  [`${D}.name1`, '12345', 'Pattern', 'no letter'],
  [`${D}.name1`, '!!! ...', 'Pattern', 'punctuation and space but no letter'],
  [`${D}.name1`, 'MÖLLER', 'Pattern', 'a diacritic is not a Latin letter of the charset'],
  [`${D}.name1`, 'MOKOENA\tTHABO', 'Pattern', 'a tab is not a space'],
  [`${D}.name1`, 'MOKOENA\n', 'Pattern', 'a line break'],
  [`${D}.name1`, ABSENT, 'NotNull', 'required'],
  [`${D}.name1`, null, 'NotNull', 'null is absent for Bean Validation'],
  [`${O1}.name1`, 'acacia holdings', 'Pattern', 'lower case in otherCustomers[1]'],

  // name2: mandatory and non-blank for entity type 1, optional for the others, size 0-255
  [`${D}.name2`, 'THABO JAMES', 'ok', 'given names of an individual'],
  [`${D}.name2`, S255, 'ok', 'exactly 255 characters'],
  [`${O0}.name2`, ABSENT, 'ok', 'optional for a trust'],
  [`${O0}.name2`, '', 'ok', 'size 0 is allowed'],
  [`${O0}.name2`, null, 'ok', 'null is absent'],
  [`${O1}.name2`, '2ND NAME', 'ok', 'optional text for a company'],
  [`${D}.name2`, ABSENT, 'Name2RequiredForIndividual', 'mandatory for entity type 1'],
  [`${D}.name2`, null, 'Name2RequiredForIndividual', 'null is absent'],
  [`${D}.name2`, '', 'Name2RequiredForIndividual', 'empty for entity type 1'],
  [`${D}.name2`, '   ', 'Name2RequiredForIndividual', 'blank for entity type 1'],
  [`${D}.name2`, S256, 'Size', '256 characters'],
  [`${D}.name2`, 'thabo', 'Pattern', 'lower case'],
  [`${O0}.name2`, S256, 'Size', '256 characters for a trust'],
  [`${O0}.name2`, 'trustee', 'Pattern', 'lower case for a trust'],

  // mobilePhoneNumber: @Digits(14, 0), optional
  [`${D}.mobilePhoneNumber`, '27821234567', 'ok', '11 digits'],
  [`${D}.mobilePhoneNumber`, '+27821234567', 'ok', 'a leading + is a sign'],
  [`${D}.mobilePhoneNumber`, '0821234567', 'ok', 'a leading zero'],
  [`${D}.mobilePhoneNumber`, '12345678901234', 'ok', '14 digits'],
  [`${D}.mobilePhoneNumber`, ABSENT, 'ok', 'optional'],
  [`${D}.mobilePhoneNumber`, null, 'ok', 'null is absent'],
  [`${D}.mobilePhoneNumber`, '123456789012345', 'Digits', '15 digits'],
  [`${D}.mobilePhoneNumber`, '082 123 4567', 'Digits', 'spaces do not parse as a number'],
  [`${D}.mobilePhoneNumber`, '082-123-4567', 'Digits', 'hyphens do not parse as a number'],
  [`${D}.mobilePhoneNumber`, '0821234567.5', 'Digits', 'a fraction digit'],
  [`${D}.mobilePhoneNumber`, '', 'Digits', 'the empty string is not a number'],

  // email: well-formed and upper case, optional
  [`${D}.email`, 'THABO.MOKOENA@EXAMPLE.CO.ZA', 'ok', 'upper case address'],
  [`${D}.email`, "O'BRIEN+TRUST@EXAMPLE.COM", 'ok', 'punctuation in the local part'],
  [`${D}.email`, ABSENT, 'ok', 'optional'],
  [`${D}.email`, null, 'ok', 'null is absent'],
  [`${D}.email`, 'thabo.mokoena@example.co.za', 'Pattern', 'lower case'],
  [`${D}.email`, 'Thabo@EXAMPLE.CO.ZA', 'Pattern', 'mixed case'],
  [`${D}.email`, 'NOT-AN-EMAIL', 'Email', 'no @'],
  [`${D}.email`, 'THABO@', 'Email', 'no domain'],
  [`${D}.email`, '@EXAMPLE.COM', 'Email', 'no local part'],
  [`${D}.email`, 'THABO@@EXAMPLE.COM', 'Email', 'two @'],
  [`${D}.email`, 'THABO MOKOENA@EXAMPLE.COM', 'Email', 'a space'],
  // Hibernate's @Email, not ajv-formats': a one-label domain and the empty value pass, its length limits hold
  [`${D}.email`, 'ADMIN@LOCALHOST', 'ok', 'a domain of one label (Hibernate accepts it)'],
  [`${D}.email`, '', 'ok', 'empty (Hibernate\'s @Email accepts it)'],
  [`${D}.email`, `${'X'.repeat(64)}@EXAMPLE.COM`, 'ok', 'a local part of 64 characters'],
  [`${D}.email`, `${'X'.repeat(65)}@EXAMPLE.COM`, 'Email', 'a local part of 65 characters'],
  [`${D}.email`, `X@${'D'.repeat(64)}.COM`, 'Email', 'a domain label of 64 characters'],
  [`${D}.email`, 'X@-EXAMPLE.COM', 'Email', 'a label starting with a dash'],
  [`${D}.email`, 'X@EXAMPLE..COM', 'Email', 'an empty label'],
  [`${D}.email`, 'X..Y@EXAMPLE.COM', 'Email', 'two dots in the local part'],
  [`${D}.email`, 'X@[10.0.0.1]', 'ok', 'an IP literal'],

  // kycStatus: Boolean, optional
  [`${D}.kycStatus`, true, 'ok', 'true'],
  [`${D}.kycStatus`, false, 'ok', 'false'],
  [`${D}.kycStatus`, 'true', 'ok', 'Jackson reads the string "true" as a Boolean'],
  [`${D}.kycStatus`, ABSENT, 'ok', 'optional'],
  [`${D}.kycStatus`, null, 'ok', 'null is absent'],
  [`${D}.kycStatus`, 'maybe', 'typeMismatch', 'not a Boolean'],
  [`${D}.kycStatus`, { verified: true }, 'typeMismatch', 'an object is not a Boolean'],

  // identifyingNumber for an individual: a valid South African ID number
  [`${D}.identifyingNumber`, '9001049818080', 'ok', 'reference vector'],
  [`${D}.identifyingNumber`, '8801235111088', 'ok', 'reference vector'],
  [`${D}.identifyingNumber`, `000229500008${luhnCheckDigit('000229500008')}`, 'ok', '29 February 2000 (a leap year)'],
  [`${D}.identifyingNumber`, '8001015009088', 'SouthAfricanIdNumber', 'wrong Luhn check digit'],
  [`${D}.identifyingNumber`, `990230500008${luhnCheckDigit('990230500008')}`, 'SouthAfricanIdNumber', '30 February is not a date'],
  [`${D}.identifyingNumber`, `801301500008${luhnCheckDigit('801301500008')}`, 'SouthAfricanIdNumber', 'month 13'],
  [`${D}.identifyingNumber`, `800132500008${luhnCheckDigit('800132500008')}`, 'SouthAfricanIdNumber', 'day 32'],
  [`${D}.identifyingNumber`, '800101500908', 'SouthAfricanIdNumber', '12 digits'],
  [`${D}.identifyingNumber`, '2000/000001/07', 'SouthAfricanIdNumber', 'a registration number is not an ID number'],
  [`${D}.identifyingNumber`, '', 'Size', 'empty'],
  [`${D}.identifyingNumber`, ABSENT, 'NotNull', 'required'],
  // identifyingNumber for a trust: any 1-255 characters
  [`${O0}.identifyingNumber`, 'it 1234/2019 (g)', 'ok', 'any text for a trust'],
  [`${O0}.identifyingNumber`, '8001015009088', 'ok', 'no ID-number check for a trust'],
  [`${O0}.identifyingNumber`, S255, 'ok', '255 characters'],
  [`${O0}.identifyingNumber`, S256, 'Size', '256 characters'],
  [`${O0}.identifyingNumber`, '', 'Size', 'empty'],
  // identifyingNumber for CC, Pty, Ltd: YYYY/NNNNNN/NN, 1800 <= YYYY <= this year, NN a company-type code
  [`${O1}.identifyingNumber`, '1800/000001/23', 'ok', 'year 1800'],
  [`${O1}.identifyingNumber`, `${thisYear}/123456/06`, 'ok', 'this year'],
  [`${O1}.identifyingNumber`, '1799/000001/07', 'CompanyRegistrationNumber', 'year before 1800'],
  [`${O1}.identifyingNumber`, `${thisYear + 1}/000001/07`, 'CompanyRegistrationNumber', 'a year in the future'],
  [`${O1}.identifyingNumber`, '2000/000001/01', 'CompanyRegistrationNumber', 'type code 01 is not listed'],
  [`${O1}.identifyingNumber`, '2000/000001/11', 'CompanyRegistrationNumber', 'type code 11 is not listed'],
  [`${O1}.identifyingNumber`, '2000/000001/99', 'CompanyRegistrationNumber', 'type code 99 is not listed'],
  [`${O1}.identifyingNumber`, '2000-000001-07', 'CompanyRegistrationNumber', 'wrong separators'],
  [`${O1}.identifyingNumber`, '2000/00001/07', 'CompanyRegistrationNumber', 'a 5-digit sequence'],
  [`${O1}.identifyingNumber`, '8001015009087', 'CompanyRegistrationNumber', 'an ID number is not a registration number'],
  [`${O1}.entityTypeId`, '4', 'ok', 'a CC with a Pty type code 07: the spec does not require the pair to match'],
  [`${O0}.entityTypeId`, '4', 'CompanyRegistrationNumber', 'a CC needs a registration number, a trust number is not one', `${O0}.identifyingNumber`],
  [`${D}.entityTypeId`, '6', 'CompanyRegistrationNumber', 'the entity type decides the format: an ID number is not a Ltd number', `${D}.identifyingNumber`],
  [D, { ...company(), entityTypeId: '4', identifyingNumber: '2005/123456/23' }, 'ok', 'a CC as the default customer'],
  [D, { ...company(), identifyingNumber: '2005/123456' }, 'CompanyRegistrationNumber', 'a company as the default customer', `${D}.identifyingNumber`],

  // taxNumber: size 1-255, required
  [`${D}.taxNumber`, '0843089848', 'ok', 'a 10-digit tax reference'],
  [`${D}.taxNumber`, 'n/a', 'ok', 'only the size is checked'],
  [`${D}.taxNumber`, S255, 'ok', '255 characters'],
  [`${D}.taxNumber`, S256, 'Size', '256 characters'],
  [`${D}.taxNumber`, '', 'Size', 'empty'],
  [`${D}.taxNumber`, ABSENT, 'NotNull', 'required'],
  [`${O0}.taxNumber`, ABSENT, 'NotNull', 'required in otherCustomers too'],

  // address: upper-case charset, size 1-255, optional
  [`${D}.address`, '45 FLORIDA ROAD, MORNINGSIDE, DURBAN, 4001', 'ok', 'upper case with punctuation'],
  [`${D}.address`, '4001', 'ok', 'no letter needed'],
  [`${D}.address`, S255, 'ok', '255 characters'],
  [`${D}.address`, ABSENT, 'ok', 'optional'],
  [`${D}.address`, null, 'ok', 'null is absent'],
  [`${D}.address`, '45 Florida Road', 'Pattern', 'lower case'],
  [`${D}.address`, '45 FLORIDA ROAD\nDURBAN', 'Pattern', 'a line break'],
  [`${D}.address`, S256, 'Size', '256 characters'],
  [`${D}.address`, '', 'Size', 'empty'],

  // investmentTypeId: an id of GET /api/investment-types, optional
  [`${D}.investmentTypeId`, 3, 'ok', 'a listed investment type'],
  [`${D}.investmentTypeId`, '2', 'ok', 'a numeric string is read as the Integer'],
  [`${D}.investmentTypeId`, ABSENT, 'ok', 'optional (defaults to ITF)'],
  [`${D}.investmentTypeId`, null, 'ok', 'null is absent'],
  [`${D}.investmentTypeId`, 999, 'KnownInvestmentType', 'not a listed investment type'],
  [`${D}.investmentTypeId`, 0, 'KnownInvestmentType', 'not a listed investment type'],
  [`${O1}.investmentTypeId`, -1, 'KnownInvestmentType', 'not a listed investment type in otherCustomers'],
  [`${D}.investmentTypeId`, 'ITF', 'typeMismatch', 'not an Integer'],
  [`${D}.investmentTypeId`, 1.5, 'typeMismatch', 'not an Integer'],

  // customerReference and agentReference: upper-case charset, size 1-255, optional
  ['customerReference', 'CUST-0001/A', 'ok', 'upper case with punctuation'],
  ['customerReference', S255, 'ok', '255 characters'],
  ['customerReference', ABSENT, 'ok', 'optional'],
  ['customerReference', null, 'ok', 'null is absent'],
  ['customerReference', 'cust-0001', 'Pattern', 'lower case'],
  ['customerReference', '', 'Size', 'empty'],
  ['customerReference', S256, 'Size', '256 characters'],
  ['agentReference', 'MATTER 1001/2026', 'ok', 'upper case with punctuation'],
  ['agentReference', S255, 'ok', '255 characters'],
  ['agentReference', ABSENT, 'ok', 'optional'],
  ['agentReference', 'Matter 1001', 'Pattern', 'mixed case'],
  ['agentReference', '', 'Size', 'empty'],
  ['agentReference', S256, 'Size', '256 characters'],

  // adminFeePercent: @Digits(2, 2), optional
  ['adminFeePercent', '1.50', 'ok', '1 integral and 2 fraction digits'],
  ['adminFeePercent', '12.5', 'ok', '2 integral digits'],
  ['adminFeePercent', '99.99', 'ok', 'the largest value'],
  ['adminFeePercent', '0', 'ok', 'zero'],
  ['adminFeePercent', 1.5, 'ok', 'a JSON number is read as the String "1.5"'],
  ['adminFeePercent', ABSENT, 'ok', 'optional'],
  ['adminFeePercent', '1.555', 'Digits', '3 fraction digits'],
  ['adminFeePercent', '100', 'Digits', '3 integral digits'],
  ['adminFeePercent', '1,5', 'Digits', 'a decimal comma does not parse'],
  ['adminFeePercent', '1.5%', 'Digits', 'a percent sign does not parse'],
  ['adminFeePercent', '', 'Digits', 'the empty string is not a number'],

  // createCallAccount: Boolean, optional (deprecated)
  ['createCallAccount', true, 'ok', 'true'],
  ['createCallAccount', false, 'ok', 'false'],
  ['createCallAccount', 'maybe', 'typeMismatch', 'not a Boolean'],

  // defaultCustomer: required Party
  [D, { ...trust(), identifyingNumber: 'IT 999/2020(T)' }, 'ok', 'a trust as the default customer'],
  [D, trust(), 'DefaultCustomerNotRepeated', 'a trust default customer that is also otherCustomers[0]', `${O0}.identifyingNumber`],
  [D, ABSENT, 'NotNull', 'required'],
  [D, null, 'NotNull', 'null is absent for Bean Validation'],
  [D, 'MOKOENA', 'typeMismatch', 'a string is not a Party'],
  [D, [individual()], 'typeMismatch', 'an array is not a Party'],

  // otherCustomers: optional array of Party, each checked at its index; the default customer not repeated
  ['otherCustomers', [], 'ok', 'empty'],
  ['otherCustomers', ABSENT, 'ok', 'optional'],
  ['otherCustomers', null, 'ok', 'null is absent'],
  ['otherCustomers', [{ ...individual(), identifyingNumber: '9001049818080' }], 'ok', 'another individual'],
  ['otherCustomers', [trust(), { ...individual(), name1: 'NAIDOO', identifyingNumber: '8001015009087' }], 'DefaultCustomerNotRepeated',
    'the default customer repeated (same entity type and ID number)', `${O1}.identifyingNumber`],
  ['otherCustomers', [individual()], 'DefaultCustomerNotRepeated', 'an exact copy of the default customer', `${O0}.identifyingNumber`],
  ['otherCustomers', [trust(), { ...individual(), name2: undefined, identifyingNumber: '9001049818080' }], 'Name2RequiredForIndividual',
    'an individual without given names', `${O1}.name2`],
  ['otherCustomers', 'NONE', 'typeMismatch', 'not an array (Jackson does not wrap a single value into a list)'],
  [`${D}.name1`, ['MOKOENA'], 'typeMismatch', 'Jackson does not unwrap a one-element list into a String'],
  [`${D}.kycStatus`, [true], 'typeMismatch', 'Jackson does not unwrap a one-element list into a Boolean'],
  ['otherCustomers', [trust(), 'X'], 'typeMismatch', 'an element that is not a Party', O1]
]

function caseName ([path, value, expected, why, field]: FieldCase): string {
  return expected === 'ok'
    ? `${path} = ${show(value)} is accepted (${why})`
    : `${path} = ${show(value)} is rejected: 400 naming ${field ?? path} with ${expected} (${why})`
}

t.test('every field rule of the customer create request: one value that passes, one that fails', async (t) => {
  const app = await build(t)
  for (const c of FIELD_CASES) {
    const [path, value, expected, , field] = c
    const res = await create(app, withValue(path, value))
    const body = res.json()
    if (expected === 'ok') {
      t.equal(res.statusCode, 200, caseName(c), { errors: body.errors })
    } else {
      const errors = errorsOf(body)
      const named = errors.some((e) => e.field === (field ?? path) && e.code === expected)
      t.ok(res.statusCode === 400 && named, caseName(c), { status: res.statusCode, errors })
    }
  }
})

t.test('every investment type of GET /api/investment-types is accepted as investmentTypeId', async (t) => {
  const app = await build(t)
  const types = (await api(app, { url: '/api/investment-types?size=100' })).json().investmentTypes as Array<{ id: number }>
  t.ok(types.length > 1, 'several investment types are listed')
  for (const { id } of types) {
    const res = await create(app, withValue(`${D}.investmentTypeId`, id))
    t.equal(res.statusCode, 200, `investmentTypeId ${id} is accepted`)
    t.equal(res.json().defaultCustomer.investmentTypeId, id, `investmentTypeId ${id} is stored`)
  }
  const unknown = Math.max(...types.map((i) => i.id)) + 1
  const res = await create(app, withValue(`${D}.investmentTypeId`, unknown))
  t.equal(res.statusCode, 400, `investmentTypeId ${unknown} (one past the last listed) is rejected`)
})

t.test('field errors carry the rejected value and Hibernate Validator wording', async (t) => {
  const app = await build(t)
  const cases: Array<[string, unknown, Partial<FieldErrorJson>]> = [
    [`${D}.name1`, S256, { code: 'Size', defaultMessage: 'size must be between 1 and 255', rejectedValue: S256 }],
    [`${D}.name1`, ABSENT, { code: 'NotNull', defaultMessage: 'must not be null', rejectedValue: null }],
    [`${D}.mobilePhoneNumber`, '082 123 4567', { code: 'Digits', defaultMessage: 'numeric value out of bounds (<14 digits>.<0 digits> expected)', rejectedValue: '082 123 4567' }],
    ['adminFeePercent', '1.555', { code: 'Digits', defaultMessage: 'numeric value out of bounds (<2 digits>.<2 digits> expected)', rejectedValue: '1.555' }],
    [`${D}.email`, 'NOT-AN-EMAIL', { code: 'Email', defaultMessage: 'must be a well-formed email address', rejectedValue: 'NOT-AN-EMAIL' }],
    [`${D}.address`, 'rosebank', { code: 'Pattern', rejectedValue: 'rosebank' }],
    [`${D}.identifyingNumber`, '8001015009088', { code: 'SouthAfricanIdNumber', rejectedValue: '8001015009088' }],
    [`${O1}.identifyingNumber`, '1799/000001/07', { code: 'CompanyRegistrationNumber', rejectedValue: '1799/000001/07' }]
  ]
  for (const [path, value, want] of cases) {
    const res = await create(app, withValue(path, value))
    t.equal(res.statusCode, 400, `${path} = ${show(value)} answers 400`)
    const body = res.json()
    t.equal(body.message, "Validation failed for object='customerRequest'. Error count: 1", `${path}: Spring's message with the error count`)
    t.match(errorsOf(body), [{ field: path, ...want }], `${path}: exactly one error, worded as Hibernate words it`)
  }
  const pattern = errorsOf((await create(app, withValue(`${D}.address`, 'rosebank'))).json())[0]
  t.match(pattern.defaultMessage, /^must match "\^.*\$"$/, '@Pattern says which expression it wanted')
  const id = errorsOf((await create(app, withValue(`${D}.identifyingNumber`, '8001015009088'))).json())[0]
  t.match(id.defaultMessage, /Luhn check digit/, 'the ID-number rule says what is wrong')
})

t.test('several broken fields are all reported in one 400', async (t) => {
  const app = await build(t)
  const body = validRequest()
  body.defaultCustomer.name1 = 'mokoena' // schema: Pattern
  delete body.defaultCustomer.name2 // rule: Name2RequiredForIndividual
  body.defaultCustomer.mobilePhoneNumber = '082 123 4567' // schema: Digits
  body.adminFeePercent = '100' // schema: Digits
  body.otherCustomers[1].identifyingNumber = '2000/000001/99' // rule: CompanyRegistrationNumber
  delete body.otherCustomers[0].taxNumber // schema: NotNull
  const res = await create(app, body)
  t.equal(res.statusCode, 400)
  const got = errorsOf(res.json()).map((e) => `${e.field} ${e.code}`).sort()
  t.same(got, [
    'adminFeePercent Digits',
    'defaultCustomer.mobilePhoneNumber Digits',
    'defaultCustomer.name1 Pattern',
    'defaultCustomer.name2 Name2RequiredForIndividual',
    'otherCustomers[0].taxNumber NotNull',
    'otherCustomers[1].identifyingNumber CompanyRegistrationNumber'
  ], 'schema and sandbox rules together, each field named once')
  t.equal(res.json().message, "Validation failed for object='customerRequest'. Error count: 6")
  t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_VALIDATION')
})

t.test('a body that is not a JSON object answers 4xx in the error shape', async (t) => {
  const app = await build(t)
  const json = { 'content-type': 'application/json' }
  const cases: Array<[string, Parameters<typeof api>[1], number, string, RegExp]> = [
    ['malformed JSON', { url: '/api/customers', method: 'POST', body: '{"defaultCustomer": {', headers: json }, 400, 'SANDBOX_ERR_MALFORMED_JSON', /^JSON parse error/],
    ['no body at all', { url: '/api/customers', method: 'POST' }, 400, 'SANDBOX_ERR_BODY_MISSING', /^Required request body is missing$/],
    ['an empty application/json body', { url: '/api/customers', method: 'POST', body: '', headers: json }, 400, 'SANDBOX_ERR_BODY_MISSING', /^Required request body is missing$/],
    ['a JSON null body', { url: '/api/customers', method: 'POST', body: 'null', headers: json }, 400, 'SANDBOX_ERR_BODY_MISSING', /^Required request body is missing$/],
    ['a JSON array body', { url: '/api/customers', method: 'POST', body: '[]', headers: json }, 400, 'SANDBOX_ERR_MALFORMED_JSON', /^JSON parse error: Cannot deserialize/],
    ['a JSON string body', { url: '/api/customers', method: 'POST', body: '"MOKOENA"', headers: json }, 400, 'SANDBOX_ERR_MALFORMED_JSON', /^JSON parse error: Cannot deserialize/],
    ['a text/plain body', { url: '/api/customers', method: 'POST', body: JSON.stringify(validRequest()), headers: { 'content-type': 'text/plain' } }, 415, 'SANDBOX_ERR_MEDIA_TYPE', /text\/plain/]
  ]
  for (const [what, req, status, code, message] of cases) {
    const res = await api(app, req)
    t.equal(res.statusCode, status, `${what}: ${status}`)
    t.equal(res.headers['x-sandbox-error'], code, `${what}: ${code}`)
    const body = res.json()
    t.match(body, { status, path: '/api/customers', errors: [], timestamp: String, error: String }, `${what}: Spring's error body`)
    t.match(body.message, message, `${what}: the message says what is wrong`)
  }
})

t.test('a failed create changes nothing', async (t) => {
  const app = await build(t)
  const first = await create(app, validRequest())
  t.equal(first.statusCode, 200)
  const customers = await countOf(app, '/api/customers')
  const accounts = await countOf(app, '/api/accounts')
  const schemaFailure = await create(app, withValue(`${D}.name1`, 'mokoena'))
  const ruleFailure = await create(app, withValue(`${D}.identifyingNumber`, '8001015009088'))
  const repeated = await create(app, withValue('otherCustomers', [individual()]))
  t.same([schemaFailure.statusCode, ruleFailure.statusCode, repeated.statusCode], [400, 400, 400], 'three failing creates')
  t.equal(await countOf(app, '/api/customers'), customers, 'no customer was added')
  t.equal(await countOf(app, '/api/accounts'), accounts, 'no account was added')
  const next = await create(app, validRequest())
  t.equal(BigInt(next.json().customerId), BigInt(first.json().customerId) + 1n, 'no customer id was used up by the failures')
})

t.test('POST /api/customers creates a record with its call account', async (t) => {
  const app = await build(t)
  const before = await countOf(app, '/api/customers')
  const request = validRequest()
  const res = await create(app, request)
  t.equal(res.statusCode, 200)
  const record = res.json()
  t.match(record.customerId, /^\d{1,19}$/, 'customerId is a numeric string of at most 19 digits')
  t.match(record.customerId, /^1001/, "the id starts with the agent's id")
  t.match(record, {
    customerReference: 'CUST-T-0001',
    agentReference: 'MATTER 7/2026',
    adminFeePercent: '1.50',
    defaultCustomer: { ...individual(), investmentTypeId: 1 }
  }, 'the request is stored as sent')
  t.same(record.otherCustomers, [{ ...trust(), investmentTypeId: 1 }, { ...company(), investmentTypeId: 1 }], 'other customers in order, each defaulted to ITF')
  t.type(record.defaultAccountNumber, 'string', 'defaultAccountNumber is set')

  const accounts = (await api(app, { url: `/api/accounts?customerId=${record.customerId}` })).json()
  t.equal(accounts.accounts.length, 1, 'the customer has exactly one account')
  const account = accounts.accounts[0]
  t.equal(account.number, record.defaultAccountNumber, 'defaultAccountNumber is the number of that account')
  t.equal(account.openedDate, todaySast(), 'opened today (South African date)')
  t.same(account.balance, { currency: 'ZAR', amount: 0 }, 'balance 0.00 ZAR')
  t.match(account.customers, [{ customerId: record.customerId, displayName: 'THABO JAMES MOKOENA' }], 'the customer holds it')
  t.notOk('closedDate' in account, 'not closed')

  const read = await api(app, { url: `/api/customers/${record.customerId}` })
  t.equal(read.statusCode, 200, 'immediately readable')
  t.same(read.json(), record, 'GET answers the record POST answered')
  t.equal(await countOf(app, '/api/customers'), before + 1, 'the list counts one more')
  const all = (await api(app, { url: '/api/customers?size=2000' })).json().customers as Json[]
  t.same(all[all.length - 1], record, 'the new record is last in the list (oldest first)')
})

t.test('investmentTypeId defaults to ITF (id 1) and an explicit one is kept', async (t) => {
  const app = await build(t)
  const itf = (await api(app, { url: '/api/investment-types' })).json().investmentTypes.find((i: Json) => i.id === 1)
  t.match(itf.description, /^ITF/, 'id 1 is ITF')
  const defaulted = await create(app, withValue(`${D}.investmentTypeId`, ABSENT))
  t.equal(defaulted.json().defaultCustomer.investmentTypeId, 1)
  const explicit = await create(app, withValue(`${D}.investmentTypeId`, 4))
  t.equal(explicit.json().defaultCustomer.investmentTypeId, 4)
})

t.test('fields a client may not set are ignored, nulls are not stored', async (t) => {
  const app = await build(t)
  const body: Json = {
    ...validRequest(),
    customerId: '1001199999999',
    agentId: 2001,
    id: '42',
    defaultAccountNumber: '99999999999',
    partnerId: 'partner-b',
    defaultCustomer: { ...individual(), customerId: '1', agentId: 2001, email: null, isAdmin: true }
  }
  const res = await create(app, body)
  t.equal(res.statusCode, 200)
  const record = res.json()
  t.not(record.customerId, '1001199999999', 'customerId is assigned, not taken from the body')
  t.not(record.defaultAccountNumber, '99999999999', 'defaultAccountNumber is the new account, not the body')
  for (const key of ['agentId', 'id', 'partnerId', 'createCallAccount']) t.notOk(key in record, `${key} is not in the record`)
  t.same(Object.keys(record.defaultCustomer).sort(), ['entityTypeId', 'identifyingNumber', 'investmentTypeId', 'kycStatus', 'mobilePhoneNumber', 'name1', 'name2', 'address', 'taxNumber'].sort(),
    'only Party fields are stored; email null is absent')
  t.equal((await api(app, { url: '/api/customers/1001199999999' })).statusCode, 404, 'no record under the id of the body')
  const asB = await api(app, { url: `/api/customers/${record.customerId}`, agent: '2001', token: await tokenFor(app, PARTNER_B) })
  t.equal(asB.statusCode, 404, "an agentId in the body does not make it another agent's record")
})

t.test('createCallAccount false creates no account', async (t) => {
  const app = await build(t)
  const accounts = await countOf(app, '/api/accounts')
  const res = await create(app, withValue('createCallAccount', false))
  t.equal(res.statusCode, 200)
  const record = res.json()
  t.notOk('defaultAccountNumber' in record, 'no defaultAccountNumber')
  t.equal(await countOf(app, `/api/accounts?customerId=${record.customerId}`), 0, 'the customer has no account')
  t.equal(await countOf(app, '/api/accounts'), accounts, 'no account was added')
  t.equal((await api(app, { url: `/api/customers/${record.customerId}` })).statusCode, 200, 'the record exists')
})

t.test('POST /api/customers creates the record for the acting agent only', async (t) => {
  const app = await build(t)
  const res = await create(app, validRequest(), '1002')
  t.equal(res.statusCode, 200)
  const id = res.json().customerId
  t.match(id, /^1002/, "an id of agent 1002's range")
  t.equal((await api(app, { url: `/api/customers/${id}`, agent: '1002' })).statusCode, 200, 'agent 1002 reads it')
  t.equal((await api(app, { url: `/api/customers/${id}`, agent: '1001' })).statusCode, 404, 'agent 1001 does not')
})

t.test('GET /api/customers/{customerId} answers the agent\'s own record and 404 for anything else', async (t) => {
  const app = await build(t)
  const own = await api(app, { url: '/api/customers/1001100000001' })
  t.equal(own.statusCode, 200)
  t.match(own.json(), {
    customerId: '1001100000001',
    defaultAccountNumber: '10010000001',
    customerReference: 'CUST-0001',
    adminFeePercent: '1.50',
    defaultCustomer: { entityTypeId: '1', name1: 'MOKOENA', name2: 'THABO JAMES', identifyingNumber: '8001015009087', investmentTypeId: 1 }
  }, 'the fixed record of the default scenario')
  const trustRecord = await api(app, { url: '/api/customers/1001100000002' })
  t.match(trustRecord.json(), { defaultCustomer: { entityTypeId: '3', investmentTypeId: 3 }, otherCustomers: [{ name1: 'NAIDOO' }] })

  const otherAgent = await api(app, { url: '/api/customers/1001100000001', agent: '1002' })
  t.equal(otherAgent.statusCode, 404, "agent 1002 of the same partner does not see agent 1001's customer")
  t.equal(otherAgent.headers['x-sandbox-error'], 'SANDBOX_ERR_NOT_FOUND')
  t.match(otherAgent.json(), { status: 404, error: 'Not Found', path: '/api/customers/1001100000001', errors: [] })
  t.equal((await api(app, { url: '/api/customers/2001100000001' })).statusCode, 404, "partner-b's customer is not found for agent 1001")
  const bToken = await tokenFor(app, PARTNER_B)
  t.equal((await api(app, { url: '/api/customers/2001100000001', agent: '2001', token: bToken })).statusCode, 200, 'partner-b reads its own')
  t.equal((await api(app, { url: '/api/customers/1001100000001', agent: '2001', token: bToken })).statusCode, 404, "partner-b does not see partner-a's")
  t.equal((await api(app, { url: '/api/customers/1001199999999' })).statusCode, 404, 'an unknown id')
  t.equal((await api(app, { url: '/api/customers/1234567890123456789' })).statusCode, 404, 'an unknown id of 19 digits')
})

t.test('GET /api/customers/{customerId} checks the id is at most 19 digits', async (t) => {
  const app = await build(t)
  for (const id of ['abc', '12345678901234567890', '1001100000001.5', '1001100000001X']) {
    const res = await api(app, { url: `/api/customers/${id}` })
    t.equal(res.statusCode, 400, `${id}: 400`)
    const body = res.json()
    t.match(body.errors, [{ field: 'customerId', code: 'Digits', rejectedValue: id, defaultMessage: 'numeric value out of bounds (<19 digits>.<0 digits> expected)' }], `${id}: errors[] names customerId`)
    t.match(body.message, /^customerId: numeric value out of bounds/, `${id}: the message names customerId`)
  }
})

t.test('GET /api/customers pages the agent\'s customers', async (t) => {
  const app = await build(t)
  const first = await api(app, { url: '/api/customers' })
  t.equal(first.statusCode, 200)
  const { page, sortResponses, customers } = first.json()
  const total = page.totalElements
  t.ok(total > 20, 'the default scenario gives agent 1001 a few dozen customers')
  t.same(page, { page: 0, pageSize: 10, numberOfElements: 10, totalElements: total, totalPages: Math.ceil(total / 10), first: true, last: false }, 'default page 0 of size 10')
  t.same(sortResponses, [])
  t.equal(customers[0].customerId, '1001100000001', 'oldest first')

  const size = 7
  const lastPage = Math.ceil(total / size) - 1
  const seen: string[] = []
  for (let p = 0; p <= lastPage; p++) {
    const res = (await api(app, { url: `/api/customers?page=${p}&size=${size}` })).json()
    t.equal(res.customers.length, p === lastPage ? total - size * lastPage : size, `page ${p} of size ${size} holds the right number of records`)
    t.same(res.page, {
      page: p,
      pageSize: size,
      numberOfElements: res.customers.length,
      totalElements: total,
      totalPages: lastPage + 1,
      first: p === 0,
      last: p === lastPage
    }, `page ${p}: page object`)
    seen.push(...res.customers.map((c: Json) => c.customerId))
  }
  t.equal(new Set(seen).size, total, 'the pages together hold every record once')
  t.ok(seen.every((id) => id.startsWith('1001')), "only agent 1001's records")

  const past = (await api(app, { url: `/api/customers?page=${lastPage + 5}&size=${size}` })).json()
  t.same(past.customers, [], 'a page past the end is empty')
  t.same(past.page, { page: lastPage + 5, pageSize: size, numberOfElements: 0, totalElements: total, totalPages: lastPage + 1, first: false, last: true })

  const whole = (await api(app, { url: `/api/customers?size=${total}` })).json()
  t.same(whole.page, { page: 0, pageSize: total, numberOfElements: total, totalElements: total, totalPages: 1, first: true, last: true }, 'one page when size = total')
  t.same(whole.customers.map((c: Json) => c.customerId), seen, 'the same order as page by page')

  const other = (await api(app, { url: '/api/customers?size=2000', agent: '1002' })).json()
  t.ok(other.customers.every((c: Json) => c.customerId.startsWith('1002')), 'agent 1002 lists its own records only')
  t.ok(other.customers.length > 0)
})

t.test('GET /api/customers rejects paging parameters out of range', async (t) => {
  const app = await build(t)
  for (const [query, field] of [['page=-1', 'page'], ['size=0', 'size'], ['size=2001', 'size'], ['page=x', 'page'], ['size=1.5', 'size']]) {
    const res = await api(app, { url: `/api/customers?${query}` })
    t.equal(res.statusCode, 400, `${query}: 400`)
    t.match(res.json().errors, [{ field }], `${query}: errors[] names ${field}`)
  }
})

t.test('GET /api/users/current/customers lists the customers linked to the signed-in user', async (t) => {
  const app = await build(t)
  const alice = await userToken(app, 'alice', 'alice-password')
  const res = await api(app, { url: '/api/users/current/customers', token: alice })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.customers.map((c: Json) => c.customerId), ['1001100000001', '1001100000002', '1001100000003'], "alice's three customers")
  t.same(body.page, { page: 0, pageSize: 10, numberOfElements: 3, totalElements: 3, totalPages: 1, first: true, last: true })
  t.same(body.customers[0], (await api(app, { url: '/api/customers/1001100000001' })).json(), 'the same records as GET /api/customers/{id}')

  const paged = (await api(app, { url: '/api/users/current/customers?page=1&size=2', token: alice })).json()
  t.same(paged.customers.map((c: Json) => c.customerId), ['1001100000003'], 'the second page of size 2')
  t.same(paged.page, { page: 1, pageSize: 2, numberOfElements: 1, totalElements: 3, totalPages: 2, first: false, last: true })

  const bob = await userToken(app, 'bob', 'bob-password', PARTNER_B)
  const bobs = (await api(app, { url: '/api/users/current/customers', token: bob, agent: '2001' })).json()
  t.same(bobs.customers.map((c: Json) => c.customerId), ['2001100000001'], "bob's customer of partner-b")
})

t.test('GET /api/users/current/customers is an empty page for a client-credentials token', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/users/current/customers' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    page: { page: 0, pageSize: 10, numberOfElements: 0, totalElements: 0, totalPages: 0, first: true, last: true },
    sortResponses: [],
    customers: []
  })
})

t.test('the customer endpoints need the Agent-Id header', async (t) => {
  const app = await build(t)
  for (const [method, url] of [['GET', '/api/customers'], ['GET', '/api/customers/1001100000001'], ['GET', '/api/users/current/customers'], ['POST', '/api/customers']] as const) {
    const res = await api(app, { method, url, agent: null, ...(method === 'POST' ? { body: validRequest() } : {}) })
    t.equal(res.statusCode, 400, `${method} ${url} without Agent-Id: 400`)
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_AGENT_ID_MISSING', `${method} ${url}: says Agent-Id is missing`)
  }
})
