import t from 'tap'
import { adviceFold, findingsOf, type AdviceState } from '../../src/advisor/advice.js'
import type { Digest } from '../../src/store/advisor.js'

/*
 * The advice fold's edges that traffic over HTTP cannot time (test/advice.test.ts plays the clients): requests
 * already on their way when a refusal or a Retry-After came, digests a replica files out of order, retries with
 * backoff, TOKEN_PER_REQUEST only for most calls, the windows' bounds.
 */

const T = { tokenCalls: 20, retryWindowMs: 100, retryCount: 3, pollRate: 5, pollSeconds: 10, clientErrors: 5 }
const fold = adviceFold(T)

let n = 0
function d (over: Partial<Digest>): Digest {
  const at = over.at ?? 1_000_000
  return {
    requestId: `r${++n}`,
    at,
    end: over.end ?? at + 5,
    area: 'api',
    method: 'GET',
    operation: 'GET /api/banks',
    request: 'GET /api/banks',
    status: 200,
    afterFault: false,
    create: false,
    succeeded: true,
    retryAfterMs: 0,
    deprecated: false,
    tokenId: 'token-1',
    tokenExp: 2_000_000,
    tokenSubject: '',
    refusedToken: null,
    rule: null,
    page: null,
    ...over
  }
}

function run (digests: Digest[]): { state: AdviceState, codes: Record<string, number> } {
  const state = fold.init()
  for (const x of digests) fold.step(state, x)
  return { state, codes: Object.fromEntries(findingsOf(state, T).map((f) => [f.code, f.count])) }
}

t.test('a refused token: requests sent before the refusal came are not reuse, those after are', async (t) => {
  const refused = { status: 401, refusedToken: 'tok', tokenId: null }
  t.same(run([d({ ...refused, at: 0, end: 10 }), d({ ...refused, at: 5, end: 12 })]).codes, {}, 'in flight together')
  t.same(run([d({ ...refused, at: 0, end: 10 }), d({ ...refused, at: 11, end: 15 }), d({ ...refused, at: 20 })]).codes, { REJECTED_TOKEN_REUSED: 2 })
})

t.test('Retry-After: only requests that arrived after the answer and before its time; the token endpoint apart', async (t) => {
  const busy = d({ status: 503, at: 0, end: 10, retryAfterMs: 5000 })
  t.same(run([busy, d({ at: 5 })]).codes, {}, 'sent before the 503 was answered')
  t.same(run([busy, d({ at: 5011 })]).codes, {}, 'after the wait')
  t.same(run([busy, d({ at: 11 }), d({ at: 4000 })]).codes, { RETRY_AFTER_IGNORED: 2 })
  t.same(run([busy, d({ at: 11, area: 'token', tokenId: null })]).codes, {}, 'a token request after an API call\'s 503')
})

t.test('retries: at once three times in a row is reported, with backoff never, a different request apart', async (t) => {
  const fail = (at: number): Digest => d({ status: 500, at, end: at + 2, request: 'POST /api/x body' })
  t.same(run([fail(0), fail(10), fail(20), fail(30)]).codes, { RETRY_WITHOUT_BACKOFF: 1 })
  t.same(run([fail(0), fail(10), fail(20), fail(30), fail(40)]).codes, { RETRY_WITHOUT_BACKOFF: 2 })
  t.same(run([fail(0), fail(200), fail(600), fail(1400), fail(3000)]).codes, {}, 'exponential backoff')
  t.same(run([fail(0), fail(10), d({ status: 200, at: 20, request: 'POST /api/x body' }), fail(30), fail(40)]).codes, {}, 'a success ends the run')
  t.same(run([d({ status: 0, at: 0, end: 30000 }), d({ status: 0, at: 30010, end: 60000 }), d({ status: 0, at: 60010, end: 90000 }), d({ status: 0, at: 90010 })]).codes, { RETRY_WITHOUT_BACKOFF: 1 }, 'timeouts: from the end of the dropped connection')
})

