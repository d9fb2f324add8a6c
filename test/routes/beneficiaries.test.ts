import t from 'tap'
import { api, BENEFICIARY_REQUEST, build, PARTNER_B, tokenFor } from '../helper.js'

const CUSTOMER = '1001100000001'
const BASE = `/api/customers/${CUSTOMER}/beneficiaries`

const VALID = BENEFICIARY_REQUEST

t.test("GET beneficiaries lists the customer's beneficiaries, paged", async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.sortResponses, [])
  t.ok(body.beneficiaries.length >= 2)
  t.match(body.beneficiaries[0], {
    beneficiaryId: '1001300000001',
    name: 'CITY OF JOHANNESBURG',
    bankCode: '10',
    bankName: 'ABSA',
    branchCode: '632005',
    branchName: 'ABSA UNIVERSAL BRANCH',
    accountType: 'C',
    accountNumber: '4071234567',
    beneficiaryReference: 'RATES 554433221',
    clientReference: 'MOKOENA RATES',
    accountCategory: '3RD PARTY'
  })
  t.notOk('customerId' in body.beneficiaries[0], 'the owner id does not leak')
  const paged = await api(app, { url: `${BASE}?page=1&size=1` })
  t.match(paged.json(), { page: { page: 1, pageSize: 1, numberOfElements: 1, first: false }, beneficiaries: [{ beneficiaryId: body.beneficiaries[1].beneficiaryId }] })
})

t.test('GET one beneficiary answers it; a beneficiary of another customer or agent is a 404', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: `${BASE}/1001300000002` })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { beneficiaryId: '1001300000002', bankCode: '13', bankName: 'CAPITEC', branchCode: '470010', accountCategory: 'MANDATED' })
  const otherCustomer = await api(app, { url: '/api/customers/1001100000002/beneficiaries/1001300000002' })
  t.equal(otherCustomer.statusCode, 404, 'it exists, but under another customer')
  const otherPartner = await api(app, { url: `${BASE}/2001300000001` })
  t.equal(otherPartner.statusCode, 404, "partner-b's beneficiary")
  const unknown = await api(app, { url: `${BASE}/1001399999999` })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.headers['x-sandbox-error'], 'SANDBOX_ERR_NOT_FOUND')
  const tooLong = await api(app, { url: `${BASE}/12345678901234567890` })
  t.equal(tooLong.statusCode, 400)
  t.match(tooLong.json().errors, [{ field: 'beneficiaryId', code: 'Digits' }])
})

t.test('a customer of another agent is a 404 for list, read and create', async (t) => {
  const app = await build(t)
  const as1002 = { agent: '1002' }
  t.equal((await api(app, { url: BASE, ...as1002 })).statusCode, 404)
  t.equal((await api(app, { url: `${BASE}/1001300000001`, ...as1002 })).statusCode, 404)
  const create = await api(app, { url: BASE, body: VALID, ...as1002 })
  t.equal(create.statusCode, 404)
  t.match(create.json(), { status: 404, error: 'Not Found', path: BASE })
  const b = await api(app, { url: BASE, agent: '2001', token: await tokenFor(app, PARTNER_B) })
  t.equal(b.statusCode, 404, "partner-b cannot list partner-a's customer")
  const tooLong = await api(app, { url: '/api/customers/12345678901234567890/beneficiaries' })
  t.equal(tooLong.statusCode, 400)
  t.match(tooLong.json().errors, [{ field: 'customerId', code: 'Digits' }])
})

t.test("POST creates a beneficiary that echoes the request, adds beneficiaryId, bankName and the bank's default branch", async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE, body: VALID })
  t.equal(res.statusCode, 200)
  const created = res.json()
  t.match(created, { ...VALID, beneficiaryId: /^1001\d{9}$/, bankName: 'STANDARD BANK', branchCode: '051001', branchName: 'STANDARD BANK UNIVERSAL BRANCH' })
  t.ok(created.beneficiaryId.length <= 19)
  const read = await api(app, { url: `${BASE}/${created.beneficiaryId as string}` })
  t.equal(read.statusCode, 200)
  t.same(read.json(), created, 'readable at once')
  const list = (await api(app, { url: `${BASE}?size=100` })).json()
  t.same(list.beneficiaries.at(-1), created, 'last in the list')
  const elsewhere = await api(app, { url: `/api/customers/1001100000002/beneficiaries/${created.beneficiaryId as string}` })
  t.equal(elsewhere.statusCode, 404, 'not under another customer')
})

