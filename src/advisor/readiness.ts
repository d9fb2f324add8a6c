import { unclearAnswer, type AdviceThresholds } from './advice.js'
import { CASES, READINESS_CASES, type ReadinessCase } from '../schemas/advice.js'
import type { Digest, Fold } from '../store/advisor.js'
import { ofRequest, putBounded } from './folds.js'

/*
 * The go-live readiness checklist (GET /__sandbox/readiness, issue 29): cases the bank wants to see a partner's
 * client handle, each proved (or disproved) by the partner's own requests as they are journaled. A fold
 * beside the advice (a Fold: store/advisor.ts): a verdict per case and the few requests each case is waiting on, so it
 * holds beyond the journal's bound and is shared by replicas. A case's latest verdict stands (a client fixed
 * and run again passes), except USES_CURRENT_VERSION, which one deprecated call fails until the state is cleared.
 * Requests to the control API are the test harness's: not judged.
 */

export type Verdict = 'passed' | 'failed' | 'not-tried'

/** A case's latest verdict: the request ids that prove it, and for a failure why. */
export interface CaseVerdict { verdict: 'passed' | 'failed', at: number, requestIds: string[], reason: string | null }

export interface ReadinessState {
  cases: Partial<Record<ReadinessCase, CaseVerdict>>
  /** RETRIES_SERVER_ERROR: reads whose answer was 500, 502 or 503, by request. */
  failedReads: Record<string, { id: string, end: number, status: number }>
  /** HONOURS_RETRY_AFTER: the last 429 or 503 with Retry-After, from its end until the time it gave. */
  wait: { id: string, end: number, until: number, status: number } | null
  /** NO_DUPLICATE_AFTER_TIMEOUT: creates that made their record but answered unclearly, by request; carriedOn once a later request succeeded. */
  unclear: Record<string, { id: string, end: number, carriedOn: boolean }>
  /** REFRESHES_EXPIRED_TOKEN: the last token refused with 401 invalid_token, and the token request that followed. */
  refused: { token: string, id: string, at: number, end: number, renewedBy: string | null } | null
  /** The latest token request answered 200, and API call answered 2xx with a valid token. */
  lastToken: { id: string, at: number } | null
  lastCall: { id: string, at: number } | null
  /** SURVIVES_TOKEN_ENDPOINT_OUTAGE: the last failed token request. */
  outage: { id: string, end: number, status: number } | null
  /** HANDLES_VALIDATION_ERROR: creates refused with 400, by request, and the latest one not yet followed by a valid create. */
  rejected: Record<string, string>
  lastRejected: string | null
  /** PAGES_TO_THE_END: lists being walked from page 0: the pages' request ids (first and latest) and the next page. */
  walks: Record<string, { ids: string[], next: number }>
  /** USES_CURRENT_VERSION: API calls of the current version (the first few ids) and of deprecated ones (the latest). */
  current: string[]
  deprecated: { count: number, ids: string[] }
}

const MAX_PENDING = 32
const IDS = 5

const isServerError = (status: number): boolean => status === 500 || status === 502 || status === 503
const ok = (status: number): boolean => status >= 200 && status < 300
const seconds = (ms: number): string => `${Math.round(ms) / 1000} s`

function decide (s: ReadinessState, c: ReadinessCase, d: Digest, verdict: 'passed' | 'failed', requestIds: string[], reason: string | null = null): void {
  s.cases[c] = { verdict, at: d.at, requestIds, reason }
}

export function initialReadiness (): ReadinessState {
  return { cases: {}, failedReads: {}, wait: null, unclear: {}, refused: null, lastToken: null, lastCall: null, outage: null, rejected: {}, lastRejected: null, walks: {}, current: [], deprecated: { count: 0, ids: [] } }
}

