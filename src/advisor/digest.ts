import { hash } from 'node:crypto'
import { REALM_PATH, ROUTES } from '../auth/realm.js'
import { bodyText } from '../store/journal.js'
import type { Observation } from './observer.js'

/*
 * A request reduced to what the advisor's folds judge (advisor/folds.ts): small and plain JSON, because with
 * replicas it travels through Redis to be folded by whichever replica reads the partner's state
 * (store/redis/advisor.ts). A fold that needs more of a request adds a field here.
 */

const TOKEN_ROUTE = `${REALM_PATH}${ROUTES.token}`

/** Which part of the sandbox a request went to: the bank's API, the token endpoint, or the control API. */
export type Area = 'api' | 'token' | 'control'

export interface Digest {
  /** The request id (X-Request-Id): the journal finds the entry by it. */
  requestId: string
  /** Arrival, and the answer handed over (or the connection dropped), epoch ms. */
  at: number
  end: number
  area: Area
  method: string
  /** The operation: method and route template, or method and path when no route matched. */
  operation: string
  /** The request itself: method, URL and (a hash of) the body; equal for a request sent again unchanged. */
  request: string
  /** 0: the connection was dropped without an answer (a reset or timeout). */
  status: number
  /** An `after` fault replaced, delayed or dropped the operation's answer. */
  afterFault: boolean
  create: boolean
  /** The operation ran and answered 2xx (for a create: its record was made), whatever the client got. */
  succeeded: boolean
  /** Retry-After of a 429 or 503, in ms; 0 when none. */
  retryAfterMs: number
  deprecated: boolean
  /** The access token the request carried: its id, expiry (epoch s) and subject (user, or '' for the client). */
  tokenId: string | null
  tokenExp: number
  tokenSubject: string
  /** A refused token's digest (observer.ts). */
  refusedToken: string | null
  /** For a 400: the rule broken (error code and the fields with their rules), else null. */
  rule: string | null
  /** A page of a list read (a 2xx GET whose answer has page info): the list (URL without page), page number, last. */
  page: { list: string, number: number, last: boolean } | null
}

const areaOf = (route: string | null, url: string): Area =>
  route === TOKEN_ROUTE ? 'token' : (route ?? url).startsWith('/__sandbox') ? 'control' : 'api'

// one-shot hashing: a Hash object per request cost twice as much
const bodyHash = (body: string): string => hash('sha1', body, 'base64url')

/** The rule a 400 names: its error code, and each field with the rule it broke (not the values sent). */
function ruleOf (errorCode: string | null, body: string | null): string {
  let fields = ''
  if (body !== null) {
    try {
      const errors = (JSON.parse(body) as { errors?: Array<{ field?: unknown, code?: unknown }> }).errors
      if (Array.isArray(errors)) fields = errors.map((e) => `${String(e.field)}:${String(e.code)}`).sort().join(',')
    } catch {}
  }
  return `${errorCode ?? '400'} ${fields}`
}

/**
 * The page a 2xx GET answered, from the answer's page info (spec 2.1: it follows the items, so it is looked for
 * in the last KiB; an answer the journal cut at 64 KiB has none here). The list is the URL without its page.
 */
const PAGE_TAIL = 1024

function pageOf (method: string, status: number, url: string, answer: string | null): Digest['page'] {
  if (method !== 'GET' || status < 200 || status > 299 || answer === null) return null
  // any other answer then costs a scan of its tail, not of its whole body
  const at = answer.indexOf('"page":{"page":', Math.max(0, answer.length - PAGE_TAIL))
  if (at < 0) return null
  const info = /^"page":\{"page":(\d+)[^{}]*"last":(true|false)/.exec(answer.slice(at, at + 300))
  if (info === null) return null
  const [path, query = ''] = url.split('?')
  const params = new URLSearchParams(query)
  params.delete('page')
  params.sort()
  return { list: `${path}?${params.toString()}`, number: Number(info[1]), last: info[2] === 'true' }
}

export function digestOf (o: Observation): Digest {
  const e = o.entry
  const body = bodyText(e.requestBody)
  const t = o.token
  return {
    requestId: e.requestId,
    at: e.at,
    end: o.answeredAt,
    area: areaOf(e.route, e.url),
    method: e.method,
    operation: `${e.method} ${e.route ?? e.url.split('?')[0]}`,
    request: body === null ? `${e.method} ${e.url}` : `${e.method} ${e.url} ${bodyHash(body)}`,
    status: e.status,
    afterFault: o.afterFault,
    create: o.create,
    succeeded: o.succeeded,
    retryAfterMs: o.retryAfterMs ?? 0,
    deprecated: o.deprecated,
    tokenId: t === null ? null : t.jti,
    tokenExp: t === null ? 0 : t.exp,
    tokenSubject: t?.username ?? '',
    refusedToken: o.refusedToken,
    rule: e.status === 400 ? ruleOf(o.errorCode, bodyText(e.responseBody)) : null,
    page: pageOf(e.method, e.status, e.url, bodyText(e.responseBody))
  }
}
