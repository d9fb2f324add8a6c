import { readFileSync } from 'node:fs'
import { open, unlink, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Low, type Adapter } from 'lowdb'
import type { Partner } from './partner.js'
import type { Metrics } from '../instruments/recorder.js'
import { encodeRecord, logHeader } from './partner-log.js'
import { diff, freeze, viewOf, type FrozenPartner, type PartnerView } from './partner-view.js'
import type { PartnerSnapshot } from './records.js'
import { syncDirectory, writeAll, writeSnapshot } from './serialise.js'

/** A snapshot file as stored: the partner's data and the first log generation it does not hold. */
export type StoredSnapshot = PartnerSnapshot & { logFrom?: number }

function frozenOf (s: StoredSnapshot): FrozenPartner {
  const { agents, logFrom: _logFrom, ...meta } = s
  return {
    metaJson: JSON.stringify(meta),
    agents: agents.map(({ customers, accounts, beneficiaries, messages, ...head }) => ({ headJson: JSON.stringify(head), lists: { customers, accounts, beneficiaries, messages } }))
  }
}

/** lowdb adapter of a partner's snapshot file (written atomically, a piece at a time). */
export class SnapshotAdapter implements Adapter<StoredSnapshot> {
  constructor (readonly path: string) {}

  // read at start only, before anything is served: a synchronous read spares each of thousands of
  // partners its trips through the thread pool
  async read (): Promise<StoredSnapshot | null> {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw err
    }
    return JSON.parse(text) as StoredSnapshot
  }

  async write (data: StoredSnapshot): Promise<void> {
    await writeSnapshot(this.path, frozenOf(data), data.logFrom ?? 0)
  }
}

/** Where a partner's files stand after the start's replay. */
export interface FileState {
  /** the log generation that batches append to */
  generation: number
  /** its size (0: not created yet) */
  logBytes: number
  snapshotBytes: number
  /** the oldest log generation that may still be on disk */
  oldestLog: number
}

// How long a batch waits for more writes when writes are arriving concurrently (cf. PostgreSQL's
// commit_delay): without it, concurrent clients split into two cohorts that alternate between batches.
// 1 ms: W2 with a data dir at 50 connections made 17,700 creates/s against 15,800 with 2 ms and with none
// (bench/ab.ts, Node 22, 2026-11-23, two sandboxes each)
const GROUP_COMMIT_DELAY_MS = 1

/**
 * One partner's snapshot and log with its group commit. A batch appends what changed since the last
 * one to the log (one write, one fdatasync); once the log outgrows the snapshot (and compactBytes), a
 * new snapshot is written in the background while batches go on into the next log generation.
 */
export class PartnerFile {
  private view: PartnerView | undefined
  private handle: FileHandle | undefined
  private waiting: Array<{ resolve: () => void, reject: (e: Error) => void }> = []
  private partner: Partner | undefined
  private scheduled = false
  private writing: Promise<void> | undefined
  private compaction: Promise<void> | undefined

  constructor (
    readonly dir: string,
    readonly id: string,
    private state: FileState,
    private readonly compactBytes: number,
    private readonly opened: (file: PartnerFile) => void,
    private readonly report: (message: string) => void,
    private readonly metrics: Pick<Metrics, 'on' | 'dataDirWrite' | 'dataDirWriteFailed'>
  ) {}

  get snapshotPath (): string {
    return join(this.dir, `${this.id}.json`)
  }

  logPath (generation: number): string {
    return join(this.dir, `${this.id}.${generation}.log`)
  }

  /** The partner restored from these files: what it holds is on disk already. */
  adopt (partner: Partner): void {
    this.view = viewOf(partner)
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
    const start = (): void => {
      setImmediate(() => {
        const writing = this.flush()
        this.writing = writing
        // (a batch with nothing to write finishes without waiting: this runs after it in every case)
        writing.finally(() => {
          this.writing = undefined
          this.next()
        })
      })
    }
    if (delayMs > 0) setTimeout(start, delayMs)
    else start()
  }

