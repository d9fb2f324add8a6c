import { ADVICE_CODES, type AdviceCode } from '../schemas/advice.js'
import type { Digest, Fold } from '../store/advisor.js'
import { ofRequest, putBounded } from './folds.js'

/*
 * The integration advisor's findings (GET /__sandbox/advice): what a partner's client does wrong, judged from
 * its requests as they are journaled, with counters and small windows per partner (never a scan of the
 * journal), so they hold beyond the journal's bound. The codes are a contract: partners assert on them.
 * Requests to the control API (/__sandbox) are the test harness's, not the integration's: not judged.
 */

export type Severity = 'error' | 'warning' | 'info'

/** The thresholds an operator can change (config: SANDBOX_ADVICE_*). */
export interface AdviceThresholds {
  /** TOKEN_PER_REQUEST: API calls with a token before it can be reported (then: a new token for most of them). */
  tokenCalls: number
  /** RETRY_WITHOUT_BACKOFF: a retry sooner than this (ms) after the failure is without backoff... */
  retryWindowMs: number
  /** ...and this many of them in a row are reported. */
  retryCount: number
  /** POLLING_TOO_FAST: more reads of one URL than this in a second... */
  pollRate: number
  /** ...for this many seconds in a row. */
  pollSeconds: number
  /** REPEATED_CLIENT_ERROR: the same 400 this many times. */
  clientErrors: number
}

/** Where the findings are explained: docs/advisor.md, one section per code. */
export const ADVICE_DOCS = 'docs/advisor.md'

/** What each code means for the partner: severity, title and what to change (docs/advisor.md says more). */
export const FINDINGS: Record<AdviceCode, { severity: Severity, title: string, advice: string }> = {
  TOKEN_PER_REQUEST: {
    severity: 'warning',
    title: 'A new access token for most API calls',
    advice: 'Cache the access token and send it until shortly before its expires_in runs out (or until a 401 invalid_token); fetching one per call doubles every call\'s latency and meets the token endpoint\'s rate limit in production.'
  },
  RETRY_WITHOUT_BACKOFF: {
    severity: 'error',
    title: 'Failed requests retried at once, again and again',
    advice: 'Retry a 5xx, 429, reset or timeout after a pause that grows with each attempt (exponential backoff with jitter, e.g. 0.5 s, 1 s, 2 s), and give up after a few attempts.'
  },
  RETRY_AFTER_IGNORED: {
    severity: 'error',
    title: 'Requests sent before Retry-After had passed',
    advice: 'After a 429 or 503 with Retry-After, send nothing to that endpoint before the seconds (or the date) it gives have passed; the bank refuses those requests anyway and may lengthen the wait.'
  },
  DUPLICATE_CREATE: {
    severity: 'error',
    title: 'A create repeated after an unclear answer made a second record',
    advice: 'After a timeout, reset, 502, 503 or 504 on a create, look the record up first (list it, or find it by your own reference) and only create it again if it is not there.'
  },
  REJECTED_TOKEN_REUSED: {
    severity: 'error',
    title: 'An access token sent again after it was refused',
    advice: 'On 401 invalid_token drop the token and get a new one (refresh, or the client credentials grant) before the next call; a refused token is never accepted again.'
  },
  DEPRECATED_VERSION: {
    severity: 'warning',
    title: 'Calls to a deprecated API version',
    advice: 'Move to the current API version: answers with a Deprecation header come from a version that will be removed (its Link header points at the documentation).'
  },
  POLLING_TOO_FAST: {
    severity: 'warning',
    title: 'The same read polled many times a second',
    advice: 'Poll a state (a guarantee\'s, an account\'s) at most once every few seconds, with a growing interval while nothing changes.'
  },
  REPEATED_CLIENT_ERROR: {
    severity: 'warning',
    title: 'The same 400 again and again',
    advice: 'Read the 400\'s errors[] (field, code and message): the request breaks a rule that does not change by sending it again; fix the request, or stop and report it.'
  }
}

/** How often a code was seen: the count, first and last time, and the latest example requests. */
export interface Seen { count: number, firstSeen: number, lastSeen: number, examples: string[] }

export interface AdviceState {
  seen: Partial<Record<AdviceCode, Seen>>
  /** Requests judged (the control API's are not). */
  requests: number
  /** TOKEN_PER_REQUEST: API calls with a valid token, and the last token of each subject (id, expiry in s). */
  apiCalls: number
  tokens: Record<string, { id: string, exp: number }>
  /** RETRY_WITHOUT_BACKOFF: requests whose last attempt failed, by request: when that answer ended, quick retries so far. */
  failed: Record<string, { end: number, quick: number }>
  /** RETRY_AFTER_IGNORED: the last Retry-After of the API and of the token endpoint: from the answer's end until. */
  wait: Partial<Record<'api' | 'token', { from: number, until: number }>>
  /** DUPLICATE_CREATE: creates that made their record but answered unclearly, by request. */
  unclear: Record<string, true>
  /** REJECTED_TOKEN_REUSED: refused tokens, and when their first refusal arrived and was answered. */
  refused: Record<string, { at: number, end: number }>
  /** POLLING_TOO_FAST: per read, its current second, reads in it, the last second over the rate and the seconds in a row. */
  polls: Record<string, { sec: number, n: number, hot: number, run: number }>
  /** REPEATED_CLIENT_ERROR: 400s by operation and rule. */
  errors: Record<string, number>
}

// bounds of the windows: a client juggling more requests at once than this is judged on the latest
const MAX_TOKENS = 64
const MAX_FAILED = 32
const MAX_UNCLEAR = 64
const MAX_REFUSED = 32
const MAX_POLLS = 32
const MAX_ERRORS = 64
const EXAMPLES = 5

