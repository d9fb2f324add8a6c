import { mkdirSync, readdirSync } from 'node:fs'
import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { Low, type Adapter } from 'lowdb'
import type { Partner } from './partner.js'
import { PARTNER_FILE_FORMAT, type AgentSnapshot, type PartnerSnapshot } from './records.js'
import type { Persistence } from './world.js'

/*
 * Durable store (SANDBOX_DATA_DIR): one lowdb JSON file per partner. Changes that arrive together are
 * committed together: one serialisation and one atomic rename (temporary file, fsync, rename) per
 * batch, and every create of the batch is answered after its rename. A SIGKILL at any moment leaves
 * either the previous file or the new one, never a torn one.
 */

// Records never change once stored (a change replaces the object), so each one is turned into JSON
// once, not at every batch.
const recordJson = new WeakMap<object, string>()
function json (record: object): string {
  let s = recordJson.get(record)
  if (s === undefined) {
    s = JSON.stringify(record)
    recordJson.set(record, s)
  }
  return s
}

// A record list only grows (AgentStore appends), so its JSON is also kept, as bytes: a batch encodes only
// the records added since the last one, and the file is a concatenation of buffers. Before reuse the
// cache checks that the list still starts with the very records it encoded (pointer comparisons);
// anything else (a shorter list, a replaced record) re-encodes the list.
interface ListBytes { items: object[], bytes: Buffer, used: number }
const listCache = new WeakMap<object[], ListBytes>()

function startsWith (records: object[], items: object[]): boolean {
  if (records.length < items.length) return false
  for (let i = 0; i < items.length; i++) if (records[i] !== items[i]) return false
  return true
}

/** The JSON of a list's records, comma-separated, without the brackets. */
function listBytes (records: object[]): Buffer {
  let c = listCache.get(records)
  if (c === undefined || !startsWith(records, c.items)) {
    c = { items: [], bytes: Buffer.alloc(0), used: 0 }
    listCache.set(records, c)
  }
  const from = c.items.length
  if (from < records.length) {
    const text = (from === 0 ? '' : ',') + records.slice(from).map(json).join(',')
    const size = Buffer.byteLength(text)
    if (c.used + size > c.bytes.length) {
      // geometric growth (appends stay cheap) by a quarter, so that a large list does not hold much spare room
      const grown = Buffer.allocUnsafe(c.used + size + Math.max(65536, c.used >> 2))
      c.bytes.copy(grown, 0, 0, c.used)
      c.bytes = grown
    }
    c.used += c.bytes.write(text, c.used)
    for (let i = from; i < records.length; i++) c.items.push(records[i])
  }
  return c.bytes.subarray(0, c.used)
}

const piece = (text: string): Buffer => Buffer.from(text)
const CUSTOMERS = piece(',"customers":[')
const ACCOUNTS = piece('],"accounts":[')
const BENEFICIARIES = piece('],"beneficiaries":[')
const MESSAGES = piece('],"messages":[')
const AGENT_END = piece(']}')
const COMMA = piece(',')
const END = piece(']}\n')

/**
 * The partner file's bytes in pieces (written with one writev: no copy of the whole file per batch);
 * the same JSON as JSON.stringify would give, with the agents' lists in record order.
 */
function serialisePieces (p: PartnerSnapshot): Buffer[] {
  const { agents, ...meta } = p
  const out = [piece(`${JSON.stringify(meta).slice(0, -1)},"agents":[`)]
  agents.forEach((a, i) => {
    const head = JSON.stringify({ id: a.id, name: a.name, fresh: a.fresh, like: a.like, scenario: a.scenario, seed: a.seed, seq: a.seq })
    if (i > 0) out.push(COMMA)
    out.push(piece(head.slice(0, -1)), CUSTOMERS, listBytes(a.customers), ACCOUNTS, listBytes(a.accounts),
      BENEFICIARIES, listBytes(a.beneficiaries), MESSAGES, listBytes(a.messages), AGENT_END)
  })
  out.push(END)
  return out
}

export function serialise (p: PartnerSnapshot): string {
  return Buffer.concat(serialisePieces(p)).toString('utf8')
}

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
  }
}

// How long a batch waits for more writes when writes are arriving concurrently (cf. PostgreSQL's
// commit_delay): without it, concurrent clients split into two cohorts that alternate between batches.
const GROUP_COMMIT_DELAY_MS = 2

/** One partner's file with its group commit. */
class PartnerFile {
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

export class DataFileError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'DataFileError'
  }
}

function snapshotProblem (s: PartnerSnapshot, id: string): string | null {
  if (s === null || typeof s !== 'object') return 'not a JSON object'
  if (s.format !== PARTNER_FILE_FORMAT) return `format ${String(s.format)} is not ${PARTNER_FILE_FORMAT}`
  if (s.id !== id) return `id ${String(s.id)} does not match the file name`
  if (!Array.isArray(s.agents) || !Array.isArray(s.users) || !Array.isArray(s.guarantees)) return 'agents, users or guarantees missing'
  const lists = (a: AgentSnapshot): boolean => [a.customers, a.accounts, a.beneficiaries, a.messages].every(Array.isArray)
  if (!s.agents.every(lists)) return 'an agent lacks its record lists'
  return null
}

function checkSnapshot (s: PartnerSnapshot, file: string, id: string): void {
  const problem = snapshotProblem(s, id)
  if (problem !== null) throw new DataFileError(`data file ${file} is not a sandbox partner file (${problem}); fix or remove it`)
}

export class FilePersistence implements Persistence {
  private readonly files = new Map<string, PartnerFile>()
  private readonly dir: string

  constructor (dataDir: string) {
    this.dir = join(dataDir, 'partners')
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
  }

  private file (id: string): PartnerFile {
    let f = this.files.get(id)
    if (f === undefined) this.files.set(id, f = new PartnerFile(join(this.dir, `${id}.json`)))
    return f
  }

  /** Every partner file of the data dir. An unreadable one stops the start, naming its path. */
  async loadAll (): Promise<PartnerSnapshot[]> {
    const out: PartnerSnapshot[] = []
    // a temporary file is a write that a crash interrupted before its rename: the data file is intact
    for (const name of readdirSync(this.dir).filter((n) => n.endsWith('.tmp'))) await unlink(join(this.dir, name)).catch(() => {})
    for (const name of readdirSync(this.dir).filter((n) => n.endsWith('.json')).sort()) {
      const id = name.slice(0, -5)
      const path = join(this.dir, name)
      const f = this.file(id)
      try {
        await f.db.read()
      } catch (err) {
        throw new DataFileError(`data file ${path} is unreadable (${(err as Error).message}); fix or remove it, or start with another SANDBOX_DATA_DIR`)
      }
      checkSnapshot(f.db.data, path, id)
      out.push(f.db.data)
    }
    return out
  }

  commit (partner: Partner): Promise<void> {
    return this.file(partner.id).commit(partner)
  }

  async remove (partnerId: string): Promise<void> {
    const f = this.files.get(partnerId)
    if (f !== undefined) await f.drain()
    this.files.delete(partnerId)
    await unlink(join(this.dir, `${partnerId}.json`)).catch(() => {})
  }

  async close (): Promise<void> {
    await Promise.all([...this.files.values()].map((f) => f.drain()))
  }
}