function retriesServerError (s: ReadinessState, d: Digest, pauseMs: number): void {
  if (d.method !== 'GET') return
  const failed = ofRequest(s.failedReads, d)
  // a request on its way before the failure's answer ended is no retry of it
  if (failed !== undefined && d.at >= failed.end) {
    const gap = d.at - failed.end
    if (gap < pauseMs) {
      decide(s, 'RETRIES_SERVER_ERROR', d, 'failed', [failed.id, d.requestId], `the read that answered ${failed.status} was sent again ${Math.round(gap)} ms later, without a pause (at least ${pauseMs} ms)`)
    } else if (ok(d.status)) {
      decide(s, 'RETRIES_SERVER_ERROR', d, 'passed', [failed.id, d.requestId])
    }
    delete s.failedReads[d.request]
  }
  if (isServerError(d.status)) putBounded(s.failedReads, d.request, { id: d.requestId, end: d.end, status: d.status }, MAX_PENDING)
}

function honoursRetryAfter (s: ReadinessState, d: Digest): void {
  const w = s.wait
  if (w !== null && d.at >= w.end) {
    // Retry-After has whole seconds and the answer's end is the sandbox's: a few ms of rounding are forgiven
    if (d.at < w.until - 20) {
      decide(s, 'HONOURS_RETRY_AFTER', d, 'failed', [w.id, d.requestId], `a request was sent ${seconds(d.at - w.end)} after the ${w.status} whose Retry-After asked for ${seconds(w.until - w.end)}`)
      s.wait = null
    } else if (ok(d.status)) {
      decide(s, 'HONOURS_RETRY_AFTER', d, 'passed', [w.id, d.requestId])
      s.wait = null
    }
  }
  if ((d.status === 429 || d.status === 503) && d.retryAfterMs > 0) s.wait = { id: d.requestId, end: d.end, until: d.end + d.retryAfterMs, status: d.status }
}

function noDuplicateAfterTimeout (s: ReadinessState, d: Digest): void {
  const same = d.create ? ofRequest(s.unclear, d) : undefined
  if (same !== undefined && d.succeeded && d.at >= same.end) {
    decide(s, 'NO_DUPLICATE_AFTER_TIMEOUT', d, 'failed', [same.id, d.requestId], 'the create whose answer was lost was sent again unchanged and made a second record')
    delete s.unclear[d.request]
  } else if (ok(d.status)) {
    // the client carried on (it looked the record up, or went on without repeating): passed, until a repeat
    // (for...in: no array of the values made for every request answered 2xx, most with none)
    for (const key in s.unclear) {
      const u = s.unclear[key]
      if (u.carriedOn || d.at < u.end) continue
      u.carriedOn = true
      decide(s, 'NO_DUPLICATE_AFTER_TIMEOUT', d, 'passed', [u.id, d.requestId])
    }
  }
  if (d.create && d.succeeded && unclearAnswer(d)) putBounded(s.unclear, d.request, { id: d.requestId, end: d.end, carriedOn: false }, MAX_PENDING)
}

function refreshesExpiredToken (s: ReadinessState, d: Digest): void {
  const r = s.refused
  if (d.area === 'token') {
    if (!ok(d.status)) return
    s.lastToken = { id: d.requestId, at: d.at }
    // a token request that arrived after the refused call did (not after its answer's measured end: a quick
    // client's next request has been seen arriving a few ms before the end the server measured for the 401)
    if (r !== null && d.at > r.at) r.renewedBy ??= d.requestId
    return
  }
  if (d.refusedToken !== null) {
    if (r !== null && r.token === d.refusedToken) {
      // a refusal is filed once the verifier has said whose token it was: two may come in either order
      const [first, second] = d.at < r.at ? [{ id: d.requestId, end: d.end }, { id: r.id, at: r.at }] : [r, { id: d.requestId, at: d.at }]
      if (second.at >= first.end) {
        decide(s, 'REFRESHES_EXPIRED_TOKEN', d, 'failed', [first.id, second.id], 'the token refused with 401 invalid_token was sent again instead of a new one')
      } else if (d.at < r.at) {
        s.refused = { ...r, id: d.requestId, at: d.at, end: d.end }
      }
      return
    }
    // a token got after this refusal, and a call made with it, may have been filed before it
    const token = s.lastToken !== null && s.lastToken.at > d.at ? s.lastToken : null
    if (token !== null && s.lastCall !== null && s.lastCall.at > token.at) {
      decide(s, 'REFRESHES_EXPIRED_TOKEN', d, 'passed', [d.requestId, token.id, s.lastCall.id])
      s.refused = null
      return
    }
    s.refused = { token: d.refusedToken, id: d.requestId, at: d.at, end: d.end, renewedBy: token?.id ?? null }
    return
  }
  if (d.tokenId === null || !ok(d.status)) return
  s.lastCall = { id: d.requestId, at: d.at }
  if (r?.renewedBy != null) {
    decide(s, 'REFRESHES_EXPIRED_TOKEN', d, 'passed', [r.id, r.renewedBy, d.requestId])
    s.refused = null
  }
}

