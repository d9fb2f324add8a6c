import t from 'tap'
import { BODY_LIMIT, PackedExchange, bodyText } from '../../src/store/exchange.js'

/*
 * The journal keeps the texts of an exchange packed in one buffer (src/store/exchange.ts): what goes in
 * must come out as it was sent, bodies over 64 KiB cut on a character boundary, no body apart from an empty one.
 */

const HEADERS = ['Host', 'sandbox.test', 'Authorization', 'Bearer abc.def.ghi', 'Agent-Id', '1001', 'X-Note', 'caf\u00e9 ol\u00e9']
const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: 2\r\n\r\n'

t.test('every text comes back as it went in, multi-byte characters included', async (t) => {
  const x = PackedExchange.pack(HEADERS, '{"name":"Zo\u00eb \u2603 \ud83d\ude00"}', HEAD, '{"id":"1"}')
  t.same(x.requestHeaders(), HEADERS)
  t.equal(x.requestBody(), '{"name":"Zo\u00eb \u2603 \ud83d\ude00"}')
  t.equal(x.responseHead(), HEAD)
  t.equal(x.responseBody(), '{"id":"1"}')
  t.equal(x.size, Buffer.byteLength(HEADERS.join('\n'), 'latin1') + Buffer.byteLength('{"name":"Zo\u00eb \u2603 \ud83d\ude00"}') + HEAD.length + 10, 'exactly the bytes of the texts')
})

t.test('no body and an empty body are told apart, and no headers is an empty list', async (t) => {
  const none = PackedExchange.pack([], null, HEAD, null)
  t.same(none.requestHeaders(), [])
  t.equal(none.requestBody(), null)
  t.equal(none.responseBody(), null)
  t.equal(none.responseHead(), HEAD)
  const empty = PackedExchange.pack(HEADERS, '', '', '')
  t.equal(empty.requestBody(), '')
  t.equal(empty.responseBody(), '')
  t.equal(empty.responseHead(), '')
})

t.test('a body over 64 KiB is cut on a character boundary and keeps the size of the whole', async (t) => {
  // 3-byte characters after one ASCII byte: the limit falls inside a character
  const big = `x${'\u20ac'.repeat(30_000)}`
  const x = PackedExchange.pack(HEADERS, big, HEAD, big)
  for (const body of [x.requestBody(), x.responseBody()]) {
    t.type(body, 'object')
    const cut = body as { text: string, cutFrom: number }
    t.equal(cut.cutFrom, Buffer.byteLength(big), 'the size of the whole')
    t.ok(big.startsWith(cut.text), 'the start of the body, no broken character')
    t.ok(Buffer.byteLength(cut.text) <= BODY_LIMIT && Buffer.byteLength(cut.text) > BODY_LIMIT - 3, 'as much as fits in 64 KiB')
  }
  t.same(x.requestHeaders(), HEADERS, 'the texts after a cut body are where they belong')
  t.equal(x.responseHead(), HEAD)
  const exact = 'y'.repeat(BODY_LIMIT)
  t.equal(PackedExchange.pack([], exact, HEAD, null).requestBody(), exact, 'a body of exactly 64 KiB is kept whole')
  t.equal(bodyText({ text: 'a', cutFrom: 70000 }), 'a')
})

t.test('the request body is searched without reading it out, and only the request body', async (t) => {
  const x = PackedExchange.pack(HEADERS, '{"name":"Zo\u00eb"}', HEAD, '{"secret":"response"}')
  t.ok(x.requestBodyIncludes('Zo\u00eb'))
  t.notOk(x.requestBodyIncludes('Bearer'), 'not the headers')
  t.notOk(x.requestBodyIncludes('response'), 'not the answer')
  t.notOk(PackedExchange.pack(HEADERS, null, HEAD, null).requestBodyIncludes(''), 'no body holds nothing')
})
