import type { ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { basicClient } from '../auth/clients.js'
import { REALM_PATH, ROUTES } from '../auth/realm.js'
import type { TokenVerifier } from '../auth/verify.js'
import { observationOf, type Observer } from '../advisor/observer.js'
import type { JournalEntry, JournalMessage, JournalSummary } from '../schemas/journal.js'
import { pathOf } from '../path-patterns.js'
import { REDACTED, SECRET_HEADERS, bodyText, headWithoutSecrets, type JournalStore, type Recorded, type RecordedBody, type RecordedHead } from '../store/journal.js'
import type { ActivityStore } from '../store/activity.js'
import type { World } from '../store/world.js'
import { loggableUrl } from './operations.js'
import { traceIdOf } from '../observe/trace-context.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: requests of this route never enter the journal (reading the journal, the console's pages). */
    journal?: boolean
  }
  interface FastifyInstance {
    journals: JournalStore
    /** Files a request in its partner's journal with this status (0: dropped, the connection reset by an injected fault: faults/actions.ts). */
    journalFile: (request: FastifyRequest, reply: FastifyReply, status: number) => void
  }
  interface FastifyRequest {
    /** The JSON body as it arrived (before coercion), for the journal. */
    rawBody: string | null
    /** The body of the answer as sent (captured in onSend), for the journal. */
    sentBody: unknown
    /**
     * Milliseconds from arrival to onSend, when the answer was handed over (-1: not through onSend): the
     * earliest a client could have it. The journal's durationMs runs to 'finish', which a busy event loop
     * reports later than a quick client sends its next request (seen: a token request 4 ms after a 401
     * arrived, 5 ms before that 401's finish).
     */
    answeredMs: number
    /** Not journaled: the console's own calls, or already recorded. */
    unjournaled: boolean
    /** The partner a token request is made for, when the token endpoint's fault step found it (auth/token-endpoint-faults.ts). */
    tokenPartner: string | null
  }
}

const BODY_LIMIT = 65536
const TOKEN_PATH = `${REALM_PATH}${ROUTES.token}`
const TOKEN_FIELDS = ['access_token', 'refresh_token', 'id_token']

function redact (name: string, value: string): string {
  return SECRET_HEADERS.has(name) ? REDACTED : value
}

/** Headers by lower-case name (repeated ones joined), secrets redacted: from name, value pairs or from an answer's head. */
function headersOf (h: RecordedHead): Record<string, string> {
  const out: Record<string, string> = {}
  const put = (name: string, value: string): void => { out[name] = out[name] === undefined ? redact(name, value) : `${out[name]}, ${redact(name, value)}` }
  if (typeof h !== 'string') {
    for (let i = 0; i + 1 < h.length; i += 2) put(h[i].toLowerCase(), h[i + 1])
    return out
  }
  // "HTTP/1.1 200 OK" first (not a header), then "name: value" lines
  for (const line of h.split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0) put(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim())
  }
  return out
}

/** A body as kept: cut at 64 KiB (on a character boundary) only when it can be longer. */
function keep (body: string | null): RecordedBody {
  // a UTF-16 unit is at most 3 bytes of UTF-8: a short text cannot be over the limit (no need to measure it)
  if (body === null || body.length * 3 <= BODY_LIMIT) return body
  const size = Buffer.byteLength(body)
  if (size <= BODY_LIMIT) return body
  return { text: Buffer.from(body).subarray(0, BODY_LIMIT).toString('utf8').replace(/\uFFFD$/, ''), cutFrom: size }
}

function message (headers: RecordedHead, body: RecordedBody): JournalMessage {
  const text = bodyText(body)
  const cutFrom = body !== null && typeof body === 'object' ? body.cutFrom : undefined
  return { headers: headersOf(headers), body: text, bodySize: cutFrom ?? (text === null ? 0 : Buffer.byteLength(text)), bodyTruncated: cutFrom !== undefined }
}

/**
 * A string made flat in place: V8 flattens a string to read it as a number (it is no number: NaN at its first
 * character), the pieces it was joined from become garbage, and references to it lead to the one flat copy.
 */
function flattened (text: string): string {
  // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the conversion is the point
  +text
  return text
}

/**
 * The head of the answer as sent: the text Node wrote to the socket ("HTTP/1.1 200 OK", then "name: value"
 * lines), kept as Node made it, so that filing an answer costs next to nothing: flattened, because Node joins
 * it a piece at a time, and the tree of some 40 joins and their pieces took 2.1 KB of the 2.3 an entry of the
 * bench's creates kept (heap snapshot, 2026-11-26), all of it copied by a young-generation collection while
 * the entry was among the newest 200 (W2 on Node 24, --trace-gc-nvp, two runs: 541-593 KB survived a
 * scavenge against 711-785 KB without). A connection dropped without an answer has none: the headers set so
 * far, as name, value pairs.
 */
