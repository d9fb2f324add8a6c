import t from 'tap'
import { api, build } from '../helper.js'

t.test('GET /api/products lists the products with the call account', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/products' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.sortResponses, [])
  t.same(body.products.map((p: { productCode: string }) => p.productCode), ['CALL', 'NOTICE32', 'NOTICE90', 'FIXED12', 'MONEYMARKET'])
  const calls = body.products.filter((p: { callAccount: boolean }) => p.callAccount)
  t.equal(calls.length, 1, 'exactly one call product')
  t.match(calls[0], { productCode: 'CALL', accountType: 'CALL', name: String, description: String })
  t.same(body.page, { page: 0, pageSize: 10, numberOfElements: 5, totalElements: 5, totalPages: 1, first: true, last: true })
})

t.test('GET /api/products pages', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/products?page=1&size=2' })
  t.same(res.json().products.map((p: { productCode: string }) => p.productCode), ['NOTICE90', 'FIXED12'])
  t.match(res.json().page, { totalPages: 3, first: false, last: false })
})

t.test('GET /api/products/{productCode} reads one product; an unknown code is a 404', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/products/NOTICE32' })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { productCode: 'NOTICE32', accountType: 'NOTICE', callAccount: false })
  const unknown = await api(app, { url: '/api/products/GOLD' })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.json(), { status: 404, error: 'Not Found', path: '/api/products/GOLD' })
  const long = await api(app, { url: `/api/products/${'P'.repeat(257)}` })
  t.equal(long.statusCode, 400)
  t.match(long.json().errors, [{ field: 'productCode', code: 'Size' }])
})

t.test('every product code opens an account of its type', async (t) => {
  const app = await build(t)
  const products = (await api(app, { url: '/api/products' })).json().products
  for (const p of products) {
    const res = await api(app, { url: '/api/accounts', body: { customerId: '1001100000001', productCode: p.productCode } })
    t.equal(res.statusCode, 200, p.productCode)
    t.equal(res.json().accountType, p.accountType)
  }
})
