/** A body longer than this (in UTF-8 bytes) is kept cut, on a character boundary, with the size of the whole. */
export const BODY_LIMIT = 65536

/** A body as read back: its text, or for one cut at 64 KiB the cut text and the size of the whole. */
export type RecordedBody = string | null | { text: string, cutFrom: number }

export const bodyText = (b: RecordedBody): string | null => b === null || typeof b === 'string' ? b : b.text

const REQUEST_BODY_NULL = 1
const RESPONSE_BODY_NULL = 2

/**
 * The four texts of one request and its answer as the journal keeps them: packed into one buffer, one after
 * another (the request's headers, its body, the answer's head, its body). A kept entry is then one buffer
 * off the JS heap and a few numbers, where the strings and arrays it was made of (a header array of two
 * dozen strings, heads and bodies built piece by piece) were dozens of objects that every young-generation
 * collection had to copy while the entry lived. Measured on W2 (bench/ab.ts, Node 22, 2026-11-23): with
 * those objects kept, a busy sandbox at times promoted ten times as much per collection and spent twice as
 * long in them. Heads are Latin-1, as Node reads and writes them; bodies are UTF-8.
 */
export class PackedExchange {
  private constructor (
    private readonly bytes: Buffer,
    private readonly requestHeadEnd: number,
    private readonly requestBodyEnd: number,
    private readonly responseHeadEnd: number,
    private readonly nulls: number,
    private readonly requestCutFrom: number,
    private readonly responseCutFrom: number
  ) {}

  /**
   * requestHeaders: name, value pairs as Node received them (a name or value never holds a line feed: Node
   * refuses those). responseHead: the head as Node wrote it ("HTTP/1.1 200 OK\r\nname: value\r\n...").
   */
  static pack (requestHeaders: string[], requestBody: string | null, responseHead: string, responseBody: string | null): PackedExchange {
    const head = requestHeaders.join('\n')
    const requestBodyBytes = requestBody === null ? 0 : Buffer.byteLength(requestBody)
    const responseBodyBytes = responseBody === null ? 0 : Buffer.byteLength(responseBody)
    const bytes = Buffer.allocUnsafe(head.length + Math.min(requestBodyBytes, BODY_LIMIT) + responseHead.length + Math.min(responseBodyBytes, BODY_LIMIT))
    let end = bytes.write(head, 0, 'latin1')
    const requestHeadEnd = end
    // a write stops before a character that does not fit whole: a cut body ends on a character boundary
    if (requestBody !== null) end += bytes.write(requestBody, end, Math.min(BODY_LIMIT, bytes.length - end), 'utf8')
    const requestBodyEnd = end
    end += bytes.write(responseHead, end, 'latin1')
    const responseHeadEnd = end
    if (responseBody !== null) end += bytes.write(responseBody, end, Math.min(BODY_LIMIT, bytes.length - end), 'utf8')
    return new PackedExchange(
      end === bytes.length ? bytes : bytes.subarray(0, end), requestHeadEnd, requestBodyEnd, responseHeadEnd,
      (requestBody === null ? REQUEST_BODY_NULL : 0) | (responseBody === null ? RESPONSE_BODY_NULL : 0),
      requestBodyBytes > BODY_LIMIT ? requestBodyBytes : 0, responseBodyBytes > BODY_LIMIT ? responseBodyBytes : 0
    )
  }

  /** Bytes kept. */
  get size (): number { return this.bytes.length }

  /** The request's headers: name, value pairs. */
  requestHeaders (): string[] {
    return this.requestHeadEnd === 0 ? [] : this.bytes.toString('latin1', 0, this.requestHeadEnd).split('\n')
  }

  requestBody (): RecordedBody {
    return this.body(REQUEST_BODY_NULL, this.requestHeadEnd, this.requestBodyEnd, this.requestCutFrom)
  }

  /** The answer's head as written: the status line, then "name: value" lines. */
  responseHead (): string {
    return this.bytes.toString('latin1', this.requestBodyEnd, this.responseHeadEnd)
  }

  responseBody (): RecordedBody {
    return this.body(RESPONSE_BODY_NULL, this.responseHeadEnd, this.bytes.length, this.responseCutFrom)
  }

  /** Whether the request's body holds a text (read without decoding the rest). */
  requestBodyIncludes (text: string): boolean {
    return (this.nulls & REQUEST_BODY_NULL) === 0 && this.bytes.subarray(this.requestHeadEnd, this.requestBodyEnd).includes(text)
  }

  private body (nullFlag: number, start: number, end: number, cutFrom: number): RecordedBody {
    if ((this.nulls & nullFlag) !== 0) return null
    const text = this.bytes.toString('utf8', start, end)
    return cutFrom === 0 ? text : { text, cutFrom }
  }
}
