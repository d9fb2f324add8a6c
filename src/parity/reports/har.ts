import type { ParityReport, ShownExchange } from './model.js'

/* HAR 1.2 of everything the run sent and was answered, both sides, the walk included (already redacted). */

function pairs (h: Record<string, string> = {}): Array<{ name: string, value: string }> {
  return Object.entries(h).map(([name, value]) => ({ name, value }))
}

function entry (ex: ShownExchange): Record<string, unknown> {
  const url = new URL(ex.url)
  const ct = ex.requestHeaders['content-type']
  return {
    pageref: ex.side,
    startedDateTime: ex.started,
    time: ex.ms ?? 0,
    comment: `${ex.side} ${ex.label}${ex.failure === undefined ? '' : ` (no answer: ${ex.failure})`}`,
    request: {
      method: ex.method,
      url: ex.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(ex.requestHeaders),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(ex.requestBody === undefined ? {} : { postData: { mimeType: ct ?? '', text: ex.requestBody } }),
      headersSize: -1,
      bodySize: ex.requestBody === undefined ? 0 : Buffer.byteLength(ex.requestBody)
    },
    response: {
      status: ex.status ?? 0,
      statusText: ex.statusText ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(ex.headers),
      content: { size: ex.body === undefined ? 0 : Buffer.byteLength(ex.body), mimeType: ex.headers?.['content-type'] ?? '', text: ex.body ?? '' },
      redirectURL: ex.headers?.location ?? '',
      headersSize: -1,
      bodySize: ex.body === undefined ? -1 : Buffer.byteLength(ex.body)
    },
    cache: {},
    timings: { send: 0, wait: ex.ms ?? 0, receive: 0 }
  }
}

export function har (report: ParityReport): Record<string, unknown> {
  return {
    log: {
      version: '1.2',
      creator: { name: 'banking-sandbox parity', version: '1' },
      pages: [
        { startedDateTime: report.started, id: 'reference', title: `reference ${report.reference.url}`, pageTimings: {} },
        { startedDateTime: report.started, id: 'target', title: `target ${report.target.url}`, pageTimings: {} }
      ],
      entries: report.exchanges.map(entry)
    }
  }
}
