import { pathOf, pathPattern, routerTemplate } from '../path-patterns.js'
import type { JournalFilter } from '../schemas/journal.js'

/*
 * The request journals, one per partner, bounded by count (SANDBOX_JOURNAL_SIZE) and by bytes (BYTES_PER_ENTRY
 * times that), so that hundreds of partners cannot exhaust the memory of a shared sandbox; the oldest entries
 * go first, the newest always stays. Kept in this process (MemoryJournals below: a ring per partner, a restart
 * forgets it), or with replicas in Redis (store/redis/journal.ts: one stream per partner, every replica files
 * into it and reads it).
 */

/** The average an entry may take: a journal of N entries holds at most N x 4 KiB (bodies make most of it). */
export const BYTES_PER_ENTRY = 4096

/** A body as kept: its text, or for one cut at 64 KiB the cut text and the size of the whole. */
export type RecordedBody = string | null | { text: string, cutFrom: number }

export const bodyText = (b: RecordedBody): string | null => b === null || typeof b === 'string' ? b : b.text

/**
 * Headers as the hot path found them: a request's raw name, value pairs (as Node received them, the values of
 * SECRET_HEADERS already replaced), or the head of an answer as Node wrote it, whose secrets every reader
 * redacts (plugins/journal.ts).
 */
export type RecordedHead = string | string[]

export const REDACTED = '[REDACTED]'
/** Headers whose values no reader of the journal sees (lower case). */
export const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization'])

const SECRET_LINES = new RegExp(`^(${[...SECRET_HEADERS].join('|')}):[^\r\n]*`, 'gim')
// the lengths (under 32) of those names as bits: most header names are told apart by their length alone, without
// a lower-case copy of each (half of what redacting a request's head cost)
const SECRET_LENGTHS = [...SECRET_HEADERS].reduce((bits, name) => name.length < 32 ? bits | (1 << name.length) : bits, 0)
const isSecret = (name: string): boolean => (name.length >= 32 || ((SECRET_LENGTHS >>> name.length) & 1) === 1) && SECRET_HEADERS.has(name.toLowerCase())

/**
 * A head with the values of SECRET_HEADERS replaced (name, value pairs: a copy only when one is there). The
 * journal files a request's head so: a token, 1.4 KB of the 2.7 an entry of the bench's creates took, was kept
 * for no reader (and copied by every young-generation collection while its entry was among the newest 200).
 * An entry that leaves the process (kept in Redis) has its answer's head redacted too: no token or client
 * secret is written there; kept in memory, an answer's head stays as it is and readers redact it.
 */
export function headWithoutSecrets (h: RecordedHead): RecordedHead {
  if (typeof h === 'string') return h.replace(SECRET_LINES, `$1: ${REDACTED}`)
  let out: string[] | undefined
  for (let i = 0; i + 1 < h.length; i += 2) if (isSecret(h[i])) (out ??= h.slice())[i + 1] = REDACTED
  return out ?? h
}

/**
 * A request as recorded, in the cheapest form to take on the hot path: headers as received and sent, the
 * route as the router names it, the arrival as a number. plugins/journal.ts turns it into the redacted
 * Recorded every reader gets.
 */
export interface Recorded {
  /** Shown as a string; a number here is one object less to keep. */
  id: number
  requestId: string
  at: number
  method: string
  /** Path and query as sent (masked when shown). */
  url: string
  /** The route as the router writes it (/api/customers/:customerId), or a path of its own. */
  route: string | null
  agentId: string | null
  status: number
  durationMs: number
  fault: string | null
  /** The trace of the request (observe/trace-context.ts); absent in entries kept by an older version (Redis). */
  traceId?: string | null
  /** The client's address (request.ip); absent in entries kept by an older version (Redis). */
  clientAddress?: string
  requestHead: RecordedHead
  requestBody: RecordedBody
  responseHead: RecordedHead
  responseBody: RecordedBody
}

/** A live tail: called with each new entry, and with null when the sandbox stops (or its partner is deleted). */
export type Listener = (entry: Recorded | null) => void

/** Entries that match a filter, newest first, and how many match in all. */
export interface Found { entries: Recorded[], total: number }

