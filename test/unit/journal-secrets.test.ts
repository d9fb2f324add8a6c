import t from 'tap'
import { entryOf } from '../../src/plugins/journal.js'
import { headWithoutSecrets, type Recorded } from '../../src/store/journal.js'

/*
 * An entry kept in Redis leaves the process: headWithoutSecrets takes the secret header values out first (no
 * token or client secret is written to Redis), and what a reader sees of it is what it sees of one kept in memory.
 */

// names of a secret's length that are no secret (Accept-Ranges, If-Match), and one in capitals
const REQUEST = ['Host', 'sandbox', 'Authorization', 'Bearer eyJ.secret.token', 'Accept-Ranges', 'bytes', 'Cookie', 'a=b', 'X-Request-Id', 'r-1', 'Proxy-Authorization', 'Basic c2VjcmV0', 'SET-COOKIE', 'secret=1', 'If-Match', '"e1"']
const RESPONSE = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nSet-Cookie: session=secret; HttpOnly\r\nset-cookie: other=secret\r\nx-request-id: r-1\r\n\r\n'

const recorded = (requestHead: Recorded['requestHead'], responseHead: Recorded['responseHead']): Recorded => ({
  id: 1, requestId: 'r-1', at: 0, method: 'GET', url: '/api/banks', route: '/api/banks', agentId: '1001', status: 200, durationMs: 1, fault: null, requestHead, requestBody: null, responseHead, responseBody: '{}'
})

t.test('secret header values are gone from both kinds of head, everything else stays', async (t) => {
  const request = headWithoutSecrets(REQUEST)
  const response = headWithoutSecrets(RESPONSE)
  t.notMatch(JSON.stringify([request, response]), /secret|c2VjcmV0|eyJ/, 'no secret value left')
  t.same(request, ['Host', 'sandbox', 'Authorization', '[REDACTED]', 'Accept-Ranges', 'bytes', 'Cookie', '[REDACTED]', 'X-Request-Id', 'r-1', 'Proxy-Authorization', '[REDACTED]', 'SET-COOKIE', '[REDACTED]', 'If-Match', '"e1"'])
  t.equal(response, 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nSet-Cookie: [REDACTED]\r\nset-cookie: [REDACTED]\r\nx-request-id: r-1\r\n\r\n')
  t.same(REQUEST[3], 'Bearer eyJ.secret.token', 'the head as received is left as it is (a copy is redacted)')
  t.same(entryOf(recorded(request, response)), entryOf(recorded(REQUEST, RESPONSE)), 'a reader sees the same entry')
  const plain = ['Host', 'sandbox', 'X-Request-Id', 'r-1']
  t.equal(headWithoutSecrets(plain), plain, 'a request head without secrets is kept as it is, not copied')
})
