import { mkdirSync, readdirSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { Partner } from './partner.js'
import { PartnerFile } from './partner-file.js'
import { PARTNER_FILE_FORMAT, type AgentSnapshot, type PartnerSnapshot } from './records.js'
import type { Persistence } from './world.js'

/*
 * Durable store (SANDBOX_DATA_DIR): one lowdb JSON file per partner. Changes that arrive together are
 * committed together: one serialisation and one atomic rename (temporary file, fsync, rename) per
 * batch, and every create of the batch is answered after its rename. A SIGKILL at any moment leaves
 * either the previous file or the new one, never a torn one. This module finds, checks and removes the
 * files; partner-file.ts commits one, serialise.ts makes its bytes.
 */

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
