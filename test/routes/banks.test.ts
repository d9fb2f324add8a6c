import t from 'tap'
import { api, build } from '../helper.js'

t.test('GET /api/banks lists every bank of the reference with branch codes and BICs', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/banks?size=100' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.banks.length, 30, 'all 30 banks of reference/south-africa.md')
  t.same(body.page, { page: 0, pageSize: 100, numberOfElements: 30, totalElements: 30, totalPages: 1, first: true, last: true })
  t.same(body.sortResponses, [])
  const absa = body.banks.find((b: { shortName: string }) => b.shortName === 'ABSA')
  t.match(absa, { fullName: 'Absa Bank Limited', defaultBranchCode: '632005', swiftBic: 'ABSAZAJJ', foreign: false })
  const citi = body.banks.find((b: { shortName: string }) => b.shortName === 'CITIBANK')
  t.match(citi, { defaultBranchCode: '350005', swiftBic: 'CITIZAJX', foreign: true })
})

t.test('GET /api/banks pages with the default size 10', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/banks' })
  t.same(res.json().page, { page: 0, pageSize: 10, numberOfElements: 10, totalElements: 30, totalPages: 3, first: true, last: false })
  const last = await api(app, { url: '/api/banks?page=2' })
  t.same(last.json().page, { page: 2, pageSize: 10, numberOfElements: 10, totalElements: 30, totalPages: 3, first: false, last: true })
  const past = await api(app, { url: '/api/banks?page=7' })
  t.equal(past.statusCode, 200)
  t.same(past.json().banks, [], 'a page past the end is empty')
  t.equal(past.json().page.last, true)
})