const failedAnswer = (status: number): boolean => status === 0 || status === 429 || status >= 500
export const unclearAnswer = (d: Digest): boolean => d.status === 0 || d.status === 502 || d.status === 503 || d.status === 504 || d.afterFault

function note (state: AdviceState, code: AdviceCode, d: Digest): void {
  const seen = state.seen[code] ??= { count: 0, firstSeen: d.at, lastSeen: d.at, examples: [] }
  seen.count += 1
  seen.firstSeen = Math.min(seen.firstSeen, d.at)
  seen.lastSeen = Math.max(seen.lastSeen, d.at)
  seen.examples.push(d.requestId)
  if (seen.examples.length > EXAMPLES) seen.examples.shift()
}

export function adviceFold (t: AdviceThresholds): Fold<AdviceState> {
  return {
    name: 'advice',
    init: () => ({ seen: {}, requests: 0, apiCalls: 0, tokens: {}, failed: {}, wait: {}, unclear: {}, refused: {}, polls: {}, errors: {} }),
    step (s, d) {
      if (d.area === 'control') return
      s.requests += 1
      const api = d.area === 'api'

      // a request that arrived after a Retry-After answer ended, before the time it gave
      const wait = s.wait[d.area]
      if (wait !== undefined && d.at >= wait.from && d.at < wait.until) note(s, 'RETRY_AFTER_IGNORED', d)
      if (d.retryAfterMs > 0) s.wait[d.area] = { from: d.end, until: d.end + d.retryAfterMs }

      // the same request sent again within the window of its failure, retryCount times or more in a row
      const failed = ofRequest(s.failed, d)
      const quick = failed !== undefined && d.at - failed.end < t.retryWindowMs ? failed.quick + 1 : 0
      if (quick >= t.retryCount) note(s, 'RETRY_WITHOUT_BACKOFF', d)
      if (failedAnswer(d.status)) putBounded(s.failed, d.request, { end: d.end, quick }, MAX_FAILED)
      else if (failed !== undefined) delete s.failed[d.request]

      // a create that made its record after another with the same request made one but answered unclearly
      if (d.create && d.succeeded) {
        if (ofRequest(s.unclear, d) === true) note(s, 'DUPLICATE_CREATE', d)
        if (unclearAnswer(d)) putBounded(s.unclear, d.request, true, MAX_UNCLEAR)
      }

      // a token sent after its refusal's answer (requests already on their way then do not count)
      if (d.refusedToken !== null) {
        const first = s.refused[d.refusedToken]
        if (first === undefined) putBounded(s.refused, d.refusedToken, { at: d.at, end: d.end }, MAX_REFUSED)
        else if (d.at > first.end) note(s, 'REJECTED_TOKEN_REUSED', d)
        else if (first.at > d.end) {
          // filed out of order (a refusal is filed once the verifier has said whose token it was): the one
          // kept as the first was sent again after this one's answer
          s.refused[d.refusedToken] = { at: d.at, end: d.end }
          note(s, 'REJECTED_TOKEN_REUSED', d)
        }
      }

      if (d.deprecated) note(s, 'DEPRECATED_VERSION', d)

      if (api && d.tokenId !== null) {
        s.apiCalls += 1
        const last = s.tokens[d.tokenSubject]
        if (last === undefined || last.id !== d.tokenId) {
          if (last !== undefined && last.exp * 1000 > d.at) note(s, 'TOKEN_PER_REQUEST', d)
          putBounded(s.tokens, d.tokenSubject, { id: d.tokenId, exp: d.tokenExp }, MAX_TOKENS)
        }
      }

      // reads of one URL per second: over the rate for pollSeconds seconds in a row
      if (api && d.method === 'GET') {
        const sec = Math.floor(d.at / 1000)
        const p = ofRequest(s.polls, d) ?? putBounded(s.polls, d.request, { sec, n: 0, hot: -1, run: 0 }, MAX_POLLS)
        if (sec > p.sec) {
          p.sec = sec
          p.n = 0
        }
        p.n += 1
        if (p.n === t.pollRate + 1) {
          p.run = p.hot === p.sec - 1 ? p.run + 1 : 1
          p.hot = p.sec
        }
        if (p.n > t.pollRate && p.run >= t.pollSeconds) note(s, 'POLLING_TOO_FAST', d)
      }

      if (d.rule !== null) {
        const key = `${d.operation} ${d.rule}`
        const n = putBounded(s.errors, key, (s.errors[key] ?? 0) + 1, MAX_ERRORS)
        if (n >= t.clientErrors) note(s, 'REPEATED_CLIENT_ERROR', d)
      }
    }
  }
}

export interface Finding {
  code: AdviceCode
  severity: Severity
  title: string
  count: number
  firstSeen: string
  lastSeen: string
  examples: string[]
  advice: string
  docs: string
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 }

/** The findings a state shows, errors first, then the most recent. TOKEN_PER_REQUEST only over enough calls, for most of them. */
export function findingsOf (s: AdviceState, t: AdviceThresholds): Finding[] {
  const out: Finding[] = []
  for (const code of ADVICE_CODES) {
    const seen = s.seen[code]
    if (seen === undefined) continue
    if (code === 'TOKEN_PER_REQUEST' && (s.apiCalls < t.tokenCalls || seen.count * 2 <= s.apiCalls)) continue
    out.push({
      code,
      ...FINDINGS[code],
      count: seen.count,
      firstSeen: new Date(seen.firstSeen).toISOString(),
      lastSeen: new Date(seen.lastSeen).toISOString(),
      examples: seen.examples.slice().reverse(),
      docs: `${ADVICE_DOCS}#${code.toLowerCase()}`
    })
  }
  return out.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || b.lastSeen.localeCompare(a.lastSeen))
}
