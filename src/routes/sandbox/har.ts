import { STATUS_CODES } from '../../node-http.js'
import type { Static } from '@sinclair/typebox'
import type { Har, JournalEntry, JournalMessage } from '../../schemas/journal.js'

/*
 * The journal as an HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/): a browser's
 * developer tools open it (Network > Import HAR). Sandbox fields a HAR has no place for are custom fields
 * (_requestId, _route, _agentId, _fault, _traceId, _clientAddress), as the format allows.
 */

type NameValue = Array<{ name: string, value: string }>

const pairs = (headers: Record<string, string>): NameValue => Object.entries(headers).map(([name, value]) => ({ name, value }))

function queryOf (url: string): NameValue {
  const q = url.indexOf('?')
  return q === -1 ? [] : [...new URLSearchParams(url.slice(q + 1))].map(([name, value]) => ({ name, value }))
}

const mimeOf = (m: JournalMessage): string => m.headers['content-type'] ?? (m.body === null ? '' : 'application/octet-stream')

function harEntry (e: JournalEntry, publicUrl: string): Record<string, unknown> {
  const req = e.request
  const res = e.response
  return {
    startedDateTime: e.time,
    time: e.durationMs,
    request: {
      method: e.method,
      url: `${publicUrl}${e.url}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(req.headers),
      queryString: queryOf(e.url),
      ...(req.body === null ? {} : { postData: { mimeType: mimeOf(req), text: req.body, ...(req.bodyTruncated ? { comment: 'cut at 64 KiB' } : {}) } }),
      headersSize: -1,
      bodySize: req.bodySize
    },
    response: {
      status: e.status,
      statusText: e.status === 0 ? '' : STATUS_CODES[e.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(res.headers),
      content: {
        size: res.bodySize,
        mimeType: mimeOf(res),
        ...(res.body === null ? {} : { text: res.body }),
        ...(res.bodyTruncated ? { comment: 'cut at 64 KiB' } : {})
      },
      redirectURL: res.headers.location ?? '',
      headersSize: -1,
      bodySize: e.status === 0 ? -1 : res.bodySize,
      ...(e.status === 0 ? { comment: 'connection dropped without an answer' } : {})
    },
    cache: {},
    timings: { send: 0, wait: e.durationMs, receive: 0 },
    _id: e.id,
    _requestId: e.requestId,
    _route: e.route,
    _agentId: e.agentId,
    _fault: e.fault,
    _traceId: e.traceId,
    _clientAddress: e.clientAddress
  }
}

export function toHar (entries: JournalEntry[], publicUrl: string, version: string): Static<typeof Har> {
  return { log: { version: '1.2', creator: { name: 'Banking Agent Sandbox', version }, entries: entries.map((e) => harEntry(e, publicUrl)) } }
}
