import { Type, type Static } from '@sinclair/typebox'
import { PATTERN_RULES } from '../path-patterns.js'
import { PathPatternString, ref } from './common.js'

/* The request journal (GET /__sandbox/requests ...): what a partner's code sent and what the sandbox answered. */

const Message = Type.Object({
  headers: Type.Record(Type.String(), Type.String(), { description: 'Header names in lower case; Authorization, Cookie and Set-Cookie values are "[REDACTED]"' }),
  body: Type.Union([Type.String(), Type.Null()], { description: 'The body as text, cut at 64 KiB; null when there was none (or it was not captured)' }),
  bodySize: Type.Integer({ description: 'Size of the whole body in bytes' }),
  bodyTruncated: Type.Boolean({ description: 'The body was longer than 64 KiB and is cut' })
}, { $id: 'SandboxJournalMessage', title: 'SandboxJournalMessage' })
export type JournalMessage = Static<typeof Message>

const summaryFields = {
  id: Type.String({ description: 'Id of the entry in the journal (GET /__sandbox/requests/{id})' }),
  requestId: Type.String({ description: 'The X-Request-Id the response carried' }),
  time: Type.String({ format: 'date-time', description: 'When the request arrived' }),
  method: Type.String(),
  url: Type.String({ description: 'Path and query as sent (token-like query parameters redacted)' }),
  path: Type.String({ description: 'Path without the query' }),
  route: Type.Union([Type.String(), Type.Null()], { description: 'The route template as the API documents write it, e.g. /api/customers/{customerId}' }),
  agentId: Type.Union([Type.String(), Type.Null()], { description: 'The Agent-Id header' }),
  status: Type.Integer({ description: 'Status of the answer; 0 when the connection was dropped without one (an injected reset or timeout fault)' }),
  durationMs: Type.Number({ description: 'Milliseconds from arrival to the last byte of the answer' }),
  fault: Type.Union([Type.String(), Type.Null()], { description: 'The Sandbox-Fault-Applied header of the answer: the injected fault, if any' }),
  traceId: Type.Union([Type.String({ pattern: '^[0-9a-f]{32}$' }), Type.Null()], { description: "The W3C trace id of the request: its traceparent header's (whether the sandbox traces or not), else, when the sandbox exports traces, the trace of its own span for the request; null when there is none" }),
  clientAddress: Type.Union([Type.String(), Type.Null()], { description: "The address the request came from: the client's own behind a load balancer the sandbox trusts (SANDBOX_TRUST_PROXY), else the connection's; null in entries kept by an older version" })
}

export const JournalSummary = Type.Object(summaryFields, { $id: 'SandboxJournalSummary', title: 'SandboxJournalSummary' })
export type JournalSummary = Static<typeof JournalSummary>

export const JournalEntry = Type.Object({
  ...summaryFields,
  request: ref(Message),
  response: ref(Message)
}, { $id: 'SandboxJournalEntry', title: 'SandboxJournalEntry' })
export type JournalEntry = Static<typeof JournalEntry>

export const JournalList = Type.Object({
  requests: Type.Array(ref(JournalSummary), { description: 'Newest first' }),
  total: Type.Integer({ description: 'Entries of the journal that match the filters (before the limit)' }),
  journalSize: Type.Integer({ description: 'Most entries the journal keeps (SANDBOX_JOURNAL_SIZE); 0 means the journal is off' })
}, { $id: 'SandboxJournalList', title: 'SandboxJournalList' })

const filterFields = {
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,16}$', examples: ['POST'], description: 'HTTP method, any case' })),
  path: Type.Optional(PathPatternString({ examples: ['/api/customers/**'], description: `Request path: exact, or with * for any characters within a segment and ** for any characters (${PATTERN_RULES})` })),
  route: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, pattern: '^/', examples: ['/api/customers/{customerId}/messages'], description: 'Route template, e.g. /api/customers/{customerId}/messages' })),
  status: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$|^[1-5]xx$', examples: ['4xx'], description: 'A status (201) or a class (4xx)' })),
  agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 32, examples: ['1001'], description: 'The Agent-Id of the request' })),
  traceId: Type.Optional(Type.String({ pattern: '^[0-9a-f]{32}$', examples: ['4bf92f3577b34da6a3ce929d0e0e4736'], description: 'The W3C trace id of the request (32 lower-case hex digits): find the requests of one of your traces' })),
  since: Type.Optional(Type.String({ format: 'date-time', examples: ['2026-11-23T08:00:00Z'], description: 'Only requests that arrived at or after this time' })),
  until: Type.Optional(Type.String({ format: 'date-time', examples: ['2026-11-23T18:00:00Z'], description: 'Only requests that arrived before this time' }))
}

export const JournalQuery = Type.Object({
  ...filterFields,
  limit: Type.Integer({ minimum: 1, maximum: 10000, default: 100, description: 'Most entries to return' })
}, { additionalProperties: false })
export type JournalQuery = Static<typeof JournalQuery>

export const JournalCountRequest = Type.Object({
  ...filterFields,
  bodyContains: Type.Optional(Type.String({ minLength: 1, maxLength: 65536, examples: ['HELLO'], description: 'Only requests whose request body contains this text' }))
}, { $id: 'SandboxJournalCountRequest', title: 'SandboxJournalCountRequest', additionalProperties: false })
export type JournalFilter = Static<typeof JournalCountRequest>

export const JournalCount = Type.Object({ count: Type.Integer() }, { $id: 'SandboxJournalCount', title: 'SandboxJournalCount' })

export const JournalIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128, examples: ['1'], description: 'The entry id, or an X-Request-Id (the newest entry with it)' }) })

/** An HTTP Archive 1.2 document (routes/sandbox/har.ts writes it); entries are described by the HAR spec, not here. */
export const Har = Type.Object({
  log: Type.Object({
    version: Type.Literal('1.2'),
    creator: Type.Object({ name: Type.String(), version: Type.String() }),
    entries: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'HAR 1.2 entries, newest first' })
  })
}, { $id: 'SandboxHar', title: 'SandboxHar', description: 'An HTTP Archive 1.2 document' })

export const JOURNAL_SCHEMAS = [Message, JournalSummary, JournalEntry, JournalList, JournalCountRequest, JournalCount, Har]
