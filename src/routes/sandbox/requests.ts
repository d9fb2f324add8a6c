import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { SandboxError, notFound } from '../../errors.js'
import { errorResponses, ref } from '../../schemas/common.js'
import { Har, JournalCount, JournalCountRequest, JournalEntry, JournalIdParam, JournalList, JournalQuery } from '../../schemas/journal.js'
import { entryOf, summaryOf } from '../../plugins/journal.js'
import { headersToRaw } from '../../raw-headers.js'
import type { Listener } from '../../store/journal.js'
import { toHar } from './har.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'

// live tails one partner may hold open at once (each is a connection of a shared sandbox)
const MAX_TAILS = 16
const PING_MS = 15_000

const JOURNAL_NOTE = ' The journal is kept in memory (a restart forgets it), or with several replicas in Redis (one journal, whichever replica served the request), bounded by SANDBOX_JOURNAL_SIZE entries per partner; reading it never adds to it.'

/** The partner's request journal: what its code sent and what the sandbox answered. */
export default async function requestJournal (fastify: FastifyInstance, opts: { publicUrl: string, version: string }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { journals } = fastify
  const config = { partnerOnly: true, optionalBody: true, journal: false }
  const tags = ['sandbox journal']

  app.get('/requests', {
    schema: {
      tags,
      operationId: 'listRequests',
      summary: 'List the requests the partner sent',
      description: 'Newest first, filtered by method, path, route, status, Agent-Id and time.' + JOURNAL_NOTE,
      security: PARTNER_SECURITY,
      querystring: JournalQuery,
      response: { 200: ref(JournalList), ...errorResponses(400, 401) }
    },
    config
  }, async (request) => {
    const { limit, ...filter } = request.query
    const { entries, total } = await journals.find(partnerOf(request), filter, limit)
    return { requests: entries.map(summaryOf), total, journalSize: journals.maxEntries }
  })

  app.post('/requests/count', {
    schema: {
      tags,
      operationId: 'countRequests',
      summary: 'Count the requests that match',
      description: 'The filters of GET /__sandbox/requests plus bodyContains (text of the request body), e.g. to check that a test created exactly one customer. No body counts every entry.',
      security: PARTNER_SECURITY,
      body: JournalCountRequest,
      response: { 200: ref(JournalCount), ...errorResponses(400, 401, 413, 415) }
    },
    config
  }, async (request) => ({ count: (await journals.find(partnerOf(request), request.body ?? {}, 0)).total }))

  app.get('/requests.har', {
    schema: {
      tags,
      operationId: 'exportRequestsHar',
      summary: 'The journal as an HTTP Archive (HAR 1.2)',
      description: "The entries (same filters as GET /__sandbox/requests) as a HAR 1.2 document, for a browser's developer tools (Network > Import).",
      security: PARTNER_SECURITY,
      querystring: JournalQuery,
      response: { 200: ref(Har), ...errorResponses(400, 401) }
    },
    config
  }, async (request, reply) => {
    const { limit, ...filter } = request.query
    const partnerId = partnerOf(request)
    reply.header('content-disposition', `attachment; filename="${partnerId}-requests.har"`)
    return toHar((await journals.find(partnerId, filter, limit)).entries.map(entryOf), opts.publicUrl, opts.version)
  })

  app.get('/requests/stream', {
    schema: {
      tags,
      operationId: 'streamRequests',
      summary: 'Live tail of the journal (server-sent events)',
      description: `One "request" event per new entry (data: the entry's summary as in GET /__sandbox/requests, id: the entry id), a comment line every ${PING_MS / 1000} s. ` +
        `At most ${MAX_TAILS} open tails per partner (per replica with several; 403 beyond).`,
      security: PARTNER_SECURITY,
      response: { 200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: Type.String() } } }, ...errorResponses(401, 403) }
    },
    config
  }, async (request, reply) => {
    const partnerId = partnerOf(request)
    if (journals.tails(partnerId) >= MAX_TAILS) throw new SandboxError('SANDBOX_ERR_LIMIT', `At most ${MAX_TAILS} live tails per partner; close one first`)
    const raw = reply.raw
    const listener: Listener = (entry) => {
      if (entry === null) raw.end()
      else raw.write(`id: ${entry.id}\nevent: request\ndata: ${JSON.stringify(summaryOf(entry))}\n\n`)
    }
    let gone = false
    const goneMeanwhile = (): void => { gone = true }
    raw.once('close', goneMeanwhile)
    // attached before anything is sent (a 503 while Redis is out of reach); no entry reaches it before the head
    const detach = await journals.tail(partnerId, listener)
    reply.hijack()
    raw.off('close', goneMeanwhile)
    if (gone) return detach()
    headersToRaw(reply)
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' })
    raw.write('retry: 2000\n: connected\n\n')
    const ping = setInterval(() => raw.write(': ping\n\n'), PING_MS)
    raw.once('close', () => {
      clearInterval(ping)
      detach()
    })
  })

  app.get('/requests/:id', {
    schema: {
      tags,
      operationId: 'getRequest',
      summary: 'One request with its full request and response',
      description: 'By entry id, or by the X-Request-Id the response carried (the newest entry with it).',
      security: PARTNER_SECURITY,
      params: JournalIdParam,
      response: { 200: ref(JournalEntry), ...errorResponses(401, 404) }
    },
    config
  }, async (request) => {
    const entry = await journals.get(partnerOf(request), request.params.id)
    if (entry === undefined) throw notFound('Request', request.params.id)
    return entryOf(entry)
  })

  app.delete('/requests', {
    schema: {
      tags,
      operationId: 'clearRequests',
      summary: 'Empty the journal',
      description: "Removes every entry of the partner's journal.",
      security: PARTNER_SECURITY,
      response: { 204: Type.Null({ description: 'Emptied' }), ...errorResponses(401) }
    },
    config
  }, async (request, reply) => {
    await journals.clear(partnerOf(request))
    return reply.code(204).send(null)
  })
}