function responseHead (reply: FastifyReply): RecordedHead {
  const sent = (reply.raw as ServerResponse & { _header?: unknown })._header
  if (typeof sent === 'string' && sent !== '') return flattened(sent)
  const out: string[] = []
  const h = reply.getHeaders()
  for (const name in h) {
    const v = h[name]
    if (v !== undefined) out.push(name, Array.isArray(v) ? v.join(', ') : String(v))
  }
  return out
}

const isTokenPath = (url: string): boolean => url.startsWith(TOKEN_PATH) && (url.length === TOKEN_PATH.length || url[TOKEN_PATH.length] === '?')

const routeTemplate = (route: string | null): string | null => route === null || !route.includes(':') ? route : route.replace(/:(\w+)/g, '{$1}')

/** What a reader of the journal sees of an entry: redacted here, for every way of reading it. */
export function summaryOf (r: Recorded): JournalSummary {
  return { id: String(r.id), requestId: r.requestId, time: new Date(r.at).toISOString(), method: r.method, url: loggableUrl(r.url), path: pathOf(r.url), route: routeTemplate(r.route), agentId: r.agentId, status: r.status, durationMs: r.durationMs, fault: r.fault, traceId: r.traceId ?? null, clientAddress: r.clientAddress ?? null }
}

export function entryOf (r: Recorded): JournalEntry {
  return { ...summaryOf(r), request: message(r.requestHead, r.requestBody), response: message(r.responseHead, r.responseBody) }
}

function text (payload: unknown): string | null {
  if (typeof payload === 'string') return payload === '' ? null : payload
  if (Buffer.isBuffer(payload)) return payload.length === 0 ? null : payload.toString('utf8')
  return null
}

/** The token endpoint's answer without its tokens (a journal is no place for credentials). */
function withoutTokens (body: string | null): string | null {
  if (body === null || !body.includes('_token')) return body
  try {
    const json = JSON.parse(body) as Record<string, unknown>
    for (const f of TOKEN_FIELDS) if (typeof json[f] === 'string') json[f] = REDACTED
    return JSON.stringify(json)
  } catch {
    return body
  }
}

