import pino from 'pino'

const FLUSH_MS = 50
const FLUSH_BYTES = 64 * 1024
/** Deferred lines are formatted at the latest when this many wait (or at the next flush or other write). */
const DEFER_LINES = 256

export interface LogDestination {
  write: (line: string) => void
  flush: () => void
  /** A line that `format(record)` makes, formatted only when it is written (in order with every other line). */
  defer: <T>(format: (record: T) => string, record: T) => void
}

/**
 * Standard output for the JSON logs, written in batches: at most every 50 ms (or 64 KB) one write
 * carries every line since the last. A write is a system call that costs more than formatting a line
 * (measured: a write per request line cost a tenth of a request), so under load this keeps the log
 * nearly free. Lines keep their order; what is pending is written when the app closes and when the
 * process exits. A SIGKILL can lose the last 50 ms of log lines, never a data write.
 * Each line is encoded into the batch's buffer as it comes: a line kept as a string until the write
 * (a tree of the pieces it was built from) survived the young-generation collections of those 50 ms,
 * and copying them was a visible share of a busy sandbox's garbage collection.
 * Lines that every request writes are formatted when their batch is written, not when they are given
 * (defer): formatted a few hundred at a time, in one loop, the request line cost less than formatted
 * inside each request (W2 CPU per request, fresh sandboxes in turn, 2026-11-23, Node 22: 46.9 -> 44.5 us
 * against 43.8 without the line in one series, 44.9 -> 44.0 in another). A line written in between has
 * the deferred ones written before it, so the order is always the order of the calls.
 * Why not pino's own buffering (sonic-boom's minLength, sync or not): each of its writes measures the
 * whole pending buffer again (Buffer.byteLength of the string built so far), so a line costs about
 * 2-3 us of CPU against 0.25 us here (bench/log-destination.ts, 2026-11-23, Node 20).
 */
class LogBuffer implements LogDestination {
  private readonly buffer = Buffer.allocUnsafe(FLUSH_BYTES)
  private used = 0
  /** Deferred lines, in call order: their formatter, then their record. */
  private pending: unknown[] = []
  private timer: NodeJS.Timeout | undefined
  // sonic-boom in sync mode: it retries a pipe that is momentarily full (EAGAIN) where fs.writeSync throws
  private readonly sink = pino.destination({ dest: 1, sync: true, contentMode: 'buffer' })

  constructor () {
    process.on('exit', () => this.flush())
  }

  defer<T> (format: (record: T) => string, record: T): void {
    this.pending.push(format, record)
    if (this.pending.length >= 2 * DEFER_LINES) this.formatPending()
    else this.flushSoon()
  }

  write (line: string): void {
    this.formatPending()
    this.put(line)
  }

  private formatPending (): void {
    const pending = this.pending
    if (pending.length === 0) return
    this.pending = []
    for (let i = 0; i < pending.length; i += 2) {
      let line: string
      try {
        line = (pending[i] as (record: unknown) => string)(pending[i + 1])
      } catch {
        // formatted later than it was given, possibly in a timer: a broken record must not stop the process
        line = `{"level":50,"time":${Date.now()},"msg":"a log line could not be formatted"}\n`
      }
      this.put(line)
    }
  }

  private put (line: string): void {
    // a UTF-16 unit takes at most 3 bytes of UTF-8: room for the worst case, so that no line is cut
    if (line.length * 3 > FLUSH_BYTES - this.used) {
      this.flush()
      if (line.length * 3 > FLUSH_BYTES) {
        this.sink.write(Buffer.from(line) as unknown as string)
        return
      }
    }
    this.used += this.buffer.write(line, this.used)
    this.flushSoon()
  }

  private flushSoon (): void {
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref()
  }

  flush (): void {
    this.formatPending()
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    if (this.used === 0) return
    const batch = this.buffer.subarray(0, this.used)
    this.used = 0
    // (typed for text; in buffer mode it takes bytes). The sink writes synchronously, retrying a full pipe
    // until all is out, so the next batch reuses the buffer: a new 64 KB buffer every few milliseconds under
    // load was memory outside the heap that V8 counts towards its next collections (W2 CPU per request,
    // one sandbox alternating both ways, 2026-11-24, Node 22: about 1-2 us less)
    this.sink.write(batch as unknown as string)
  }
}

let stdout: LogBuffer | undefined

/** The batched standard output of the process (every app of the process shares it, as they share fd 1). */
export function logDestination (): LogDestination {
  return (stdout ??= new LogBuffer())
}