function survivesTokenOutage (s: ReadinessState, d: Digest, pauseMs: number): void {
  if (d.area !== 'token') return
  const o = s.outage
  // after a 5xx the client knows at once; after a dropped connection only when it gives up (unknown here)
  const hurried = o !== null && o.status !== 0 && d.at >= o.end && d.at - o.end < pauseMs
  if (hurried) {
    decide(s, 'SURVIVES_TOKEN_ENDPOINT_OUTAGE', d, 'failed', [o.id, d.requestId], `the token request that answered ${o.status} was sent again ${Math.round(d.at - o.end)} ms later, without a pause (at least ${pauseMs} ms)`)
  }
  if (d.status === 0 || d.status >= 500) {
    s.outage = { id: d.requestId, end: d.end, status: d.status }
  } else if (ok(d.status) && o !== null) {
    if (!hurried) decide(s, 'SURVIVES_TOKEN_ENDPOINT_OUTAGE', d, 'passed', [o.id, d.requestId])
    s.outage = null
  }
}

function handlesValidationError (s: ReadinessState, d: Digest): void {
  if (!d.create) return
  if (d.status === 400) {
    const before = ofRequest(s.rejected, d)
    if (before !== undefined) decide(s, 'HANDLES_VALIDATION_ERROR', d, 'failed', [before, d.requestId], 'a create refused with 400 was sent again unchanged (read the answer\'s errors[] and fix the request)')
    putBounded(s.rejected, d.request, d.requestId, MAX_PENDING)
    s.lastRejected = d.requestId
  } else if (ok(d.status) && s.lastRejected !== null) {
    decide(s, 'HANDLES_VALIDATION_ERROR', d, 'passed', [s.lastRejected, d.requestId])
    s.lastRejected = null
  }
}

function pagesToTheEnd (s: ReadinessState, d: Digest): void {
  const p = d.page
  if (p === null) return
  const walk = s.walks[p.list]
  if (p.number === 0) {
    if (!p.last) putBounded(s.walks, p.list, { ids: [d.requestId], next: 1 }, MAX_PENDING)
    return
  }
  if (walk === undefined) return
  // a page skipped, or read again: that walk is over
  if (p.number !== walk.next) {
    delete s.walks[p.list]
    return
  }
  walk.ids = walk.ids.length < IDS ? [...walk.ids, d.requestId] : [walk.ids[0], ...walk.ids.slice(2), d.requestId]
  walk.next += 1
  if (p.last) {
    decide(s, 'PAGES_TO_THE_END', d, 'passed', walk.ids)
    delete s.walks[p.list]
  }
}

function usesCurrentVersion (s: ReadinessState, d: Digest): void {
  if (d.deprecated) {
    s.deprecated.count += 1
    s.deprecated.ids = [d.requestId, ...s.deprecated.ids].slice(0, IDS)
    decide(s, 'USES_CURRENT_VERSION', d, 'failed', s.deprecated.ids, `${s.deprecated.count} call${s.deprecated.count === 1 ? '' : 's'} to a deprecated API version (answered with a Deprecation header)`)
    return
  }
  if (s.deprecated.count > 0 || d.tokenId === null) return
  if (s.current.length < IDS) s.current.push(d.requestId)
  decide(s, 'USES_CURRENT_VERSION', d, 'passed', s.current)
}

