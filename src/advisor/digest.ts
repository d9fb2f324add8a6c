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
 * The page a 2xx GET answered, from the answer's page info. The list envelope (spec 2.1, schemas/common.ts PageOf)
 * is written page first, in its schema's order: the info is read at the answer's start, where an answer the journal
 * cut at 64 KiB keeps it too. (It was looked for in the last KiB, which only answers under 1 KiB have: a walk of
 * customers, of banks five at a time, never passed.) The list is the URL without its page.
 */
const PAGE_INFO = /^\{"page":\{"page":(\d+)[^{}]*"last":(true|false)/

function pageOf (method: string, status: number, url: string, answer: string | null): Digest['page'] {
  if (method !== 'GET' || status < 200 || status > 299 || answer === null) return null
  // any other answer costs a look at its first characters, not a scan of its body
  if (!answer.startsWith('{"page":{"page":')) return null
  const info = PAGE_INFO.exec(answer.slice(0, 300))
  if (info === null) return null
  const [path, query = ''] = url.split('?')
  const params = new URLSearchParams(query)
  params.delete('page')
  params.sort()
  return { list: `${path}?${params.toString()}`, number: Number(info[1]), last: info[2] === 'true' }
}

/**
 * A Digest whose request key is made when first read: a fold looks a request up only in a window that holds
 * some (ofRequest, folds.ts), most requests meet empty ones, and the hash of a body was half of a digest's cost
 * (an object literal with a getter cost more than the hash). JSON (the Redis store) has it like any field.
 */
class LazyDigest implements Digest {
  readonly requestId: string
  readonly at: number
  readonly end: number
  readonly area: Area
  readonly method: string
  readonly operation: string
  readonly status: number
  readonly afterFault: boolean
  readonly create: boolean
  readonly succeeded: boolean
  readonly retryAfterMs: number
  readonly deprecated: boolean
  readonly tokenId: string | null
  readonly tokenExp: number
  readonly tokenSubject: string
  readonly refusedToken: string | null
  readonly rule: string | null
  readonly page: Digest['page']
  readonly #url: string
  readonly #body: string | null
  #request: string | undefined

  constructor (o: Observation) {
    const e = o.entry
    const t = o.token
    this.requestId = e.requestId
    this.at = e.at
    this.end = o.answeredAt
    this.area = areaOf(e.route, e.url)
    this.method = e.method
    this.operation = `${e.method} ${e.route ?? e.url.split('?')[0]}`
    this.status = e.status
    this.afterFault = o.afterFault
    this.create = o.create
    this.succeeded = o.succeeded
    this.retryAfterMs = o.retryAfterMs ?? 0
    this.deprecated = o.deprecated
    this.tokenId = t === null ? null : t.jti
    this.tokenExp = t === null ? 0 : t.exp
    this.tokenSubject = t?.username ?? ''
    this.refusedToken = o.refusedToken
    this.rule = e.status === 400 ? ruleOf(o.errorCode, bodyText(e.responseBody)) : null
    this.page = pageOf(e.method, e.status, e.url, bodyText(e.responseBody))
    this.#url = e.url
    this.#body = bodyText(e.requestBody)
  }

  get request (): string {
    this.#request ??= this.#body === null ? `${this.method} ${this.#url}` : `${this.method} ${this.#url} ${bodyHash(this.#body)}`
    return this.#request
  }

  toJSON (): Digest {
    return { ...this, request: this.request }
  }
}

export const digestOf = (o: Observation): Digest => new LazyDigest(o)
