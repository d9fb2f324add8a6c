import t from 'tap'
import { digestOf } from '../../src/advisor/digest.js'
import type { Observation } from '../../src/advisor/observer.js'
import type { Digest } from '../../src/store/advisor.js'
import type { Recorded } from '../../src/store/journal.js'

/*
 * A digest's request key (the identity of a request sent again unchanged) is made when a fold first reads it;
 * it must be the same whether read here or after the digest went through JSON (the Redis store), equal for
 * the same request and different for another body.
 */

function observation (requestBody: string | null, url = '/api/customers', method = 'POST', responseBody = '{"customerId":"1"}'): Observation {
  const entry: Recorded = { id: 0, requestId: 'r1', at: 1_000_000, method, url, route: '/api/customers', agentId: '1001', status: 201, durationMs: 1, fault: null, requestHead: [], requestBody, responseHead: '', responseBody }
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

t.test("a page of a list is read from the answer's page info, first in the envelope, however long the page", async (t) => {
  const info = '{"page":{"page":2,"pageSize":5,"numberOfElements":5,"totalElements":30,"totalPages":6,"first":false,"last":false},"sortResponses":[],"customers":'
  const long = `${info}[${Array.from({ length: 40 }, (_, i) => `{"customerId":"${i}","name1":"${'X'.repeat(60)}"}`).join(',')}]}`
  t.ok(long.length > 3000, 'an answer of some KiB')
  t.same(digestOf(observation(null, '/api/customers?size=5&page=2&name=X', 'GET', long)).page, { list: '/api/customers?name=X&size=5', number: 2, last: false })
  t.same(digestOf(observation(null, '/api/customers?page=5&size=5', 'GET', `${info.replace('"last":false', '"last":true')}[]}`)).page, { list: '/api/customers?size=5', number: 2, last: true })
  t.equal(digestOf(observation(null, '/api/customers/1', 'GET', '{"customerId":"1","page":{"page":1,"last":true}}')).page, null, 'a record is no page')
  t.equal(digestOf(observation(null, '/api/customers', 'POST', long)).page, null, 'nor is an answer to a POST')
})