t.test('POST keeps a given branchCode and names its branch', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE, body: { ...VALID, bankCode: '15', branchCode: '210554' } })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { bankCode: '15', bankName: 'FNB', branchCode: '210554', branchName: String })
  t.ok(res.json().branchName.length > 0)
  const dflt = await api(app, { url: BASE, body: { ...VALID, bankCode: '15', branchCode: '250655' } })
  t.equal(dflt.json().branchName, 'FNB UNIVERSAL BRANCH', 'the default branch code gives the default branch name')
})

t.test('POST treats a null branchCode as absent and a null required field as missing', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE, body: { ...VALID, branchCode: null } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().branchCode, '051001', "the bank's default branch")
  const missing = await api(app, { url: BASE, body: { ...VALID, name: null } })
  t.equal(missing.statusCode, 400)
  t.same(missing.json().errors, [{ field: 'name', rejectedValue: null, defaultMessage: 'must not be null', code: 'NotNull' }])
})

t.test('POST ignores a beneficiaryId or customerId in the body', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE, body: { ...VALID, beneficiaryId: '1001300000001', customerId: '1001100000002', bankName: 'X', branchName: 'Y' } })
  t.equal(res.statusCode, 200)
  t.not(res.json().beneficiaryId, '1001300000001')
  t.equal(res.json().bankName, 'STANDARD BANK')
  t.equal(res.json().branchName, 'STANDARD BANK UNIVERSAL BRANCH')
  const seeded = await api(app, { url: `${BASE}/1001300000001` })
  t.equal(seeded.json().name, 'CITY OF JOHANNESBURG', 'the seeded beneficiary is untouched')
})

t.test('POST refuses an unknown bankCode with 400 naming bankCode', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE, body: { ...VALID, bankCode: '99' } })
  t.equal(res.statusCode, 400)
  t.match(res.json(), {
    message: "Validation failed for object='beneficiaryRequest'. Error count: 1",
    errors: [{ field: 'bankCode', rejectedValue: '99', code: 'KnownBank' }]
  })
})

// spec 4.7, one row per rule: values that pass and values that fail (with the expected code)
const RULES: Array<{ field: keyof typeof VALID | 'branchCode', pass: string[], fail: Array<[string, string]> }> = [
  { field: 'name', pass: ['A', 'N'.repeat(255), "O'BRIEN & SONS (PTY) LTD."], fail: [['', 'Size'], ['N'.repeat(256), 'Size'], ['sipho ndlovu', 'Pattern'], ['SIPHO NDLÖVU', 'Pattern']] },
  { field: 'bankCode', pass: ['10', '39'], fail: [['', 'Size'], ['12345678901', 'Size'], ['9', 'KnownBank']] },
  { field: 'branchCode', pass: ['1', '123456'], fail: [['', 'Size'], ['1234567', 'Size']] },
  { field: 'accountType', pass: ['C', 'S', 'T', 'B'], fail: [['', 'Size'], ['CC', 'Size'], ['X', 'OneOf'], ['c', 'OneOf']] },
  { field: 'accountNumber', pass: ['1', '1234567890123456'], fail: [['', 'Size'], ['12345678901234567', 'Size'], ['12345A', 'Pattern'], ['123 456', 'Pattern']] },
  { field: 'beneficiaryReference', pass: ['X', 'R'.repeat(30), 'INV #42/2026'], fail: [['', 'Size'], ['R'.repeat(31), 'Size'], ['rent', 'Pattern']] },
  { field: 'clientReference', pass: ['X', 'R'.repeat(30)], fail: [['', 'Size'], ['R'.repeat(31), 'Size'], ['Rent', 'Pattern']] },
  { field: 'accountCategory', pass: ['3RD PARTY', 'MANDATED'], fail: [['', 'Size'], ['THIRD PARTY', 'Size'], ['OTHER', 'OneOf'], ['mandated', 'OneOf']] }
]

