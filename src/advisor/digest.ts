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

/*
 * The page a 2xx GET answered, from the answer's page object (spec 2.1). The sandbox writes it first,
 * {"page":{"page":0,...,"last":false},"sortResponses":[],"customers":[...]}, so it is read there at the cost of
 * one comparison, and an answer the journal cut at 64 KiB still has it. Were it written elsewhere (the spec's
 * example has it after the items), it is still a member of the envelope's top level, whose one long member is
 * the items' array: before that array (in the first KiB) or after it (in the last KiB). Only those are looked
 * in, never the whole of a long answer: this runs for every GET the journal files.
 * The key cannot be met inside a value: JSON escapes every quote of a string (a reference that quotes a page
 * object holds \"page\":{\"page\":), and its first quote cannot be one that closes a string, which only , : ] or
 * } may follow. No record the API answers has a member named page.
 * The list is the URL without its page.
 */
const PAGE_KEY = '"page":{"page":'
const PAGE_WINDOW = 1024
// sticky: read where the key was found, without a copy of the text; the page object holds no object
const PAGE_INFO = /"page":\{"page":(\d+)[^{}]*"last":(true|false)/y

function pageAt (answer: string): number {
  if (answer.startsWith(PAGE_KEY, 1)) return 1
  // lastIndexOf from PAGE_WINDOW looks in the head only
  const head = answer.lastIndexOf(PAGE_KEY, PAGE_WINDOW)
  return head >= 0 ? head : answer.indexOf(PAGE_KEY, Math.max(PAGE_WINDOW, answer.length - PAGE_WINDOW))
}

function pageOf (method: string, status: number, url: string, answer: string | null): Digest['page'] {
  if (method !== 'GET' || status < 200 || status > 299 || answer === null) return null
  const at = pageAt(answer)
  if (at < 0) return null
  PAGE_INFO.lastIndex = at
  const info = PAGE_INFO.exec(answer)
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
