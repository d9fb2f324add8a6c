import type { Faker } from '@faker-js/faker'
import type { BeneficiaryCreateRequest } from '../schemas/beneficiaries.js'
import { BENEFICIARY_ACCOUNT_CATEGORIES, BENEFICIARY_ACCOUNT_TYPES } from '../schemas/beneficiaries.js'
import type { CustomerCreateRequest, Party } from '../schemas/customers.js'
import type { CustomerMessageRequest } from '../schemas/messages.js'
import type { Product } from '../schemas/products.js'
import { luhnCheckDigit } from '../rules/identity-numbers.js'
import type { Reference } from '../schemas/reference.js'
import type { Generate } from './scenario-schema.js'

/*
 * Realistic South African data, valid by construction: ID numbers with real dates and Luhn digits,
 * registration numbers with matching company-type codes, upper-case names in the spec's character set.
 * Every value comes from the faker instance of the load, so a seed gives the same data every time.
 */

const DAY = 86_400_000

/** Upper case without diacritics, curly quotes made straight, anything outside the spec's set dropped. */
export function upper (s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').replace(/[‘’]/g, "'").toUpperCase()
    .replace(/[^A-Z0-9 !"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, '').replace(/\s+/g, ' ').trim()
}

/** Extends text to exactly max characters (edge cases: values at the size limit). */
export function fill (s: string, max: number): string {
  let out = s
  while (out.length < max) out += ` ${s}`
  return out.slice(0, max).replace(/ $/, 'X')
}

const COMPANY_SUFFIX: Record<string, { suffix: string, code: string, fromYear: number, toYear?: number }> = {
  4: { suffix: 'CC', code: '23', fromYear: 1985, toYear: 2011 }, // no new close corporations since 2011
  5: { suffix: '(PTY) LTD', code: '07', fromYear: 1975 },
  6: { suffix: 'LTD', code: '06', fromYear: 1900 }
}
const TRUST_OFFICES = ['G', 'C', 'T', 'D', 'B', 'P']
const DEPARTMENTS = ['TRUST INVESTMENTS', 'CLIENT SERVICES', 'COMPLIANCE', 'CONVEYANCING SUPPORT', 'INTEREST PAYMENTS']
const MESSAGE_TEMPLATES = [
  (n: string) => `YOUR TRUST INVESTMENT ACCOUNT ${n} HAS BEEN OPENED.`,
  (n: string) => `INTEREST ON ACCOUNT ${n} WAS CAPITALISED AT MONTH END.`,
  (n: string) => `PLEASE PROVIDE AN UPDATED PROOF OF ADDRESS FOR ACCOUNT ${n}.`,
  (n: string) => `A WITHDRAWAL INSTRUCTION FOR ACCOUNT ${n} IS AWAITING YOUR CONFIRMATION.`,
  (n: string) => `FICA VERIFICATION FOR ACCOUNT ${n} IS COMPLETE.`
]

/** Values drawn from faker once per load, then picked from: faker's templated helpers are the slow part. */
interface Pools {
  firstNames: string[]
  lastNames: string[]
  streets: string[]
  cities: string[]
  companies: string[]
  domains: string[]
}

export class Generator {
  private readonly end: number
  private readonly pools: Pools

  constructor (
    readonly faker: Faker,
    readonly ref: Reference,
    readonly settings: Generate,
    referenceDate: string
  ) {
    this.end = Date.parse(`${referenceDate}T00:00:00Z`)
    // a pool about as large as the data it feeds (up to 500 values), so small agents cost little
    const n = Math.min(500, Math.max(20, settings.customers))
    const draw = (f: () => string): string[] => Array.from({ length: n }, () => upper(f()))
    this.pools = {
      firstNames: draw(() => faker.person.firstName()),
      lastNames: draw(() => faker.person.lastName()),
      streets: draw(() => faker.location.street()),
      cities: draw(() => faker.location.city()),
      companies: draw(() => faker.company.name()),
      domains: draw(() => faker.internet.domainName())
    }
  }

  private pick (pool: keyof Pools): string {
    const values = this.pools[pool]
    return values[this.faker.number.int(values.length - 1)]
  }

  private fullName (): string {
    return `${this.pick('firstNames')} ${this.pick('lastNames')}`
  }

  int (min: number, max: number): number {
    return this.faker.number.int({ min, max })
  }

  count (range: { min: number, max: number }): number {
    return range.max <= range.min ? range.min : this.int(range.min, range.max)
  }

  chance (share: number): boolean {
    return share > 0 && this.faker.number.float({ min: 0, max: 1 }) < share
  }

  digits (n: number): string {
    return this.faker.string.numeric({ length: n, allowLeadingZeros: true })
  }

  /** A date (YYYY-MM-DD) from daysBack days before the reference date up to the day before it. */
  pastDate (daysBack: number, notBefore?: string): string {
    const from = notBefore === undefined ? this.end - daysBack * DAY : Math.max(Date.parse(notBefore), this.end - daysBack * DAY)
    return new Date(this.int(from, this.end - DAY)).toISOString().slice(0, 10)
  }

  pastDateTime (daysBack: number): string {
    return new Date(this.int(this.end - daysBack * DAY, this.end - 1)).toISOString().slice(0, 23)
  }

  private text (s: string, max: number): string {
    return this.settings.longValues ? fill(s, max) : s.slice(0, max)
  }

  southAfricanId (): string {
    const year = this.int(1940, 2005)
    const birth = new Date(Date.UTC(year, 0, 1) + this.int(0, 364) * DAY)
    const yymmdd = birth.toISOString().slice(2, 10).replace(/-/g, '')
    const first12 = `${yymmdd}${this.digits(4)}${this.chance(0.9) ? '0' : '1'}8`
    return `${first12}${luhnCheckDigit(first12)}`
  }

  /** 10 digits, first 0-3 for individuals and 9 for companies and trusts, last a Luhn digit. */
  taxNumber (individual: boolean): string {
    const first9 = `${individual ? this.int(0, 3) : 9}${this.digits(8)}`
    return `${first9}${luhnCheckDigit(first9)}`
  }

  mobile (): string {
    return `27${this.faker.helpers.arrayElement(['6', '7', '8'])}${this.digits(8)}`
  }

  address (): string {
    const line = `${this.int(1, 999)} ${this.pick('streets')}, ${this.pick('cities')}, ${this.digits(4)}`
    return this.text(line, 255)
  }

  individual (): Party {
    const first = this.pick('firstNames')
    const middle = this.chance(0.3) ? ` ${this.pick('firstNames')}` : ''
    const last = this.pick('lastNames')
    const local = `${first}.${last}`.replace(/[^A-Z0-9.]/g, '')
    return {
      entityTypeId: '1',
      name1: this.text(last, 255),
      name2: this.text(`${first}${middle}`, 255),
      mobilePhoneNumber: this.mobile(),
      email: `${local}@${this.pick('domains')}`,
      kycStatus: !this.chance(this.settings.unverifiedShare),
      identifyingNumber: this.southAfricanId(),
      taxNumber: this.taxNumber(true),
      address: this.address(),
      investmentTypeId: this.chance(0.85) ? this.ref.defaultInvestmentTypeId : this.faker.helpers.arrayElement(this.ref.investmentTypes).id
    }
  }

  trust (): Party {
    const last = this.pick('lastNames')
    const name = this.faker.helpers.arrayElement([`THE ${last} FAMILY TRUST`, `${last} INVESTMENT TRUST`, `${last} TRUST`])
    const year = this.int(1975, 2024)
    return {
      entityTypeId: '3',
      name1: this.text(name, 255),
      kycStatus: !this.chance(this.settings.unverifiedShare),
      identifyingNumber: `IT ${this.int(1, 9999)}/${year}(${this.faker.helpers.arrayElement(TRUST_OFFICES)})`,
      taxNumber: this.taxNumber(false),
      address: this.address(),
      investmentTypeId: this.ref.defaultInvestmentTypeId
    }
  }

  company (entityTypeId: '4' | '5' | '6'): Party {
    const kind = COMPANY_SUFFIX[entityTypeId]
    const year = this.int(kind.fromYear, kind.toYear ?? new Date(this.end).getUTCFullYear() - 1)
    const name = `${this.pick('companies').replace(/ (CC|LTD|INC)$/, '')} ${kind.suffix}`
    return {
      entityTypeId,
      name1: this.text(name, 255),
      mobilePhoneNumber: this.mobile(),
      email: `INFO@${this.pick('domains')}`,
      kycStatus: !this.chance(this.settings.unverifiedShare),
      identifyingNumber: `${year}/${this.digits(6)}/${kind.code}`,
      taxNumber: this.taxNumber(false),
      address: this.address(),
      investmentTypeId: this.ref.defaultInvestmentTypeId
    }
  }

  customerRequest (): CustomerCreateRequest {
    const roll = this.int(1, 100)
    const defaultCustomer = roll <= 60
      ? this.individual()
      : roll <= 72 ? this.trust() : this.company(roll <= 82 ? '4' : roll <= 95 ? '5' : '6')
    const others = defaultCustomer.entityTypeId === '1' ? 0 : this.count(this.settings.otherCustomers)
    const req: CustomerCreateRequest = { defaultCustomer }
    if (others > 0) req.otherCustomers = Array.from({ length: others }, () => this.individual())
    if (this.chance(0.7)) req.customerReference = this.text(`CUST-${this.digits(8)}`, 255)
    if (this.chance(0.7)) req.agentReference = this.text(`MATTER ${this.int(1, 9999)}/${new Date(this.end).getUTCFullYear()}`, 255)
    if (this.chance(0.6)) req.adminFeePercent = this.faker.helpers.arrayElement(['0.50', '1.00', '1.50', '2.00', '2.50'])
    return req
  }

  amount (): number {
    return this.int(0, 250_000_000) / 100
  }

  extraProduct (): Product {
    return this.faker.helpers.arrayElement(this.ref.products.filter((p) => !p.callAccount))
  }

  beneficiaryRequest (customerName: string): BeneficiaryCreateRequest {
    const foreign = this.chance(this.settings.foreignBankShare)
    const bank = this.faker.helpers.arrayElement(this.ref.banks.filter((b) => b.foreign === foreign))
    const payee = this.chance(0.5) ? this.fullName() : this.pick('companies')
    const req: BeneficiaryCreateRequest = {
      name: this.text(payee, 255),
      bankCode: bank.id,
      accountType: this.faker.helpers.arrayElement(Object.keys(BENEFICIARY_ACCOUNT_TYPES)),
      accountNumber: this.settings.longValues ? this.digits(16) : `${this.int(1, 9)}${this.digits(this.int(8, 10))}`,
      beneficiaryReference: this.text(upper(`${customerName.slice(0, 18)} PMT`), 30),
      clientReference: this.text(upper(`TO ${payee.slice(0, 20)}`), 30),
      accountCategory: this.faker.helpers.arrayElement(BENEFICIARY_ACCOUNT_CATEGORIES)
    }
    if (this.chance(0.1)) req.branchCode = this.digits(6)
    return req
  }

  messageRequest (accountNumber: string): CustomerMessageRequest {
    const message = this.faker.helpers.arrayElement(MESSAGE_TEMPLATES)(accountNumber)
    return {
      message: this.settings.longValues ? fill(message, 256) : message,
      fromDepartment: this.text(this.faker.helpers.arrayElement(DEPARTMENTS), 100),
      fromPerson: this.text(this.fullName(), 100)
    }
  }
}