/**
 * Where the partners' journals are kept: in this process, or in Redis for every replica. Filing is the hot
 * path (after the answer: it never waits and never fails the request); the rest is for the journal's readers,
 * whose failures (the shared store out of reach) are a SandboxError for their answer.
 */
export interface JournalStore {
  /** Most entries a partner's journal keeps; 0: the journal is off. */
  readonly maxEntries: number
  /** Files an entry (its id, given 0, is set here). */
  file: (partnerId: string, entry: Recorded) => void
  /** Entries that match, newest first, at most limit; total counts every match. */
  find: (partnerId: string, filter: JournalFilter, limit?: number) => Promise<Found>
  /** By entry id, else the newest entry with that X-Request-Id. */
  get: (partnerId: string, id: string) => Recorded | undefined | Promise<Recorded | undefined>
  clear: (partnerId: string) => void | Promise<void>
  /** A deleted partner: its journal goes, its live tails here end. */
  forget: (partnerId: string) => void
  /**
   * A live tail: the listener gets every entry filed (by any replica) from now on. Settles once it is
   * attached, with the function that detaches it; listeners are called from I/O callbacks only, never in the
   * turn that attached them (a caller writes its head first).
   */
  tail: (partnerId: string, listener: Listener) => (() => void) | Promise<() => void>
  /** Live tails of the partner open here. */
  tails: (partnerId: string) => number
  /** The sandbox stops: every live tail ends. */
  close: () => void
}

// what an entry holds besides its bodies: fields and both sets of headers, as measured on typical requests
const ENTRY_OVERHEAD = 1500

/** Roughly what an entry holds in memory: its bodies and URL (UTF-16 units counted as bytes) and a fixed part. */
function sizeOf (e: Recorded): number {
  return ENTRY_OVERHEAD + e.url.length + (bodyText(e.requestBody)?.length ?? 0) + (bodyText(e.responseBody)?.length ?? 0)
}

/** The test of a filter, compiled once for a whole scan. */
export function matcher (f: JournalFilter): (e: Recorded) => boolean {
  const method = f.method?.toUpperCase()
  const path = f.path === undefined ? undefined : pathPattern(f.path)
  const route = f.route === undefined ? undefined : routerTemplate(f.route)
  const status = f.status === undefined ? undefined : f.status.endsWith('xx') ? { min: Number(f.status[0]) * 100, max: Number(f.status[0]) * 100 + 99 } : { min: Number(f.status), max: Number(f.status) }
  const since = f.since === undefined ? -Infinity : Date.parse(f.since)
  const until = f.until === undefined ? Infinity : Date.parse(f.until)
  return (e) => {
    if (method !== undefined && e.method !== method) return false
    if (path !== undefined && !path.test(pathOf(e.url))) return false
    if (route !== undefined && e.route !== route) return false
    if (status !== undefined && (e.status < status.min || e.status > status.max)) return false
    if (f.agentId !== undefined && e.agentId !== f.agentId) return false
    if (f.traceId !== undefined && e.traceId !== f.traceId) return false
    if (e.at < since || e.at >= until) return false
    return f.bodyContains === undefined || (bodyText(e.requestBody)?.includes(f.bodyContains) ?? false)
  }
}

// How long a scan holds the event loop before it lets other requests in. Linear as the matcher is
// (path-patterns.ts), a journal at its largest (10,000 entries, or 40 MB of the longest URLs) filtered by a
// pattern with every wildcard it may have takes it a few hundred milliseconds (bench/path-patterns.ts): in
// slices, /health and every other partner are answered meanwhile.
const SLICE_MS = 4

const nextTurn = async (): Promise<void> => await new Promise((resolve) => setImmediate(resolve))

/** Entries that match, newest first, at most limit; total counts every match. The entries are the caller's: kept as they are while it yields. */
export async function select (newestFirst: readonly Recorded[], filter: JournalFilter, limit = Infinity): Promise<Found> {
  const test = matcher(filter)
  const entries: Recorded[] = []
  let total = 0
  let sliceStart = performance.now()
  for (let i = 0; i < newestFirst.length; i++) {
    // a look at the clock per entry: tens of nanoseconds beside what one of the longest URLs costs the matcher
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn()
      sliceStart = performance.now()
    }
    const e = newestFirst[i]
    if (!test(e)) continue
    total += 1
    if (entries.length < limit) entries.push(e)
  }
  return { entries, total }
}

