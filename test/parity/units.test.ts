import t from 'tap'
import { startSandbox } from '../../src/library.js'
import { applyDeclared, counts } from '../../src/parity/declared.js'
import { Redactor } from '../../src/parity/redact.js'
import { pageProblems } from '../../src/parity/compare.js'
import { diffSpecs } from '../../src/parity/spec-diff.js'
import type { Difference } from '../../src/parity/types.js'

/* The parity kit's parts that judge without traffic: the document diff, declarations, redaction, paging. */

type Json = Record<string, any>

t.test("the target's OpenAPI document against the sandbox's: breaking differences apart", async (t) => {
  const sandbox = await startSandbox()
  t.teardown(() => sandbox.stop())
  const doc = await (await fetch(`${sandbox.url}/api/docs/apidocs`, { headers: { accept: 'application/json' } })).json() as Json
  t.same(diffSpecs(doc, structuredClone(doc)), [], 'the same document: nothing')
  const target = structuredClone(doc)
  delete target.paths['/api/banks']
  target.paths['/api/guarantees/{id}/state'] = target.paths['/api/guarantees/{guaranteeID}/state']
  delete target.paths['/api/guarantees/{guaranteeID}/state']
  const product = target.components.schemas.Product
  product.properties.title = product.properties.name
  delete product.properties.name
  target.components.schemas.BeneficiaryCreateRequest.properties.accountType.enum = ['C', 'S']
  target.components.schemas.AccountCreateRequest.required = ['customerId', 'productCode']
  target.components.schemas.Balance.properties.amount = { type: 'string' }
  target.components.schemas.CustomerMessage.properties.dateCreated.format = 'date'
  const diffs = diffSpecs(doc, target)
  const breaking = diffs.filter((d) => d.breaking).map((d) => `${d.operation} ${d.detail}`)
  const other = diffs.filter((d) => !d.breaking).map((d) => `${d.operation} ${d.detail}`)
  t.ok(breaking.includes("GET /api/banks only in the sandbox's document"), 'an operation the target lacks')
  t.notOk(diffs.some((d) => d.operation.includes('guarantees')), 'path parameters compared by position, not name')
  t.ok(breaking.includes("GET /api/products/{} response field name: only in the sandbox's document"), 'a response field the target lacks (renamed)')
  t.ok(other.includes("GET /api/products/{} response field title: only in the target's document"), 'and the new name: not breaking')
  t.ok(breaking.includes('POST /api/customers/{}/beneficiaries request field accountType: enum values T, B only in the sandbox\'s'), 'request values the target refuses')
  t.ok(breaking.includes('POST /api/accounts request field productCode: required by the target, optional in the sandbox'), 'a field the target requires')
  t.ok(breaking.some((d) => d.includes('balance.amount: type number')), 'a type changed')
  t.ok(other.some((d) => d.includes('dateCreated: format')), 'a format: not breaking')
  t.ok(diffs.findIndex((d) => !d.breaking) > diffs.findLastIndex((d) => d.breaking), 'breaking first')
})

t.test('declared divergences: matched by probe, aspect and text; counted again after their date', async (t) => {
  const diff = (probe: string, aspect: Difference['aspect'], detail: string): Difference => ({ probe, operation: 'x', aspect, detail })
  const diffs = [diff('token.wrong-secret', 'error', 'error: "invalid_client" on the reference, "unauthorized_client" on the target'), diff('token.client-credentials', 'fields', 'id_token: only on the target'), diff('banks.list', 'fields', 'x')]
  const unused = applyDeclared(diffs, [
    { probe: 'token.wrong-secret', aspect: 'error', contains: 'unauthorized_client', reason: 'Keycloak', expires: '2027-06-30' },
    { probe: 'token.client*', aspect: 'fields', reason: 'old', expires: '2026-01-01' },
    { probe: 'customers.list', reason: 'matches nothing', expires: '2027-01-01' }
  ], '2026-12-02')
  t.same(diffs.map(counts), [false, true, true], 'declared and in date; declared but expired; undeclared')
  t.equal(diffs[1].declared?.expired, true)
  t.same(unused.map((d) => d.probe), ['customers.list'], 'declarations that matched nothing are returned')
})

t.test('redaction: authorization headers, token fields, form secrets, and every known secret anywhere', async (t) => {
  const r = new Redactor()
  r.add('s3cret-value')
  r.add('eyJhbGciOiJSUzI1NiJ9.payload.signature')
  t.same(r.headers({ Authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.payload.signature', 'x-echo': 'was s3cret-value' }), { Authorization: 'Bearer [redacted]', 'x-echo': 'was [redacted]' })
  t.equal(r.body('grant_type=password&username=alice&password=pw&client_secret=x', 'application/x-www-form-urlencoded'), 'grant_type=password&username=alice&password=%5Bredacted%5D&client_secret=%5Bredacted%5D')
  t.same(JSON.parse(r.body('{"access_token":"abc","refresh_token":"def","nested":{"note":"s3cret-value"}}', 'application/json')!), { access_token: '[redacted]', refresh_token: '[redacted]', nested: { note: '[redacted]' } })
  t.equal(r.body('not json: s3cret-value', 'text/plain'), 'not json: [redacted]')
})

t.test("the page object's arithmetic (spec 2.1)", async (t) => {
  const page = (p: Json, n: number): Json => ({ page: { page: 0, pageSize: 10, numberOfElements: n, totalElements: n, totalPages: 1, first: true, last: true, ...p }, items: Array.from({ length: n }, () => ({})) })
  t.same(pageProblems(page({}, 3)), [])
  t.same(pageProblems(page({ page: 5, numberOfElements: 0, totalElements: 3, totalPages: 1, first: false, last: true }, 0)), [], 'a page past the end is empty and last')
  t.same(pageProblems(page({ totalElements: 0, totalPages: 0, numberOfElements: 0 }, 0)), [], 'an empty list: 0 pages, first and last')
  t.match(pageProblems(page({ totalPages: 2 }, 3)), [/totalPages 2 is not ceil/, /last is true on page 0 of 2/])
  t.match(pageProblems(page({ numberOfElements: 4 }, 3)), [/numberOfElements 4 but 3 items/, /numberOfElements 4, expected 3/])
  t.match(pageProblems({ page: { page: 0 }, items: [] }), [/page.pageSize is missing/])
})
