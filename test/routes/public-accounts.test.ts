import t from 'tap'
import { api, build } from '../helper.js'

t.test('GET /api/accounts/public lists accounts of public entities', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts/public?size=2000' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.sortResponses, [])
  t.ok(body.publicAccounts.length >= 10)
  t.equal(body.page.totalElements, body.publicAccounts.length)
  t.match(body.publicAccounts[0], { accountId: '4050000001', name: 'SOUTH AFRICAN REVENUE SERVICE (SARS)' })
  const names = body.publicAccounts.map((p: { name: string }) => p.name)
  t.equal(new Set(names).size, names.length, 'names are unique, so name selects one account')
})

t.test('GET /api/accounts/public is not taken for an account id', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts/public' })
  t.equal(res.statusCode, 200)
  t.ok(Array.isArray(res.json().publicAccounts))
})

t.test('GET /api/accounts/public?name= selects the account of that name', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: `/api/accounts/public?name=${encodeURIComponent('ROAD ACCIDENT FUND')}` })
  t.equal(res.statusCode, 200)
  t.same(res.json().publicAccounts, [{ accountId: '4050000012', name: 'ROAD ACCIDENT FUND' }])
  t.same(res.json().page, { page: 0, pageSize: 10, numberOfElements: 1, totalElements: 1, totalPages: 1, first: true, last: true })
  const unknown = await api(app, { url: '/api/accounts/public?name=NO%20SUCH%20ENTITY' })
  t.equal(unknown.statusCode, 200)
  t.same(unknown.json().publicAccounts, [])
  t.same(unknown.json().page, { page: 0, pageSize: 10, numberOfElements: 0, totalElements: 0, totalPages: 0, first: true, last: true })
  const partial = await api(app, { url: '/api/accounts/public?name=ROAD' })
  t.same(partial.json().publicAccounts, [], 'a part of a name selects nothing')
})

t.test('GET /api/accounts/public pages', async (t) => {
  const app = await build(t)
  const all = (await api(app, { url: '/api/accounts/public?size=2000' })).json().publicAccounts
  const p = (await api(app, { url: '/api/accounts/public?page=2&size=2' })).json()
  t.same(p.publicAccounts, all.slice(4, 6))
  t.match(p.page, { page: 2, pageSize: 2, numberOfElements: 2, totalPages: Math.ceil(all.length / 2), first: false })
})