t.test('duplicate creates: only when the unclear one made its record', async (t) => {
  const create = { create: true, method: 'POST', request: 'POST /api/customers h1' }
  t.same(run([d({ ...create, status: 502, succeeded: false }), d({ ...create })]).codes, {}, 'a 502 before the operation')
  t.same(run([d({ ...create, status: 0, afterFault: true }), d({ ...create })]).codes, { DUPLICATE_CREATE: 1 }, 'made, then reset')
  t.same(run([d({ ...create, status: 0, afterFault: true }), d({ ...create, request: 'POST /api/customers h2' })]).codes, {}, 'another body')
  t.same(run([d({ ...create, status: 0, afterFault: true }), d({ ...create, status: 400, succeeded: false })]).codes, {}, 'a repeat that made nothing')
})

t.test('TOKEN_PER_REQUEST: over 20 calls, most with a new token while the last was valid', async (t) => {
  const calls = (k: number, fresh: (i: number) => boolean, exp = 2_000_000): Digest[] => {
    let id = 0
    return Array.from({ length: k }, (_, i) => d({ at: 1000 + i, tokenId: `t${fresh(i) ? ++id : id}`, tokenExp: exp }))
  }
  t.same(run(calls(19, () => true)).codes, {}, '19 calls: not yet')
  t.same(run(calls(21, () => true)).codes, { TOKEN_PER_REQUEST: 20 })
  t.same(run(calls(40, (i) => i % 3 === 0)).codes, {}, 'a third of them: not most')
  t.same(run(calls(30, () => true, 0)).codes, {}, 'each new token after the last expired')
  const users = Array.from({ length: 30 }, (_, i) => d({ at: i, tokenId: `u${i}`, tokenSubject: `user-${i}` }))
  t.same(run(users).codes, {}, 'a token per user is no finding')
})

t.test('polling: over the rate for the seconds in a row; one slow second starts again; digests out of order', async (t) => {
  const reads = (seconds: number[], perSecond: number): Digest[] => seconds.flatMap((s) => Array.from({ length: perSecond }, (_, i) => d({ at: s * 1000 + i * Math.floor(1000 / perSecond) })))
  const ten = Array.from({ length: 10 }, (_, i) => 100 + i)
  t.same(run(reads(ten, 5)).codes, {}, 'five a second is allowed')
  t.same(run(reads(ten, 7)).codes, { POLLING_TOO_FAST: 2 }, 'the tenth second: its 6th and 7th reads')
  t.same(run([...reads(ten.slice(0, 5), 7), ...reads([105], 3), ...reads(ten.slice(6), 7)]).codes, {}, 'a slow second in the middle')
  const shuffled = reads(ten, 7)
  ;[shuffled[20], shuffled[21]] = [shuffled[21], shuffled[20]]
  t.same(run(shuffled).codes, { POLLING_TOO_FAST: 2 }, 'two digests of a second swapped')
})

t.test('the windows stay bounded however many requests', async (t) => {
  const many: Digest[] = []
  for (let i = 0; i < 5000; i++) {
    many.push(d({ at: i, status: 500, request: `GET /api/x/${i}`, tokenId: `t${i}`, tokenSubject: `s${i}`, refusedToken: `r${i}`, rule: `rule ${i}` }))
  }
  const { state } = run(many)
  t.ok(JSON.stringify(state).length < 40_000, `state of ${JSON.stringify(state).length} characters`)
  for (const k of ['tokens', 'failed', 'refused', 'polls', 'errors'] as const) t.ok(Object.keys(state[k]).length <= 64, `${k} bounded`)
})

t.test('the control API is not judged', async (t) => {
  const { state, codes } = run([d({ area: 'control', status: 400, rule: 'x' }), d({ area: 'control', deprecated: true })])
  t.same(codes, {})
  t.equal(state.requests, 0)
})