/** By entry id, else the newest entry with that X-Request-Id. */
export function lookup (newestFirst: Iterable<Recorded>, id: string): Recorded | undefined {
  const n = /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : -1
  let byRequestId: Recorded | undefined
  for (const e of newestFirst) {
    if (e.id === n) return e
    if (byRequestId === undefined && e.requestId === id) byRequestId = e
  }
  return byRequestId
}

/** One partner's journal: oldest first in memory, read newest first. */
export class PartnerJournal {
  // a ring: slots of a fixed array, the oldest at head (no shifting of arrays on the hot path)
  private slots: Array<Recorded | undefined>
  private sizes: Float64Array
  private head = 0
  private length = 0
  private bytes = 0
  private seq = 0
  readonly listeners = new Set<Listener>()

  constructor (private readonly maxEntries: number, private readonly maxBytes: number) {
    this.slots = new Array<Recorded | undefined>(maxEntries).fill(undefined)
    this.sizes = new Float64Array(maxEntries)
  }

  nextId (): number {
    this.seq += 1
    return this.seq
  }

  /** The i-th entry from the newest (0 is the newest). */
  private at (i: number): Recorded {
    return this.slots[(this.head + this.length - 1 - i) % this.maxEntries]!
  }

  private dropOldest (): void {
    this.bytes -= this.sizes[this.head]
    this.slots[this.head] = undefined
    this.head = (this.head + 1) % this.maxEntries
    this.length -= 1
  }

  add (entry: Recorded): void {
    if (this.length === this.maxEntries) this.dropOldest()
    const slot = (this.head + this.length) % this.maxEntries
    const size = sizeOf(entry)
    this.slots[slot] = entry
    this.sizes[slot] = size
    this.length += 1
    this.bytes += size
    while (this.bytes > this.maxBytes && this.length > 1) this.dropOldest()
    for (const listener of this.listeners) listener(entry)
  }

  get count (): number { return this.length }
  get size (): number { return this.bytes }

  /** The entries, newest first. */
  * newestFirst (): Generator<Recorded> {
    for (let i = 0; i < this.length; i++) yield this.at(i)
  }

  clear (): void {
    this.slots.fill(undefined)
    this.head = 0
    this.length = 0
    this.bytes = 0
  }
}

/** Every partner's journal in this process, made on a partner's first request. */
export class MemoryJournals implements JournalStore {
  private readonly byPartner = new Map<string, PartnerJournal>()

  constructor (readonly maxEntries: number) {}

  of (partnerId: string): PartnerJournal {
    let j = this.byPartner.get(partnerId)
    if (j === undefined) this.byPartner.set(partnerId, j = new PartnerJournal(this.maxEntries, this.maxEntries * BYTES_PER_ENTRY))
    return j
  }

  file (partnerId: string, entry: Recorded): void {
    const journal = this.of(partnerId)
    entry.id = journal.nextId()
    journal.add(entry)
  }

  async find (partnerId: string, filter: JournalFilter, limit?: number): Promise<Found> {
    // a copy: the scan yields, and the ring may turn meanwhile
    return await select([...this.of(partnerId).newestFirst()], filter, limit)
  }

  get (partnerId: string, id: string): Recorded | undefined {
    return lookup(this.of(partnerId).newestFirst(), id)
  }

  clear (partnerId: string): void {
    this.of(partnerId).clear()
  }

  forget (partnerId: string): void {
    const journal = this.byPartner.get(partnerId)
    if (journal === undefined) return
    this.byPartner.delete(partnerId)
    for (const listener of journal.listeners) listener(null)
  }

  tail (partnerId: string, listener: Listener): () => void {
    const listeners = this.of(partnerId).listeners
    listeners.add(listener)
    return () => { listeners.delete(listener) }
  }

  tails (partnerId: string): number {
    return this.byPartner.get(partnerId)?.listeners.size ?? 0
  }

  close (): void {
    for (const j of this.byPartner.values()) for (const listener of j.listeners) listener(null)
  }
}