/** The client of a token request: an authenticated Basic client, else the client of the token it was given. */
function tokenClient (request: FastifyRequest, body: string | null, world: World): string | undefined {
  const client = basicClient(request.headers.authorization, world)
  if (client !== undefined) return client
  const token = body === null ? undefined : /"access_token":"[^".]+\.([^".]+)\./.exec(body)?.[1]
  if (token === undefined) return undefined
  try {
    const clientId = (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { client_id?: unknown }).client_id
    return typeof clientId === 'string' && world.partner(clientId) !== undefined ? clientId : undefined
  } catch {
    return undefined
  }
}

export interface JournalOptions {
  /** Where the journals are kept: in this process, or in Redis for every replica (app.ts picks). */
  journals: JournalStore
  world: World
  verifier: () => TokenVerifier
  /** Called with every entry filed, and what the entry alone does not keep (advisor/observer.ts). */
  observers?: Observer[]
  /** Counts every request attributed to a partner, journaled or not (the journal may be off): the operator's overview. */
  activity?: ActivityStore
}

/**
 * The request journal: one onResponse step that files every request a partner can be held to (its token,
 * an expired token of its own, its client credentials at the token endpoint) in that partner's journal.
 * It keeps what it is given as cheaply as it can (the hot path pays for it); entryOf() and summaryOf()
 * above redact it for every reader, the token endpoint's tokens are dropped before they are kept.
 * The body of the answer is picked up in onSend on the way. The same step counts each of those requests in
 * its partner's activity (the operator's overview), also while the journal is off (SANDBOX_JOURNAL_SIZE=0):
 * then it files nothing and counts only.
 */
async function journalPlugin (fastify: FastifyInstance, opts: JournalOptions): Promise<void> {
  const { journals, world, verifier, activity } = opts
  const observers = opts.observers ?? []
  const journaling = journals.maxEntries > 0
  fastify.decorate('journals', journals)
  fastify.decorateRequest('rawBody', null)
  fastify.decorateRequest('sentBody', null)
  fastify.decorateRequest('answeredMs', -1)
  fastify.decorateRequest('unjournaled', false)
  fastify.decorateRequest('tokenPartner', null)
  fastify.decorateRequest('operationStatus', 0)
  if (!journaling && activity === undefined) {
    fastify.decorate('journalFile', () => {})
    return
  }

  if (journaling) {
    // the JSON body as sent: validation coerces the parsed one ("3" to 3), which is not what the client sent
    const json = fastify.getDefaultJsonParser('error', 'error')
    fastify.removeContentTypeParser('application/json')
    fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      request.rawBody = body as string
      json(request, body as string, done)
    })

    fastify.addHook('onSend', (request, reply, payload, done) => {
      request.sentBody = payload
      request.answeredMs = reply.elapsedTime
      done(null, payload)
    })
  }

  // the hot path: every field is a value or a reference the request already holds, but for the request's
  // head without its secrets (see headWithoutSecrets); nothing is formatted here (entryOf and summaryOf do
  // that for every reader, and redact the answer's head)
  // answeredAfter: for an entry filed later (once its partner is known), how long the request took when answered
  // arrivedAt: the same, when it arrived (reply.elapsedTime stops at the answer's end, so Date.now() less it
  // is the arrival only at the end: an entry filed later would seem to have arrived later)
  const record = (request: FastifyRequest, reply: FastifyReply, partnerId: string, status: number, routeUrl: string | undefined, answeredAfter?: number, arrivedAt?: number): void => {
    const fault = reply.getHeader('sandbox-fault-applied')
    const elapsed = Math.round(reply.elapsedTime * 10) / 10
    const at = arrivedAt ?? Date.now() - elapsed
    // an answer that carries Sandbox-Fault-Applied is the sandbox's on purpose: no 5xx of the sandbox's own
    activity?.count(partnerId, Math.floor(at), status >= 500 && fault === undefined)
    if (!journaling) return
    const url = request.originalUrl
    const token = isTokenPath(url)
    const duration = answeredAfter === undefined ? elapsed : Math.round(answeredAfter * 10) / 10
    const agent = request.tenant?.agentId ?? request.headers['agent-id']
    const body = request.rawBody ?? (request.body === undefined || request.body === null ? null : JSON.stringify(request.body))
    const sent = text(request.sentBody)
    const entry: Recorded = {
      // given by the store
      id: 0,
      requestId: request.id,
      at,
      method: request.method,
      url,
      route: token ? TOKEN_PATH : routeUrl === undefined || routeUrl.endsWith('*') ? null : routeUrl,
      agentId: typeof agent === 'string' ? agent.slice(0, 32) : null,
      status,
      durationMs: duration,
      fault: fault === undefined ? null : String(fault),
      traceId: traceIdOf(request),
      clientAddress: request.ip,
      requestHead: headWithoutSecrets(request.raw.rawHeaders),
      requestBody: keep(body),
      responseHead: responseHead(reply),
      responseBody: keep(token ? withoutTokens(sent) : sent)
    }
    journals.file(partnerId, entry)
    if (observers.length === 0) return
    const observation = observationOf(partnerId, entry, request, reply)
    for (const observe of observers) observe(observation)
  }

  /** Files a finished (or dropped: status 0) request under the partner it can be attributed to, if any. */
  const file = (request: FastifyRequest, reply: FastifyReply, status: number): void => {
    if (request.unjournaled) return
    // routeOptions is a new frozen object at every read: once per request
    const route = request.routeOptions
    if (route.config?.journal === false) return
    request.unjournaled = true
    const partnerId = request.token?.clientId
    if (partnerId !== undefined) return record(request, reply, partnerId, status, route.url)
    if (isTokenPath(request.originalUrl)) {
      const client = request.tokenPartner ?? tokenClient(request, text(request.sentBody), world)
      if (client !== undefined) record(request, reply, client, status, route.url)
      return
    }
    // an expired token of a partner: the request that partner most needs to see
    const bearer = status === 401 ? /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] : undefined
    if (bearer === undefined) return
    const elapsed = reply.elapsedTime
    const arrived = Date.now() - elapsed
    // the partner brought here first: with replicas, this one may not hold it yet (a registered partner after a
    // deploy), and a refused token reached no step that brings it (sync is null where it is current already)
    verifier().expiredTokenClient(bearer).then(async (client) => {
      if (client === undefined) return
      await world.sync(client)
      if (world.partner(client) !== undefined) record(request, reply, client, status, route.url, elapsed, arrived)
    }).catch(() => {})
  }
  fastify.decorate('journalFile', file)

  fastify.addHook('onResponse', (request, reply, done) => {
    file(request, reply, reply.statusCode)
    done()
  })
  // a live tail holds its connection open: a stop ends it
  fastify.addHook('preClose', async () => { journals.close() })
}

/**
 * For an answer the identity provider writes on the raw response (past onSend): the token endpoint's body
 * as sent, for the journal. Called by the provider's own step (auth/index.ts, given it by app.ts), so that
 * no other request pays for a step of its own.
 */
export function tapProviderAnswer (request: FastifyRequest, reply: FastifyReply): void {
  if (!isTokenPath(request.url)) return
  const raw = reply.raw
  const end = raw.end.bind(raw) as (...args: unknown[]) => typeof raw
  raw.end = ((...args: unknown[]) => {
    if (typeof args[0] === 'string' || Buffer.isBuffer(args[0])) request.sentBody = args[0]
    return end(...args)
  }) as typeof raw.end
}

/**
 * For a request whose connection is dropped without an answer (an injected reset or timeout fault hijacks
 * the reply and destroys the socket; onResponse never runs): files it with status 0.
 */
export default fp(journalPlugin, { name: 'sandbox-journal' })
