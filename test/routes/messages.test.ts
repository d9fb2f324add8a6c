import t from 'tap'
import { api, build, PARTNER_B, tokenFor } from '../helper.js'

const CUSTOMER = '1001100000001'
const BASE = `/api/customers/${CUSTOMER}/messages`
const VALID = { message: 'YOUR NOTICE PERIOD ENDS ON 2026-04-30.', fromDepartment: 'INVESTMENTS', fromPerson: 'NOMSA DLAMINI' }

// spec 2.6: "date-time without zone in samples"
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?$/

t.test('POST messages answers the message with an id and a zone-less local dateCreated', async (t) => {
  const app = await build(t)
  const before = Date.now()
  const res = await api(app, { url: BASE, body: VALID })
  t.equal(res.statusCode, 200)
  const message = res.json()
  t.match(message, { ...VALID, id: /^1001\d{9}$/, dateCreated: LOCAL_DATE_TIME })
  t.notOk('customerId' in message, 'the owner id does not leak')
  // South African time: the local date-time read as UTC is two hours ahead of the real instant
  const asUtc = Date.parse(`${message.dateCreated as string}Z`)
  t.ok(asUtc >= before + 2 * 3600_000 - 1000 && asUtc <= Date.now() + 2 * 3600_000 + 1000, 'dateCreated is SAST (UTC+02:00)')
})

t.test('a new message is listed at once, after the older ones', async (t) => {
  const app = await build(t)
  const created = (await api(app, { url: BASE, body: VALID })).json()
  const list = await api(app, { url: `${BASE}?size=100` })
  t.equal(list.statusCode, 200)
  const body = list.json()
  t.same(body.sortResponses, [])
  t.same(body.messages.at(-1), created)
  t.match(body.messages[0], { id: '1001400000001', fromPerson: 'NOMSA DLAMINI', dateCreated: '2025-03-14T09:30:00.000' })
  t.equal(body.page.totalElements, body.messages.length)
})

t.test('GET messages pages: size 1 walks the list one message at a time', async (t) => {
  const app = await build(t)
  await api(app, { url: BASE, body: { ...VALID, message: 'SECOND' } })
  await api(app, { url: BASE, body: { ...VALID, message: 'THIRD' } })
  const all = (await api(app, { url: `${BASE}?size=100` })).json().messages
  t.ok(all.length >= 3)
  const p1 = (await api(app, { url: `${BASE}?page=1&size=1` })).json()
  t.same(p1.messages, [all[1]])
  t.same(p1.page, { page: 1, pageSize: 1, numberOfElements: 1, totalElements: all.length, totalPages: all.length, first: false, last: all.length === 2 })
  const last = (await api(app, { url: `${BASE}?page=${all.length - 1}&size=1` })).json()
  t.equal(last.page.last, true)
  const past = (await api(app, { url: `${BASE}?page=${all.length}&size=1` })).json()
  t.same(past.messages, [])
  t.equal(past.page.numberOfElements, 0)
})

t.test('POST messages accepts empty strings and the maximum sizes', async (t) => {
  const app = await build(t)
  for (const body of [
    { message: '', fromDepartment: '', fromPerson: '' },
    { message: 'M'.repeat(256), fromDepartment: 'D'.repeat(100), fromPerson: 'P'.repeat(100) },
    { message: 'lower case and ümlauts are fine here', fromDepartment: 'Client Services', fromPerson: 'Nomsa' }
  ]) {
    const res = await api(app, { url: BASE, body })
    t.equal(res.statusCode, 200)
    t.match(res.json(), body)
  }
})

t.test('POST messages refuses values over the sizes of spec 2.6, naming the field', async (t) => {
  const app = await build(t)
  for (const [field, max] of [['message', 256], ['fromDepartment', 100], ['fromPerson', 100]] as const) {
    const value = 'X'.repeat(max + 1)
    const res = await api(app, { url: BASE, body: { ...VALID, [field]: value } })
    t.equal(res.statusCode, 400, field)
    t.same(res.json().errors, [{ field, rejectedValue: value, defaultMessage: `size must be between 0 and ${max}`, code: 'Size' }])
    t.equal(res.json().message, "Validation failed for object='customerMessage'. Error count: 1")
  }
})

t.test('POST messages refuses a missing field with NotNull', async (t) => {
  const app = await build(t)
  for (const field of ['message', 'fromDepartment', 'fromPerson'] as const) {
    const body: Record<string, string> = { ...VALID }
    delete body[field]
    const res = await api(app, { url: BASE, body })
    t.equal(res.statusCode, 400, field)
    t.same(res.json().errors, [{ field, rejectedValue: null, defaultMessage: 'must not be null', code: 'NotNull' }])
  }
  const nul = await api(app, { url: BASE, body: { ...VALID, message: null } })
  t.equal(nul.statusCode, 400, 'null is refused like a missing field')
  t.match(nul.json().errors, [{ field: 'message' }])
})

t.test('POST messages ignores id and dateCreated in the body', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: BASE, body: { ...VALID, id: '1001400000001', dateCreated: '2000-01-01T00:00:00.000' } })
  t.equal(res.statusCode, 200)
  t.not(res.json().id, '1001400000001')
  t.not(res.json().dateCreated, '2000-01-01T00:00:00.000')
})

t.test('messages of an unknown customer or of a customer of another agent or partner are a 404', async (t) => {
  const app = await build(t)
  for (const [url, agent] of [['/api/customers/1001199999999/messages', '1001'], [BASE, '1002']]) {
    t.equal((await api(app, { url, agent })).statusCode, 404, `GET ${url} as ${agent}`)
    const post = await api(app, { url, agent, body: VALID })
    t.equal(post.statusCode, 404, `POST ${url} as ${agent}`)
    t.equal(post.headers['x-sandbox-error'], 'SANDBOX_ERR_NOT_FOUND')
  }
  const b = await api(app, { url: BASE, agent: '2001', token: await tokenFor(app, PARTNER_B) })
  t.equal(b.statusCode, 404)
  const list = (await api(app, { url: `${BASE}?size=100` })).json().messages
  t.ok(list.every((m: { message: string }) => m.message !== VALID.message), 'nothing was stored by the refused posts')
})

t.test('agent 1002 never sees the messages of agent 1001', async (t) => {
  const app = await build(t)
  const created = (await api(app, { url: BASE, body: VALID })).json()
  const customers = (await api(app, { url: '/api/customers?size=2000', agent: '1002' })).json().customers as Array<{ customerId: string }>
  let seen = 0
  for (const c of customers) {
    const messages = (await api(app, { url: `/api/customers/${c.customerId}/messages?size=100`, agent: '1002' })).json().messages
    seen += messages.length
    t.ok(messages.every((m: { id: string }) => m.id.startsWith('1002') && m.id !== created.id))
  }
  t.ok(seen > 0, 'agent 1002 has messages of its own')
})
