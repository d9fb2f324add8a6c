import t from 'tap'
import type { Digest } from '../../src/store/advisor.js'
import { checklistOf, junitOf, readinessFold, type ReadinessState } from '../../src/advisor/readiness.js'

/* The readiness fold's edges that are hard to play over HTTP: requests in parallel, pages skipped, XML escaping. */

let n = 0
/** A digest of an API GET answered 200 at `at` (ms), as the journal's observer makes one. */
function digest (at: number, over: Partial<Digest> = {}): Digest {
  n += 1
  const base: Digest = { requestId: `r${n}`, at, end: at + 5, area: 'api', method: 'GET', operation: 'GET /api/banks', request: 'GET /api/banks', status: 200, afterFault: false, create: false, succeeded: true, retryAfterMs: 0, deprecated: false, tokenId: 'jti', tokenExp: 0, tokenSubject: '', refusedToken: null, rule: null, page: null }
  return { ...base, ...over }
}

function play (...digests: Digest[]): ReadinessState {
  const fold = readinessFold({ retryWindowMs: 100 })
  const state = fold.init()
  for (const d of digests) fold.step(state, d)
  return state
}

t.test('a read sent while the failed one was still being answered is no retry of it', async (t) => {
  const failed = digest(1000, { status: 503, end: 1050 })
  const parallel = digest(1010)
  t.equal(play(failed, parallel).cases.RETRIES_SERVER_ERROR, undefined, 'not judged')
  t.match(play(failed, parallel, digest(1300)).cases.RETRIES_SERVER_ERROR, { verdict: 'passed', requestIds: [failed.requestId] })
})

t.test('a walk that skips a page is over; one that goes on to page.last passes', async (t) => {
  const list = '/api/customers?size=2'
  const page = (number: number, last = false): Digest => digest(number * 100, { page: { list, number, last } })
  t.equal(play(page(0), page(2, true)).cases.PAGES_TO_THE_END, undefined, 'page 1 skipped')
  t.equal(play(page(0, true)).cases.PAGES_TO_THE_END, undefined, 'a list of one page proves nothing')
  const walked = [page(0), page(1), page(2), page(3), page(4), page(5, true)]
  t.match(play(...walked).cases.PAGES_TO_THE_END, { verdict: 'passed', requestIds: [walked[0], ...walked.slice(2)].map((d) => d.requestId) }, 'the first page and the latest four')
})

t.test('control API requests are not judged; a deprecated call fails USES_CURRENT_VERSION for good', async (t) => {
  t.equal(play(digest(0, { area: 'control' })).cases.USES_CURRENT_VERSION, undefined)
  const s = play(digest(0), digest(10, { deprecated: true }), digest(20), digest(30))
  t.match(s.cases.USES_CURRENT_VERSION, { verdict: 'failed', reason: '1 call to a deprecated API version (answered with a Deprecation header)' })
})

t.test('the JUnit XML escapes what it quotes', async (t) => {
  const s = play()
  s.cases.HANDLES_VALIDATION_ERROR = { verdict: 'failed', at: 0, requestIds: ['a<b'], reason: 'x & "y" <z>' }
  const xml = junitOf('partner-"a"', checklistOf(s), new Date(0))
  t.match(xml, /<failure type="HANDLES_VALIDATION_ERROR" message="x &#38; &#34;y&#34; &#60;z&#62;">/)
  t.match(xml, /name="readiness.partner-&#34;a&#34;"/)
  t.notMatch(xml, /a<b/)
  t.match(xml, /<testsuites name="[^"]+" tests="8" failures="1" errors="0" skipped="7">/)
})

t.test('refusals filed out of order (each once the verifier said whose token it was) are judged by arrival', async (t) => {
  const refusal = (at: number): Digest => digest(at, { status: 401, refusedToken: 'tok', tokenId: null, succeeded: false })
  const first = refusal(0)
  const second = refusal(100)
  t.match(play(second, first).cases.REFRESHES_EXPIRED_TOKEN, { verdict: 'failed', requestIds: [first.requestId, second.requestId] }, 'sent again')
  const renewed = digest(50, { area: 'token', tokenId: null })
  const call = digest(120)
  t.same(play(renewed, first, call).cases.REFRESHES_EXPIRED_TOKEN?.requestIds, [first.requestId, renewed.requestId, call.requestId], 'a token got after the refusal, filed before it')
  t.same(play(renewed, call, first).cases.REFRESHES_EXPIRED_TOKEN?.requestIds, [first.requestId, renewed.requestId, call.requestId], 'and the call made with it too')
})
