import { pathOf, pathPattern, routerTemplate } from '../path-patterns.js'
import type { JournalFilter } from '../schemas/journal.js'

/*
 * The request journals, one per partner, in memory only (a restart forgets them). Each is a ring bounded by
 * count (SANDBOX_JOURNAL_SIZE) and by bytes (BYTES_PER_ENTRY times that), so that hundreds of partners
 * cannot exhaust the memory of a shared sandbox; the oldest entries go first, the newest always stays.
 */

/** The average an entry may take: a journal of N entries holds at most N x 4 KiB (bodies make most of it). */
export const BYTES_PER_ENTRY = 4096

/** A body as kept: its text, or for one cut at 64 KiB the cut text and the size of the whole. */
export type RecordedBody = string | null | { text: string, cutFrom: number }

export const bodyText = (b: RecordedBody): string | null => b === null || typeof b === 'string' ? b : b.text

/**
 * Headers as the hot path found them: a request's raw name, value pairs (as Node received them), or the head
 * of an answer as Node wrote it. Secrets in them are redacted by every reader (plugins/journal.ts).
 */
export type RecordedHead = string | string[]

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
  requestHead: RecordedHead
  requestBody: RecordedBody
  responseHead: RecordedHead
  responseBody: RecordedBody
}

/** A live tail: called with each new entry, and with null when the sandbox stops. */
export type Listener = (entry: Recorded | null) => void

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
    if (e.at < since || e.at >= until) return false
    return f.bodyContains === undefined || (bodyText(e.requestBody)?.includes(f.bodyContains) ?? false)
  }
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

  /** Entries that match, newest first, at most limit; total counts every match. */
  find (filter: JournalFilter, limit = Infinity): { entries: Recorded[], total: number } {
    const test = matcher(filter)
    const out: Recorded[] = []
    let total = 0
    for (let i = 0; i < this.length; i++) {
      const e = this.at(i)
      if (!test(e)) continue
      total += 1
      if (out.length < limit) out.push(e)
    }
    return { entries: out, total }
  }

  /** By entry id, else the newest entry with that X-Request-Id. */
  get (id: string): Recorded | undefined {
    const n = /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : -1
    for (let i = 0; i < this.length; i++) if (this.at(i).id === n) return this.at(i)
    for (let i = 0; i < this.length; i++) if (this.at(i).requestId === id) return this.at(i)
    return undefined
  }

  clear (): void {
    this.slots.fill(undefined)
    this.head = 0
    this.length = 0
    this.bytes = 0
  }
}

/** Every partner's journal, made on a partner's first request. */
export class Journals {
  private readonly byPartner = new Map<string, PartnerJournal>()

  constructor (readonly maxEntries: number) {}

  get enabled (): boolean { return this.maxEntries > 0 }

  of (partnerId: string): PartnerJournal {
    let j = this.byPartner.get(partnerId)
    if (j === undefined) this.byPartner.set(partnerId, j = new PartnerJournal(this.maxEntries, this.maxEntries * BYTES_PER_ENTRY))
    return j
  }

  /** Every live tail of every partner (a stop ends them). */
  * listeners (): Iterable<Listener> {
    for (const j of this.byPartner.values()) yield * j.listeners
  }
}
