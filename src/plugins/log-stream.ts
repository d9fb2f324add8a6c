import pino from 'pino'

const FLUSH_MS = 50
const FLUSH_BYTES = 64 * 1024

/**
 * Standard output for the JSON logs, written in batches: at most every 50 ms (or 64 KB) one write
 * carries every line since the last. A write is a system call that costs more than formatting a line
 * (measured: a write per request line cost a tenth of a request), so under load this keeps the log
 * nearly free. Lines keep their order; what is pending is written when the app closes and when the
 * process exits. A SIGKILL can lose the last 50 ms of log lines, never a data write.
 * Why not pino's own buffering (sonic-boom's minLength, sync or not): each of its writes measures the
 * whole pending buffer again (Buffer.byteLength of the string built so far), so a line costs about
 * 2-3 us of CPU against 0.3-0.4 us here (bench/log-destination.ts, 2026-11-23, Node 20).
 */
class LogBuffer {
  private lines: string[] = []
  private size = 0
  private timer: NodeJS.Timeout | undefined
  // sonic-boom in sync mode: it retries a pipe that is momentarily full (EAGAIN) where fs.writeSync throws
  private readonly sink = pino.destination({ dest: 1, sync: true })

  constructor () {
    process.on('exit', () => this.flush())
  }

  write (line: string): void {
    this.lines.push(line)
    this.size += line.length
    if (this.size >= FLUSH_BYTES) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref()
  }

  flush (): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    if (this.lines.length === 0) return
    const text = this.lines.join('')
    this.lines = []
    this.size = 0
    this.sink.write(text)
  }
}

let stdout: LogBuffer | undefined

/** The batched standard output of the process (every app of the process shares it, as they share fd 1). */
export function logDestination (): { write: (line: string) => void, flush: () => void } {
  return (stdout ??= new LogBuffer())
}
