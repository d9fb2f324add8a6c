import { hash } from 'node:crypto'
import { REALM_PATH, ROUTES } from '../auth/realm.js'
import type { Area, Digest } from '../store/advisor.js'
import { bodyText } from '../store/journal.js'
import type { Observation } from './observer.js'

/*
 * A request reduced to what the advisor's folds judge (its shape, Digest, is in store/advisor.ts): small and plain JSON, because with
 * replicas it travels through Redis to be folded by whichever replica reads the partner's state
 * (store/redis/advisor.ts). A fold that needs more of a request adds a field to Digest and fills it here.
 */

const TOKEN_ROUTE = `${REALM_PATH}${ROUTES.token}`

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