  private async flush (): Promise<void> {
    this.scheduled = false
    const batch = this.waiting
    this.waiting = []
    const start = this.metrics.on ? performance.now() : 0
    try {
      const partner = this.partner!
      let wrote = true
      if (this.view === undefined || this.view.partner !== partner) {
        // a partner new or replaced as a whole: its snapshot is the change
        await this.compaction
        this.view = viewOf(partner)
        await this.snapshot(freeze(this.view))
      } else {
        const ops = diff(this.view)
        wrote = ops.length > 0
        if (wrote) await this.append(JSON.stringify(ops))
      }
      if (wrote && this.metrics.on) this.metrics.dataDirWrite((performance.now() - start) / 1000)
      for (const w of batch) w.resolve()
    } catch (err) {
      // what reached the disk is unknown: the next batch writes a whole snapshot
      this.view = undefined
      this.closeLog()
      this.metrics.dataDirWriteFailed()
      for (const w of batch) w.reject(err as Error)
    }
  }

  private next (): void {
    if (this.compaction === undefined && this.view !== undefined &&
      this.state.logBytes > Math.max(this.compactBytes, this.state.snapshotBytes)) this.compact()
    // writes arrived during this one: concurrent clients. The clients just answered send their next
    // writes within a moment; waiting that moment lets them join the next batch (a lone client never waits)
    if (this.waiting.length > 0) this.schedule(GROUP_COMMIT_DELAY_MS)
  }

  private async append (json: string): Promise<void> {
    const { generation, logBytes } = this.state
    const record = encodeRecord(json)
    const bytes = logBytes === 0 ? Buffer.concat([encodeRecord(logHeader(this.id, generation)), record]) : record
    this.handle ??= await open(this.logPath(generation), 'a', 0o600)
    this.opened(this)
    await writeAll(this.handle, bytes, logBytes, this.logPath(generation))
    await this.handle.datasync()
    // a new file is on disk once its directory is
    if (logBytes === 0) await syncDirectory(this.dir)
    this.state.logBytes += bytes.length
  }

  /** The committed data as a new snapshot; later batches go to the next log generation. */
  private async snapshot (frozen: FrozenPartner): Promise<void> {
    this.closeLog()
    const from = this.state.generation + 1
    this.state.generation = from
    this.state.logBytes = 0
    this.state.snapshotBytes = await writeSnapshot(this.snapshotPath, frozen, from)
    // the snapshot holds the older logs now; a crash before this line leaves them, and the start deletes them
    for (let g = this.state.oldestLog; g < from; g++) await unlink(this.logPath(g)).catch(() => {})
    this.state.oldestLog = from
  }

  /**
   * Compaction, off the request path: the batches go on meanwhile. A failure (a full disk) loses nothing:
   * the old snapshot and every log stay and are replayed at the next start; it is reported to the operator
   * and tried again once the current log has grown past the threshold in its turn.
   */
  private compact (): void {
    this.compaction = this.snapshot(freeze(this.view!))
      .catch((err: Error) => this.report(`compaction of partner ${this.id} failed, its snapshot and logs stay as they were and it is tried again later: ${err.message}`))
      .finally(() => { this.compaction = undefined })
  }

  /** Closes the log's file handle unless a batch is using it (the persistence keeps few open). */
  closeIdleLog (): boolean {
    if (this.writing !== undefined || this.handle === undefined) return false
    this.closeLog()
    return true
  }

  private closeLog (): void {
    const handle = this.handle
    this.handle = undefined
    handle?.close().catch(() => {})
  }

  /** Resolves once nothing is pending or being written. */
  async drain (): Promise<void> {
    while (this.writing !== undefined || this.scheduled || this.waiting.length > 0 || this.compaction !== undefined) {
      if (this.writing !== undefined) await this.writing
      else if (this.compaction !== undefined) await this.compaction
      else await new Promise((resolve) => setImmediate(resolve))
    }
  }

  async close (): Promise<void> {
    await this.drain()
    this.closeLog()
  }

  /** Removes the partner's files (after draining). */
  async remove (): Promise<void> {
    await this.close()
    // the snapshot first: a crash in between leaves logs without a snapshot, which the start deletes
    await unlink(this.snapshotPath).catch(() => {})
    for (let g = this.state.oldestLog; g <= this.state.generation; g++) await unlink(this.logPath(g)).catch(() => {})
  }

  /** lowdb's view of the snapshot file (for reading it at start). */
  static reader (path: string): Low<StoredSnapshot> {
    return new Low(new SnapshotAdapter(path), null as unknown as StoredSnapshot)
  }
}
