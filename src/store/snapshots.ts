import { mkdirSync, readdirSync, statSync } from 'node:fs'
import { open, readFile, rename, rm, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { notFound, SandboxError } from '../errors.js'
import type { SnapshotInfo } from '../schemas/snapshots.js'

/*
 * Named snapshots of each partner (POST /__sandbox/snapshots): the snapshot document's JSON, kept in
 * memory, or with a data dir in files of their own, <dataDir>/snapshots/<partnerId>/<name>.json, written
 * atomically (temporary file, fdatasync, rename, directory fsync) so that a crash leaves the old or the
 * new file. They survive a restart there; the partner files do not hold them.
 */

/** Named snapshots one partner may keep. */
export const MAX_SNAPSHOTS = 20

interface Kept { info: SnapshotInfo, text?: string }

/** Where a partner's named snapshots are kept: in this process (memory or the data dir), or in Redis. */
export interface NamedSnapshotStore {
  list: (partnerId: string) => SnapshotInfo[] | Promise<SnapshotInfo[]>
  /** Saves (or replaces) a named snapshot; 403 past MAX_SNAPSHOTS. */
  save: (partnerId: string, name: string, text: string) => Promise<SnapshotInfo>
  /** The document text of a named snapshot; 404 when there is none. */
  read: (partnerId: string, name: string) => Promise<string>
  remove: (partnerId: string, name: string) => Promise<void>
  /** Every snapshot of a partner that is deleted. */
  forget: (partnerId: string) => Promise<void>
}

async function writeAtomically (dir: string, file: string, text: string): Promise<void> {
  const path = join(dir, file)
  const tmp = `${path}.${process.pid}.tmp`
  const handle = await open(tmp, 'w', 0o600)
  try {
    await handle.writeFile(text)
    await handle.datasync()
  } finally {
    await handle.close()
  }
  await rename(tmp, path)
  const d = await open(dir, 'r')
  // a rename is durable once its directory is; some systems (Windows, some file systems) cannot sync one
  await d.sync().catch(() => {}).finally(() => d.close())
}

export class NamedSnapshots implements NamedSnapshotStore {
  private readonly byPartner = new Map<string, Map<string, Kept>>()
  private readonly dir: string | undefined

  constructor (dataDir?: string) {
    this.dir = dataDir === undefined ? undefined : join(dataDir, 'snapshots')
    if (this.dir === undefined) return
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    // only names, sizes and times at start; a document is read when it is restored
    for (const entry of readdirSync(this.dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const partnerId = entry.name
      const files = readdirSync(join(this.dir, partnerId)).filter((f) => f.endsWith('.json')).sort()
      for (const f of files) {
        const st = statSync(join(this.dir, partnerId, f))
        this.of(partnerId).set(f.slice(0, -5), { info: { name: f.slice(0, -5), createdAt: st.mtime.toISOString(), bytes: st.size } })
      }
    }
  }

  private of (partnerId: string): Map<string, Kept> {
    let m = this.byPartner.get(partnerId)
    if (m === undefined) this.byPartner.set(partnerId, m = new Map())
    return m
  }

  list (partnerId: string): SnapshotInfo[] {
    return [...this.of(partnerId).values()].map((k) => k.info).sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  /** Saves (or replaces) a named snapshot. */
  async save (partnerId: string, name: string, text: string): Promise<SnapshotInfo> {
    const kept = this.of(partnerId)
    if (!kept.has(name) && kept.size >= MAX_SNAPSHOTS) {
      throw new SandboxError('SANDBOX_ERR_LIMIT', `Partner '${partnerId}' keeps ${kept.size} snapshots; the limit is ${MAX_SNAPSHOTS}. Delete one first (DELETE /__sandbox/snapshots/{name}).`)
    }
    const info = { name, createdAt: new Date().toISOString(), bytes: Buffer.byteLength(text) }
    if (this.dir !== undefined) {
      const dir = join(this.dir, partnerId)
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      await writeAtomically(dir, `${name}.json`, text)
      kept.set(name, { info })
    } else {
      kept.set(name, { info, text })
    }
    return info
  }

  /** The document text of a named snapshot; 404 when there is none. */
  async read (partnerId: string, name: string): Promise<string> {
    const k = this.of(partnerId).get(name)
    if (k === undefined) throw notFound('Snapshot', name)
    return k.text ?? await readFile(join(this.dir!, partnerId, `${name}.json`), 'utf8')
  }

  async forget (partnerId: string): Promise<void> {
    this.byPartner.delete(partnerId)
    if (this.dir !== undefined) await rm(join(this.dir, partnerId), { recursive: true, force: true })
  }

  async remove (partnerId: string, name: string): Promise<void> {
    const kept = this.of(partnerId)
    if (!kept.has(name)) throw notFound('Snapshot', name)
    kept.delete(name)
    if (this.dir !== undefined) await unlink(join(this.dir, partnerId, `${name}.json`))
  }
}