/** The readiness fold: every case stepped with each of the partner's requests, in the order they were filed. */
export function readinessFold (t: Pick<AdviceThresholds, 'retryWindowMs'>): Fold<ReadinessState> {
  const pauseMs = t.retryWindowMs
  return {
    name: 'readiness',
    init: initialReadiness,
    step (s, d) {
      if (d.area === 'control') return
      honoursRetryAfter(s, d)
      refreshesExpiredToken(s, d)
      survivesTokenOutage(s, d, pauseMs)
      if (d.area !== 'api') return
      retriesServerError(s, d, pauseMs)
      noDuplicateAfterTimeout(s, d)
      handlesValidationError(s, d)
      pagesToTheEnd(s, d)
      usesCurrentVersion(s, d)
    }
  }
}

export interface ReadinessCaseAnswer {
  case: ReadinessCase
  status: Verdict
  title: string
  requestIds: string[]
  reason: string | null
  howTo: string | null
  since: string | null
  docs: string
}

/** The checklist as answered: every case in its published order, with its verdict or how to provoke it. */
export function checklistOf (s: ReadinessState): { ready: boolean, passed: number, failed: number, notTried: number, cases: ReadinessCaseAnswer[] } {
  const cases = READINESS_CASES.map((c): ReadinessCaseAnswer => {
    const v = s.cases[c]
    const docs = `docs/advisor.md#${c.toLowerCase()}`
    if (v === undefined) return { case: c, status: 'not-tried', title: CASES[c].title, requestIds: [], reason: null, howTo: CASES[c].howTo, since: null, docs }
    return { case: c, status: v.verdict, title: CASES[c].title, requestIds: v.requestIds, reason: v.reason, howTo: v.verdict === 'failed' ? CASES[c].howTo : null, since: new Date(v.at).toISOString(), docs }
  })
  const { passed, failed, notTried } = readinessCounts(s)
  return { ready: passed === cases.length, passed, failed, notTried, cases }
}

/** How many cases passed, failed and were not tried (the checklist's counts, without making the checklist). */
export function readinessCounts (s: ReadinessState): { passed: number, failed: number, notTried: number } {
  let passed = 0
  let failed = 0
  for (const c of READINESS_CASES) {
    const verdict = s.cases[c]?.verdict
    if (verdict === 'passed') passed++
    else if (verdict === 'failed') failed++
  }
  return { passed, failed, notTried: READINESS_CASES.length - passed - failed }
}

const xml = (text: string): string => text.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/** The checklist as JUnit XML: one test case per case, a failure for failed, skipped for not-tried. */
export function junitOf (partnerId: string, checklist: ReturnType<typeof checklistOf>, now: Date): string {
  const cases = checklist.cases.map((c) => {
    const open = `    <testcase classname="sandbox.readiness" name="${c.case}">`
    if (c.status === 'failed') return `${open}\n      <failure type="${c.case}" message="${xml(c.reason ?? '')}">${xml(`${c.reason ?? ''}\nRequests: ${c.requestIds.join(', ')}\nTry again: ${c.howTo ?? ''}`)}</failure>\n    </testcase>`
    if (c.status === 'not-tried') return `${open}\n      <skipped message="${xml(`not tried: ${c.howTo ?? ''}`)}"/>\n    </testcase>`
    return `${open}\n      <system-out>${xml(`${c.title}. Proved by requests ${c.requestIds.join(', ')}`)}</system-out>\n    </testcase>`
  })
  const counts = `tests="${checklist.cases.length}" failures="${checklist.failed}" errors="0" skipped="${checklist.notTried}"`
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="Banking Agent Sandbox go-live readiness" ${counts}>\n` +
    `  <testsuite name="readiness.${xml(partnerId)}" ${counts} time="0" timestamp="${now.toISOString().slice(0, 19)}">\n` +
    `${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`
}
