import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { Partner } from './partner.js'
import { NO_METRICS, type Metrics } from '../instruments/recorder.js'
import { PartnerFile, type FileState, type StoredSnapshot } from './partner-file.js'
import { applyOps, parseLog } from './partner-log.js'
import { PARTNER_FILE_FORMAT, type AgentSnapshot, type PartnerSnapshot } from './records.js'
import type { Persistence } from './world.js'
import { NO_SPANS, SPAN, traced, type Spans } from '../instruments/spans.js'

/*
 * Durable store (SANDBOX_DATA_DIR): per partner a snapshot (a lowdb JSON file, <id>.json) and a change
 * log (<id>.<generation>.log, see partner-log.ts). A batch of writes appends its changes to the log with
 * one write and one fdatasync, and every create of the batch is answered after it; the snapshot is
 * rewritten only when the log has outgrown it. The start replays snapshot + logs. This module finds,
 * checks, replays and removes the files; partner-file.ts commits one partner's.
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
  const lists = (a: AgentSnapshot): boolean => [a?.customers, a?.accounts, a?.beneficiaries, a?.messages].every(Array.isArray)
  if (!s.agents.every(lists)) return 'an agent lacks its record lists'
  return null
}

function checkSnapshot (s: PartnerSnapshot, file: string, id: string): void {
  const problem = snapshotProblem(s, id)
  if (problem !== null) throw new DataFileError(`data file ${file} is not a sandbox partner file (${problem}); fix or remove it`)
}

const LOG_NAME = /^([a-z0-9-]+)\.(\d+)\.log$/

/** Shortens a file to its whole records, durably (a torn record must not stay in front of the next one). */
function truncateDurably (path: string, size: number): void {
  const fd = openSync(path, 'r+')
  try {
    ftruncateSync(fd, size)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** What a partner's files hold, read without changing them: the snapshot with its logs replayed. */
export async function readPartnerFiles (dir: string, id: string, generations: number[]): Promise<{
  data: PartnerSnapshot
  state: FileState
  /** older logs that the snapshot holds already (a compaction stopped before it deleted them) */
  obsolete: string[]
  torn?: { path: string, validBytes: number, size: number }
}> {
  const path = join(dir, `${id}.json`)
  const db = PartnerFile.reader(path)
  try {
    await db.read()
  } catch (err) {
    throw new DataFileError(`data file ${path} is unreadable (${(err as Error).message}); fix or remove it, or start with another SANDBOX_DATA_DIR`)
  }
  const data: StoredSnapshot = db.data
  checkSnapshot(data, path, id)
  const from = data.logFrom ?? 0
  delete data.logFrom
  const state: FileState = { generation: from, logBytes: 0, snapshotBytes: statSync(path).size, oldestLog: from }
  const live = generations.filter((g) => g >= from)
  let torn
  for (const [k, g] of live.entries()) {
    const logPath = join(dir, `${id}.${g}.log`)
    const corrupt = (offset: number, why: string): DataFileError =>
      new DataFileError(`data file ${logPath} is corrupt at byte ${offset} (${why}); fix or remove it, or start with another SANDBOX_DATA_DIR`)
    const bytes = readFileSync(logPath)
    const parsed = parseLog(bytes, id, g, corrupt)
    if (parsed.torn) {
      if (k < live.length - 1) throw corrupt(parsed.validBytes, 'a record cut short in a log that is not the newest')
      torn = { path: logPath, validBytes: parsed.validBytes, size: bytes.length }
    }
    for (const batch of parsed.batches) {
      const problem = applyOps(data, batch.ops)
      if (problem !== null) throw corrupt(batch.offset, problem)
    }
    state.generation = g
    state.logBytes = parsed.validBytes
  }
  checkSnapshot(data, path, id)
  const obsolete = generations.filter((g) => g < from).map((g) => join(dir, `${id}.${g}.log`))
  return { data, state, obsolete, torn }
}

/** The log generations of each partner in a directory's file names, in order. */
export function logGenerations (names: string[]): Map<string, number[]> {
  const logs = new Map<string, number[]>()
  for (const name of names) {
    const m = LOG_NAME.exec(name)
    if (m !== null) logs.set(m[1], [...(logs.get(m[1]) ?? []), Number(m[2])])
  }
  for (const list of logs.values()) list.sort((a, b) => a - b)
  return logs
}

// A log is compacted into a new snapshot when it is larger than the snapshot and than this (so that
// small partners do not rewrite their snapshot every few writes).
export const COMPACT_BYTES = 1 << 20
// Open log files kept at most (each partner that writes keeps one open between its batches).
const OPEN_LOGS = 256

export class FilePersistence implements Persistence {
  private readonly files = new Map<string, PartnerFile>()
  private readonly open = new Set<PartnerFile>()
  private readonly dir: string

  /**
   * `report`: what the operator must hear of (a failed background compaction); the store plugin logs it as an error.
   * `metrics`: each batch's commit is timed (sandbox_datadir_write_duration_seconds), each failed one counted.
   * `spans`: a request's wait for its batch to be on disk is a span of its trace (instruments/spans.ts).
   */
  constructor (dataDir: string, private readonly compactBytes = COMPACT_BYTES, private readonly report: (message: string) => void = () => {}, private readonly metrics: Metrics = NO_METRICS, private readonly spans: Spans = NO_SPANS) {
    this.dir = join(dataDir, 'partners')
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
  }

  private file (id: string, state: FileState = { generation: 0, logBytes: 0, snapshotBytes: 0, oldestLog: 0 }): PartnerFile {
    let f = this.files.get(id)
    if (f === undefined) this.files.set(id, f = new PartnerFile(this.dir, id, state, this.compactBytes, (file) => this.opened(file), this.report, this.metrics))
    return f
  }

  /** Keeps the most recently written logs open, closing the least recent idle one past OPEN_LOGS. */
  private opened (file: PartnerFile): void {
    this.open.delete(file)
    this.open.add(file)
    if (this.open.size <= OPEN_LOGS) return
    for (const f of this.open) {
      if (f.closeIdleLog()) {
        this.open.delete(f)
        return
      }
    }
  }

  /**
   * Every partner of the data dir: its snapshot with its logs replayed. A torn last record (a write cut
   * by a crash or power loss, never answered) is dropped and reported; anything else unreadable stops
   * the start, naming the file and the byte offset.
   */
  async loadAll (report: (message: string) => void = () => {}): Promise<PartnerSnapshot[]> {
    const names = readdirSync(this.dir)
    // a temporary file is a snapshot write that a crash interrupted before its rename: the data is intact
    for (const name of names.filter((n) => n.endsWith('.tmp'))) unlinkSync(join(this.dir, name))
    const logs = logGenerations(names)
    const out: PartnerSnapshot[] = []
    for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
      const id = name.slice(0, -5)
      out.push(await this.load(id, logs.get(id) ?? [], report))
      logs.delete(id)
    }
    // logs without a snapshot: a partner removed by a process that stopped before it deleted them
    for (const [id, generations] of logs) for (const g of generations) unlinkSync(join(this.dir, `${id}.${g}.log`))
    return out
  }

  private async load (id: string, generations: number[], report: (message: string) => void): Promise<PartnerSnapshot> {
    const found = await readPartnerFiles(this.dir, id, generations)
    for (const path of found.obsolete) unlinkSync(path)
    if (found.torn !== undefined) {
      const { path, validBytes, size } = found.torn
      truncateDurably(path, validBytes)
      report(`data file ${path}: dropped a torn last record at byte ${validBytes} (${size - validBytes} bytes; a write cut by a crash, never answered)`)
    }
    this.file(id, found.state)
    return found.data
  }

  /** The partners restored from the files: what they hold is on disk, so their next batch is a diff. */
  adopt (partners: Iterable<Partner>): void {
    for (const p of partners) this.files.get(p.id)?.adopt(p)
  }

  commit (partner: Partner): Promise<void> {
    return traced(this.spans.span(SPAN.dataDirWrite, { 'sandbox.partner': partner.id }), this.file(partner.id).commit(partner))
  }

  async remove (partnerId: string): Promise<void> {
    const f = this.files.get(partnerId)
    if (f === undefined) return
    this.files.delete(partnerId)
    this.open.delete(f)
    await f.remove()
  }

  async close (): Promise<void> {
    await Promise.all([...this.files.values()].map((f) => f.close()))
  }
}
