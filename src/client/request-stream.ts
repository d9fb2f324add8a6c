import type { JournalSummary } from './types.js'

/**
 * The live tail of a partner's journal (GET /__sandbox/requests/stream, server-sent events), open: every request
 * the partner makes from now on arrives as its summary. Iterate it with for await; leaving the loop (break,
 * return, a throw) or close() ends the connection, and nothing of it is left behind.
 */
export class RequestStream implements AsyncIterable<JournalSummary> {
  private readonly reader: ReadableStreamDefaultReader<string>
  private buffered = ''
  private closed = false

  constructor (body: ReadableStream<Uint8Array>, private readonly controller: AbortController) {
    this.reader = body.pipeThrough(new TextDecoderStream()).getReader()
  }

  /** The next event of type "request", or undefined when the stream has ended. */
  async next (): Promise<JournalSummary | undefined> {
    for (;;) {
      // events end with a blank line (text/event-stream, HTML's server-sent events)
      const end = this.buffered.indexOf('\n\n')
      if (end >= 0) {
        const block = this.buffered.slice(0, end)
        this.buffered = this.buffered.slice(end + 2)
        const event = parseEvent(block)
        if (event?.type === 'request') return JSON.parse(event.data) as JournalSummary
        continue
      }
      if (this.closed) return undefined
      const chunk = await this.reader.read().catch((err: unknown) => {
        if (this.closed) return { done: true as const, value: undefined }
        throw err
      })
      if (chunk.done) {
        this.closed = true
        return undefined
      }
      this.buffered += chunk.value.replace(/\r\n?/g, '\n')
    }
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.controller.abort()
    await this.reader.cancel().catch(() => {})
  }

  async * [Symbol.asyncIterator] (): AsyncIterator<JournalSummary> {
    try {
      for (let summary = await this.next(); summary !== undefined; summary = await this.next()) yield summary
    } finally {
      await this.close()
    }
  }
}

/** An event's type and data; undefined for a block of comments only (the sandbox's pings). */
function parseEvent (block: string): { type: string, data: string } | undefined {
  let type = 'message'
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'event') type = value
    else if (field === 'data') data.push(value)
  }
  return data.length === 0 ? undefined : { type, data: data.join('\n') }
}
