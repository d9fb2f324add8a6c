import t from 'tap'
import { api, build } from '../helper.js'

t.test('GET /api/investment-types lists the investment types with ITF first', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/investment-types?size=100' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.sortResponses, [])
  t.equal(body.investmentTypes.length, 8)
  t.match(body.investmentTypes[0], { id: 1, description: /^ITF/ })
  t.ok(body.investmentTypes.every((i: { id: unknown, description: unknown }) => Number.isInteger(i.id) && typeof i.description === 'string'))
  t.same(body.page, { page: 0, pageSize: 100, numberOfElements: 8, totalElements: 8, totalPages: 1, first: true, last: true })
})

t.test('GET /api/investment-types pages', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/investment-types?page=1&size=3' })
  t.same(res.json().investmentTypes.map((i: { id: number }) => i.id), [4, 5, 6])
  t.same(res.json().page, { page: 1, pageSize: 3, numberOfElements: 3, totalElements: 8, totalPages: 3, first: false, last: false })
  const dflt = await api(app, { url: '/api/investment-types' })
  t.equal(dflt.json().page.pageSize, 10, 'default size 10')
})

t.test('GET /api/investment-types needs the Agent-Id', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/investment-types', agent: null })
  t.equal(res.statusCode, 400)
  t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_AGENT_ID_MISSING')
})