for (const rule of RULES) {
  t.test(`POST checks ${rule.field}: passing and failing values, the field named`, async (t) => {
    const app = await build(t)
    for (const value of rule.pass) {
      const res = await api(app, { url: BASE, body: { ...VALID, [rule.field]: value } })
      t.equal(res.statusCode, 200, `${rule.field} = ${JSON.stringify(value.slice(0, 40))} passes`)
    }
    for (const [value, code] of rule.fail) {
      const res = await api(app, { url: BASE, body: { ...VALID, [rule.field]: value } })
      t.equal(res.statusCode, 400, `${rule.field} = ${JSON.stringify(value.slice(0, 40))} fails`)
      const errors = res.json().errors as Array<{ field: string, code: string, rejectedValue: unknown }>
      t.ok(errors.length > 0 && errors.every((e) => e.field === rule.field), `only ${rule.field} is named`)
      t.ok(errors.some((e) => e.code === code && e.rejectedValue === value), `${code} reported with the rejected value`)
    }
  })
}

t.test('POST reports every missing required field as NotNull', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE, body: {} })
  t.equal(res.statusCode, 400)
  const fields = res.json().errors.map((e: { field: string }) => e.field).sort()
  t.same(fields, ['accountCategory', 'accountNumber', 'accountType', 'bankCode', 'beneficiaryReference', 'clientReference', 'name'])
  t.ok(res.json().errors.every((e: { code: string, defaultMessage: string, rejectedValue: unknown }) =>
    e.code === 'NotNull' && e.defaultMessage === 'must not be null' && e.rejectedValue === null))
  t.equal(res.json().message, "Validation failed for object='beneficiaryRequest'. Error count: 7")
})

t.test('POST reports the size message in Hibernate wording', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE, body: { ...VALID, beneficiaryReference: 'R'.repeat(31), accountNumber: 'ABC' } })
  t.equal(res.statusCode, 400)
  const byField = Object.fromEntries(res.json().errors.map((e: { field: string }) => [e.field, e]))
  t.match(byField.accountNumber, { code: 'Pattern', defaultMessage: 'must match "^[0-9]+$"', rejectedValue: 'ABC' })
  t.match(byField.beneficiaryReference, { code: 'Size', defaultMessage: 'size must be between 1 and 30' })
  t.equal(res.json().errors.length, 2)
})

t.test('agent 1002 never sees the beneficiaries of agent 1001', async (t) => {
  const app = await build(t)
  const customers = (await api(app, { url: '/api/customers?size=2000', agent: '1002' })).json().customers as Array<{ customerId: string }>
  const mine = new Set<string>()
  for (const c of (await api(app, { url: '/api/customers?size=2000' })).json().customers as Array<{ customerId: string }>) {
    for (const b of (await api(app, { url: `/api/customers/${c.customerId}/beneficiaries?size=100` })).json().beneficiaries) mine.add(b.beneficiaryId)
  }
  t.ok(mine.size > 0)
  let seen = 0
  for (const c of customers) {
    for (const b of (await api(app, { url: `/api/customers/${c.customerId}/beneficiaries?size=100`, agent: '1002' })).json().beneficiaries) {
      seen++
      t.notOk(mine.has(b.beneficiaryId), `${b.beneficiaryId as string} is not one of 1001's`)
    }
  }
  t.ok(seen > 0, 'agent 1002 has beneficiaries of its own')
  for (const id of [...mine].slice(0, 5)) {
    const res = await api(app, { url: `/api/customers/${customers[0].customerId}/beneficiaries/${id}`, agent: '1002' })
    t.equal(res.statusCode, 404)
  }
})
