import type { FastifyBaseLogger } from 'fastify'
import type { Result } from 'ioredis'
import type { JournalFilter } from '../../schemas/journal.js'
import { BYTES_PER_ENTRY, bodyText, headWithoutSecrets, lookup, select, type Found, type JournalStore, type Listener, type Recorded, type RecordedBody } from '../journal.js'
import { OutageLog, TurnBatches, asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'

/*
 * The request journals in Redis (SANDBOX_REDIS_URL): per partner one stream that every replica files into and
 * reads, so that a partner's journal holds its requests whichever replica served them.
 * - Filing: one script call per request (FILE), after the answer, auto-pipelined with the turn's other
 *   commands. It takes the next entry id from a counter beside the stream (ids stay numeric and increasing
 *   across replicas, and go on increasing after the journal is emptied), appends the entry as stream entry
 *   <id>-0, and drops the oldest while the journal holds more than SANDBOX_JOURNAL_SIZE entries or more than
 *   that many times BYTES_PER_ENTRY bytes of entry JSON (exactly, as in one process: MAXLEN ~ would keep up to
 *   a stream node more, and MAXLEN alone cannot bound bytes; XTRIM MAXLEN = costs about what XADD's own trim
 *   does). A failure costs the entry, never the request; it is logged once per outage. Secret header values
 *   are redacted before the entry leaves the replica.
 * - Reading: the whole stream, newest first (it is bounded), filtered here.
 * - Live tails: every POLL_MS, for each partner with a tail open here, one script call (TAIL) reads the entries
 *   after the last one delivered; an entry this replica filed is read at once. Single-key commands on the
 *   shared client: they run on a Redis Cluster (no multi-slot XREAD), need no connection of their own and cost
 *   nothing while nobody tails (pub/sub would cost every request a PUBLISH).
 */

/** How often a replica reads the streams of the partners tailed here: the most a tail lags another replica. */
export const POLL_MS = 100

/**
 * Files entries. KEYS: the stream, the journal's head (seq, bytes), the entries' sizes, the partner's head (no
 * journal for a partner that is gone). ARGV: most entries, most bytes, then four values per entry in order:
 * its fields as JSON, its request body, its response body (the bodies as sent, not escaped into the JSON), and
 * '' or the number (from 1) of an earlier entry of this call whose response body it has (sent once: a page
 * polled or reference data read many times in one turn). Answers the last one's id, or 0. The sizes of the
 * oldest entries come from their list, so that trimming reads no entry (reading the oldest entry and XDEL cost
 * about 1.5 times as much Redis CPU per filing).
 */
const FILE = `
if redis.call('EXISTS', KEYS[4]) == 0 then return 0 end
local head = redis.call('HMGET', KEYS[2], 'seq', 'bytes')
local id = tonumber(head[1]) or 0
local bytes = tonumber(head[2]) or 0
local count = 0
local answers = {}
for i = 3, #ARGV, 4 do
  id = id + 1
  local answer = ARGV[i + 2]
  if ARGV[i + 3] ~= '' then answer = answers[tonumber(ARGV[i + 3])] end
  answers[#answers + 1] = answer
  local size = #ARGV[i] + #ARGV[i + 1] + #answer
  bytes = bytes + size
  redis.call('XADD', KEYS[1], id .. '-0', 'e', ARGV[i], 'q', ARGV[i + 1], 'r', answer)
  count = redis.call('RPUSH', KEYS[3], size)
end
local maxEntries, maxBytes = tonumber(ARGV[1]), tonumber(ARGV[2])
local keep = count
while keep > 1 and (keep > maxEntries or bytes > maxBytes) do
  bytes = bytes - tonumber(redis.call('LPOP', KEYS[3]))
  keep = keep - 1
end
if keep < count then redis.call('XTRIM', KEYS[1], 'MAXLEN', '=', keep) end
redis.call('HSET', KEYS[2], 'seq', id, 'bytes', bytes)
return id
`

/** Entries after ARGV[1], at most ARGV[2]; nil when the partner is gone. KEYS: the stream, the partner's head. */
const TAIL = `
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
return redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])
`

/** Empties the journal; its ids go on. KEYS: the stream, the journal's head, the entries' sizes. */
const CLEAR = `
redis.call('DEL', KEYS[1], KEYS[3])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('HSET', KEYS[2], 'bytes', 0) end
return 0
`

/** A stream entry: its id ("<entry id>-0") and fields ("e", the entry's JSON). */
type StreamEntry = [string, string[]]

declare module 'ioredis' {
  interface RedisCommander<Context> {
    sandboxJournalFile: (stream: string, journalHead: string, sizes: string, partnerHead: string, maxEntries: number, maxBytes: number, ...entries: Array<Buffer | string>) => Result<number, Context>
    sandboxJournalTail: (stream: string, partnerHead: string, after: string, count: number) => Result<StreamEntry[] | null, Context>
    sandboxJournalClear: (stream: string, journalHead: string, sizes: string) => Result<number, Context>
  }
}

/** How a body is kept beside an entry's fields: 'n' none, 's' whole, or the size of the whole it was cut from. */
type BodyKind = 'n' | 's' | number

const kindOf = (b: RecordedBody): BodyKind => b === null ? 'n' : typeof b === 'string' ? 's' : b.cutFrom
const EMPTY = Buffer.alloc(0)

/** An entry as filed: its fields as JSON (the bodies' kinds in q and r), and the bodies as they are. */
/** The journal entries of one partner filed in one turn, on their way (see FILE). */
class Batch {
  readonly args: Array<Buffer | string> = []
  private count = 0
  /** The entry (from 1) that first sent each response body of the batch. */
  private readonly answers = new Map<string, number>()

  add (entry: Recorded): void {
    const { requestBody, responseBody, ...fields } = entry
    const meta = { ...fields, requestHead: headWithoutSecrets(entry.requestHead), responseHead: headWithoutSecrets(entry.responseHead), q: kindOf(requestBody), r: kindOf(responseBody) }
    const answer = bodyText(responseBody)
    const same = answer === null || answer.length < SAME_FROM ? undefined : this.answers.get(answer)
    this.count += 1
    if (answer !== null && same === undefined && answer.length >= SAME_FROM) this.answers.set(answer, this.count)
    // Buffers, not strings: the client writes them as they are (strings cost it a copy and an encoding each)
    this.args.push(Buffer.from(JSON.stringify(meta)), bufferOf(requestBody), same === undefined ? bufferOf(responseBody) : EMPTY, same === undefined ? '' : String(same))
  }
}

// response bodies shorter than this are sent again rather than looked up
const SAME_FROM = 256

function bufferOf (b: RecordedBody): Buffer {
  const t = bodyText(b)
  return t === null ? EMPTY : Buffer.from(t)
}

const bodyOf = (kind: BodyKind, text: string): RecordedBody => kind === 'n' ? null : kind === 's' ? text : { text, cutFrom: kind }

function decode ([id, fields]: StreamEntry): Recorded {
  const { q, r, ...entry } = JSON.parse(fields[1]) as Omit<Recorded, 'requestBody' | 'responseBody'> & { q: BodyKind, r: BodyKind }
  return { ...entry, id: Number(id.slice(0, id.indexOf('-'))), requestBody: bodyOf(q, fields[3]), responseBody: bodyOf(r, fields[5]) }
}

/** The live tails of one partner open on this replica. */
interface Tail {
  listeners: Set<Listener>
  /** The stream id of the last entry delivered ('' until the start is read). */
  after: string
  ready: Promise<void>
  polling: boolean
  /** Read again once the read under way is done (an entry filed here meanwhile, or a full batch). */
  again: boolean
}

export class RedisJournals implements JournalStore {
  private readonly maxBytes: number
  private readonly tailed = new Map<string, Tail>()
  private timer: NodeJS.Timeout | undefined

  private readonly outage: OutageLog

  constructor (
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    readonly maxEntries: number,
    log: Pick<FastifyBaseLogger, 'error' | 'info'>
  ) {
    this.outage = new OutageLog(log, 'the request journal cannot reach Redis: requests are not journaled, and live tails wait, until it is back', 'the request journal reaches Redis again')
    this.maxBytes = maxEntries * BYTES_PER_ENTRY
    client.defineCommand('sandboxJournalFile', { numberOfKeys: 4, lua: FILE })
    client.defineCommand('sandboxJournalTail', { numberOfKeys: 2, lua: TAIL })
    client.defineCommand('sandboxJournalClear', { numberOfKeys: 3, lua: CLEAR })
  }

  /**
   * Files an entry: the entries of a partner filed in one turn go in one script call at the end of it (a
   * command each cost more CPU here than the entries' bytes).
   */
  file (partnerId: string, entry: Recorded): void {
    this.batches.of(partnerId).add(entry)
  }

  private readonly batches = new TurnBatches(() => new Batch(), (partnerId, batch) => {
    const k = this.keys
    this.client.sandboxJournalFile(k.journal(partnerId), k.journalHead(partnerId), k.journalSizes(partnerId), k.head(partnerId), this.maxEntries, this.maxBytes, ...batch.args).then((id) => {
      this.outage.reached()
      const tail = this.tailed.get(partnerId)
      if (id > 0 && tail !== undefined) this.poll(partnerId, tail)
    }, this.outage.failed)
  })

  private async entries (partnerId: string): Promise<Recorded[]> {
    try {
      return (await this.client.xrevrange(this.keys.journal(partnerId), '+', '-', 'COUNT', this.maxEntries) as StreamEntry[]).map(decode)
    } catch (err) {
      throw asStoreError(err)
    }
  }

  async find (partnerId: string, filter: JournalFilter, limit?: number): Promise<Found> {
    return await select(await this.entries(partnerId), filter, limit)
  }

  async get (partnerId: string, id: string): Promise<Recorded | undefined> {
    return lookup(await this.entries(partnerId), id)
  }

  async clear (partnerId: string): Promise<void> {
    await this.client.sandboxJournalClear(this.keys.journal(partnerId), this.keys.journalHead(partnerId), this.keys.journalSizes(partnerId)).catch((err: unknown) => { throw asStoreError(err) })
  }

  /** The partner's keys went with it (RedisBackend.removePartner); its tails here end. */
  forget (partnerId: string): void {
    const tail = this.tailed.get(partnerId)
    if (tail !== undefined) this.end(partnerId, tail)
  }

  async tail (partnerId: string, listener: Listener): Promise<() => void> {
    let tail = this.tailed.get(partnerId)
    if (tail === undefined) {
      const started: Tail = { listeners: new Set(), after: '', ready: Promise.resolve(), polling: false, again: false }
      // the entries filed from now on: after the last id given out (the stream's newest, or one emptied since)
      started.ready = this.client.hget(this.keys.journalHead(partnerId), 'seq').then((seq) => { started.after = `${seq ?? 0}-0` })
      this.tailed.set(partnerId, tail = started)
    }
    const t = tail
    t.listeners.add(listener)
    const detach = (): void => {
      t.listeners.delete(listener)
      if (t.listeners.size === 0 && this.tailed.get(partnerId) === t) this.tailed.delete(partnerId)
      if (this.tailed.size === 0) this.stopPolling()
    }
    try {
      await t.ready
    } catch (err) {
      detach()
      throw asStoreError(err)
    }
    this.timer ??= setInterval(() => { for (const [id, each] of this.tailed) this.poll(id, each) }, POLL_MS).unref()
    return detach
  }

  tails (partnerId: string): number {
    return this.tailed.get(partnerId)?.listeners.size ?? 0
  }

  close (): void {
    this.stopPolling()
    for (const [partnerId, tail] of this.tailed) this.end(partnerId, tail)
  }

  private poll (partnerId: string, tail: Tail): void {
    if (tail.after === '') return
    if (tail.polling) {
      tail.again = true
      return
    }
    tail.polling = true
    this.client.sandboxJournalTail(this.keys.journal(partnerId), this.keys.head(partnerId), tail.after, this.maxEntries).then((entries) => {
      this.outage.reached()
      if (entries === null) return this.end(partnerId, tail)
      for (const e of entries) {
        const entry = decode(e)
        tail.after = e[0]
        for (const listener of tail.listeners) listener(entry)
      }
      if (entries.length === this.maxEntries) tail.again = true
    }, this.outage.failed).finally(() => {
      tail.polling = false
      if (!tail.again) return
      tail.again = false
      if (this.tailed.get(partnerId) === tail) this.poll(partnerId, tail)
    })
  }

  private end (partnerId: string, tail: Tail): void {
    if (this.tailed.get(partnerId) === tail) this.tailed.delete(partnerId)
    for (const listener of tail.listeners) listener(null)
    tail.listeners.clear()
    if (this.tailed.size === 0) this.stopPolling()
  }

  private stopPolling (): void {
    clearInterval(this.timer)
    this.timer = undefined
  }
}
