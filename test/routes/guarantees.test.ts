import t from 'tap'
import { api, build } from '../helper.js'

t.test('GET /api/guarantees/{id}/state answers the seeded guarantees', async (t) => {
  const app = await build(t)
  const valid = await api(app, { url: '/api/guarantees/GTE-A-0001/state' })
  t.equal(valid.statusCode, 200)
  t.same(valid.json(), { state: 'VALID' })
  t.match(valid.headers['content-type'], /^application\/json; charset=utf-8/)
  const invalid = await api(app, { url: '/api/guarantees/GTE-A-0002/state' })
  t.same(invalid.json(), { state: 'INVALID' })
})

t.test('the magic prefixes answer without any set-up', async (t) => {
  const app = await build(t)
  t.same((await api(app, { url: '/api/guarantees/VALID-123/state' })).json(), { state: 'VALID' })
  t.same((await api(app, { url: '/api/guarantees/INVALID-abc/state' })).json(), { state: 'INVALID' })
  const nostate = await api(app, { url: '/api/guarantees/NOSTATE-1/state' })
  t.equal(nostate.statusCode, 200)
  t.same(nostate.json(), {}, 'state is optional (spec 2.7)')
  const notFound = await api(app, { url: '/api/guarantees/NOTFOUND-1/state' })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.headers['x-sandbox-error'], 'SANDBOX_ERR_NOT_FOUND')
})

t.test('an unknown guarantee is a 404 in the error shape', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/guarantees/GTE-Z-9999/state' })
  t.equal(res.statusCode, 404)
  t.match(res.json(), { status: 404, error: 'Not Found', path: '/api/guarantees/GTE-Z-9999/state', errors: [] })
})

t.test('a guaranteeID of 255 characters is accepted and one of 256 is a 400 naming guaranteeID', async (t) => {
  const app = await build(t)
  const ok = await api(app, { url: `/api/guarantees/VALID-${'X'.repeat(249)}/state` })
  t.equal(ok.statusCode, 200)
  const long = 'G'.repeat(256)
  const res = await api(app, { url: `/api/guarantees/${long}/state` })
  t.equal(res.statusCode, 400)
  t.match(res.json().errors, [{ field: 'guaranteeID', code: 'Size', defaultMessage: 'size must be between 1 and 255' }])
})

t.test('guarantee state needs no token and no Agent-Id, and ignores a junk token', async (t) => {
  const app = await build(t)
  const bare = await api(app, { url: '/api/guarantees/GTE-A-0001/state', token: null, agent: null })
  t.equal(bare.statusCode, 200)
  t.same(bare.json(), { state: 'VALID' })
  const junk = await api(app, { url: '/api/guarantees/GTE-A-0001/state', token: 'not-a-token', agent: null })
  t.equal(junk.statusCode, 200)
  t.same(junk.json(), { state: 'VALID' })
  const otherAgent = await api(app, { url: '/api/guarantees/GTE-B-0001/state', agent: '9999' })
  t.equal(otherAgent.statusCode, 200, "another partner's guarantee is public too, and any Agent-Id is ignored")
})
