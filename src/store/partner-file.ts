import { open, readFile, rename, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Low, type Adapter } from 'lowdb'
import type { Partner } from './partner.js'
import type { PartnerSnapshot } from './records.js'
import { serialisePieces } from './serialise.js'

/** Writes every byte of the pieces from the start of the file (a write may take fewer bytes than asked). */
async function writeAll (handle: FileHandle, pieces: Buffer[], path: string): Promise<void> {
  const rest = pieces.filter((b) => b.length > 0)
  for (let position = 0; rest.length > 0;) {
    const { bytesWritten } = await handle.writev(rest, position)
    if (bytesWritten === 0) throw new Error(`could not write ${path}`)
    position += bytesWritten
    let done = bytesWritten
    while (done > 0 && done >= rest[0].length) done -= rest.shift()!.length
    if (done > 0) rest[0] = rest[0].subarray(done)
  }
}

/**
 * fsync of a directory: a rename is on disk only once its directory is (without it a power cut could bring
 * back the previous file, answered creates missing). Windows cannot open a directory, and some file
 * systems refuse to sync one; there the rename stays as durable as the system makes it.
 */
async function syncDirectory (dir: string): Promise<void> {
  if (process.platform === 'win32') return
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } catch (err) {
    if (!['EINVAL', 'EISDIR', 'EPERM', 'ENOTSUP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err
  } finally {
    await handle.close()
  }
}

/** lowdb adapter: atomic, fsync'd writes of the cached serialisation. */
class PartnerFileAdapter implements Adapter<PartnerSnapshot> {
  constructor (readonly path: string) {}

  async read (): Promise<PartnerSnapshot | null> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw err
    }
    return JSON.parse(text) as PartnerSnapshot
  }

  async write (data: PartnerSnapshot): Promise<void> {
    const tmp = `${this.path}.${process.pid}.tmp`
    const pieces = serialisePieces(data)
    // as few trips through the thread pool as possible: under load each one waits for a turn of the
    // event loop (writeFile would take one per 512 KiB, and close need not come before the rename)
    const handle = await open(tmp, 'w', 0o600)
    try {
      await writeAll(handle, pieces, this.path)
      await handle.datasync()
    } catch (err) {
      await handle.close()
      throw err
    }
    const [closed, renamed] = await Promise.allSettled([handle.close(), rename(tmp, this.path)])
    if (renamed.status === 'rejected') throw renamed.reason
    if (closed.status === 'rejected') throw closed.reason
    await syncDirectory(dirname(this.path))
  }
}

// How long a batch waits for more writes when writes are arriving concurrently (cf. PostgreSQL's
// commit_delay): without it, concurrent clients split into two cohorts that alternate between batches.
const GROUP_COMMIT_DELAY_MS = 2

/** One partner's file with its group commit. */
export class PartnerFile {
  readonly db: Low<PartnerSnapshot>
  private waiting: Array<{ resolve: () => void, reject: (e: Error) => void }> = []
  private partner: Partner | undefined
  private scheduled = false
  private writing: Promise<void> | undefined

  constructor (path: string) {
    this.db = new Low(new PartnerFileAdapter(path), null as unknown as PartnerSnapshot)
  }

  commit (partner: Partner): Promise<void> {
    this.partner = partner
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject })
      this.schedule()
    })
  }

  private schedule (delayMs = 0): void {
    if (this.scheduled || this.writing !== undefined) return
    this.scheduled = true
    // setImmediate: every request already read in this turn of the event loop joins the batch
    const start = (): void => { setImmediate(() => { this.writing = this.flush() }) }
    if (delayMs > 0) setTimeout(start, delayMs)
    else start()
  }

  private async flush (): Promise<void> {
    this.scheduled = false
    const batch = this.waiting
    this.waiting = []
    try {
      this.db.data = this.partner!.snapshot()
      await this.db.write()
      for (const w of batch) w.resolve()
    } catch (err) {
      for (const w of batch) w.reject(err as Error)
    } finally {
      this.writing = undefined
      // writes arrived during this one: concurrent clients. The clients just answered send their next
      // writes within a moment; waiting that moment lets them join the next batch (a lone client never waits)
      if (this.waiting.length > 0) this.schedule(GROUP_COMMIT_DELAY_MS)
    }
  }

  /** Resolves once nothing is pending or being written. */
  async drain (): Promise<void> {
    while (this.writing !== undefined || this.scheduled || this.waiting.length > 0) {
      if (this.writing !== undefined) await this.writing
      else await new Promise((resolve) => setImmediate(resolve))
    }
  }
}
