import { mkdirSync, readdirSync } from 'node:fs'
import { open, readFile, rename, unlink } from 'node:fs/promises'
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
// once; a batch then costs a join, not a fresh JSON.stringify of the whole partner.
const recordJson = new WeakMap<object, string>()
function json (record: object): string {
  let s = recordJson.get(record)
  if (s === undefined) {
    s = JSON.stringify(record)
    recordJson.set(record, s)
  }
  return s
}

function list (records: object[]): string {
  return `[${records.map(json).join(',')}]`
}

function agentText (a: AgentSnapshot): string {
  const head = JSON.stringify({ id: a.id, name: a.name, fresh: a.fresh, like: a.like, scenario: a.scenario, seed: a.seed, seq: a.seq })
  return `${head.slice(0, -1)},"customers":${list(a.customers)},"accounts":${list(a.accounts)},` +
    `"beneficiaries":${list(a.beneficiaries)},"messages":${list(a.messages)}}`
}

export function serialise (p: PartnerSnapshot): string {
  const { agents, ...meta } = p
  return `${JSON.stringify(meta).slice(0, -1)},"agents":[${agents.map(agentText).join(',')}]}\n`
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
    const handle = await open(tmp, 'w', 0o600)
    try {
      await handle.writeFile(serialise(data))
      await handle.datasync()
    } finally {
      await handle.close()
    }
    await rename(tmp, this.path)
  }
}

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

  private schedule (): void {
    if (this.scheduled || this.writing !== undefined) return
    this.scheduled = true
    // setImmediate: every request already read in this turn of the event loop joins the batch
    setImmediate(() => { this.writing = this.flush() })
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
      if (this.waiting.length > 0) this.schedule()
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
