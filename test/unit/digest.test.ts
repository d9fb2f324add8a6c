import t from 'tap'
import { digestOf } from '../../src/advisor/digest.js'
import type { Observation } from '../../src/advisor/observer.js'
import type { Digest } from '../../src/store/advisor.js'
import type { Recorded } from '../../src/store/journal.js'
import { api, build } from '../helper.js'

/*
 * A digest's request key (the identity of a request sent again unchanged) is made when a fold first reads it;
 * it must be the same whether read here or after the digest went through JSON (the Redis store), equal for
 * the same request and different for another body. Its page (PAGES_TO_THE_END) is read from answers as the
 * sandbox writes them (issue 44: the page object first, in pages of several KiB), cut or not by the journal.
 */

function observation (requestBody: string | null, url = '/api/customers'): Observation {
  const entry: Recorded = { id: 0, requestId: 'r1', at: 1_000_000, method: 'POST', url, route: '/api/customers', agentId: '1001', status: 201, durationMs: 1, fault: null, requestHead: [], requestBody, responseHead: '', responseBody: '{"customerId":"1"}' }
  return { partnerId: 'partner-a', entry, answeredAt: 1_000_001, token: null, refusedToken: null, create: true, succeeded: true, afterFault: false, retryAfterMs: null, deprecated: false, errorCode: null }
}

t.test('the request key: equal for the same request, different for another body or URL, the same through JSON', async (t) => {
  const body = '{"firstName":"Thandi"}'
  const a = digestOf(observation(body))
  const viaJson = JSON.parse(JSON.stringify(digestOf(observation(body)))) as Digest
  t.equal(viaJson.request, a.request, 'JSON carries the key a fold reads')
  t.match(a.request, /^POST \/api\/customers \S{27}$/, 'method, URL and a hash of the body (not the body)')
  t.not(digestOf(observation('{"firstName":"Sipho"}')).request, a.request, 'another body')
  t.not(digestOf(observation(body, '/api/accounts')).request, a.request, 'another URL')
  t.equal(digestOf(observation(null)).request, 'POST /api/customers', 'no body: method and URL')
  t.same(Object.keys(viaJson).sort(), ['afterFault', 'area', 'at', 'create', 'deprecated', 'end', 'method', 'operation', 'page', 'refusedToken', 'request', 'requestId', 'retryAfterMs', 'rule', 'status', 'succeeded', 'tokenExp', 'tokenId', 'tokenSubject'], 'every field of Digest, nothing private')
})

/** The observation of a GET the app answered 200 with this body (as the journal keeps it: cut or not). */
function read (url: string, responseBody: Recorded['responseBody']): Observation {
  const o = observation(null, url)
  return { ...o, create: false, entry: { ...o.entry, method: 'GET', route: url.split('?')[0], status: 200, responseBody } }
}

// the real app, for answers as the sandbox writes them (one for the file: building it is most of its time)
const app = await build(t)

t.test('the page of a list answer is read wherever it is: first, as the sandbox writes it, in the middle, or last', async (t) => {
  // the answers as the sandbox really writes them, at the default size: several KiB each
  const first = (await api(app, { url: '/api/customers?page=0' })).body
  const last = (await api(app, { url: '/api/customers?page=3' })).body
  t.ok(first.startsWith('{"page":{"page":0,'), 'the sandbox writes the page object first')
  t.ok(first.length > 4096 && last.length > 1024, `pages of ${first.length} and ${last.length} characters`)
  t.same(digestOf(read('/api/customers?page=0', first)).page, { list: '/api/customers?', number: 0, last: false }, 'page 0 of 4')
  t.same(digestOf(read('/api/customers?page=3', last)).page, { list: '/api/customers?', number: 3, last: true }, 'page 3, the last')
  // the same answer with its members in another order (spec 2.1's example has the page after the items)
  const { page, sortResponses, customers } = JSON.parse(first) as Record<string, unknown>
  t.same(digestOf(read('/api/customers?page=0', JSON.stringify({ customers, sortResponses, page }))).page, { list: '/api/customers?', number: 0, last: false }, 'page last')
  t.same(digestOf(read('/api/customers?page=0', JSON.stringify({ sortResponses, page, customers }))).page, { list: '/api/customers?', number: 0, last: false }, 'page after sortResponses')
  t.same(digestOf(read('/api/customers?size=10&page=0', first)).page?.list, '/api/customers?size=10', 'the list is the URL without its page')
})

t.test('an answer the journal cut at 64 KiB still has its page (it comes first); a page written after the cut is lost', async (t) => {
  const answer = JSON.parse((await api(app, { url: '/api/customers?page=0&size=2000' })).body) as { page: unknown, sortResponses: unknown, customers: unknown[] }
  // a long page of real customers, as a bulk reader gets it from a large agent
  const customers = Array.from({ length: 5 }, () => answer.customers).flat()
  const whole = JSON.stringify({ page: { ...(answer.page as object), last: false }, sortResponses: [], customers })
  t.ok(whole.length > 65536, `${whole.length} characters`)
  const cut = { text: whole.slice(0, 65536), cutFrom: whole.length }
  t.same(digestOf(read('/api/customers?page=0&size=2000', cut)).page, { list: '/api/customers?size=2000', number: 0, last: false }, 'read from the head of the cut text')
  const after = JSON.stringify({ sortResponses: [], customers, page: answer.page })
  t.equal(digestOf(read('/api/customers?page=0&size=2000', { text: after.slice(0, 65536), cutFrom: after.length })).page, null, 'cut before its page: nothing to read')
})

t.test('no page is read from an answer that is no list, even one whose text quotes a page object', async (t) => {
  const customer = (await api(app, { url: '/api/customers/1001100000001' })).body
  t.equal(digestOf(read('/api/customers/1001100000001', customer)).page, null, 'a record')
  // a value that quotes a page object is escaped in JSON ("page" becomes \"page\"): it is never taken for one
  const quoting = '"page":{"page":7,"pageSize":1,"numberOfElements":1,"totalElements":8,"totalPages":8,"first":false,"last":true}'
  const sent = await api(app, { url: '/api/customers/1001100000001/messages', body: { message: quoting, fromDepartment: 'CI', fromPerson: 'CI' } })
  t.equal(sent.statusCode, 200, 'a message quoting a page object')
  t.equal(digestOf(read('/api/customers/1001100000001/messages/x', sent.body)).page, null, 'a record quoting one')
  const messages = (await api(app, { url: '/api/customers/1001100000001/messages' })).body
  t.ok(messages.includes('\\"page\\":{\\"page\\":7'), 'the list carries the quote, escaped')
  t.same(digestOf(read('/api/customers/1001100000001/messages', messages)).page, { list: '/api/customers/1001100000001/messages?', number: 0, last: true }, 'the list: its own page')
  const { page, sortResponses, messages: items } = JSON.parse(messages) as Record<string, unknown>
  t.same(digestOf(read('/api/customers/1001100000001/messages', JSON.stringify({ sortResponses, messages: items, page }))).page?.number, 0, 'its own page, written last')
  t.equal(digestOf({ ...read('/api/customers', messages), entry: { ...read('/api/customers', messages).entry, status: 500 } }).page, null, 'not a 2xx')
})
