import { performance } from 'node:perf_hooks'
import { notFound } from '../../errors.js'
import type { Metrics } from '../../instruments/recorder.js'
import type { PartnerSnapshot } from '../records.js'
import type { Change, World } from '../world.js'
import { asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'
import type { Entry, SyncReply } from './scripts.js'
import { SPAN, traced, type Spans } from '../../instruments/spans.js'

/*
 * One partner as this replica holds it: the state of the partner's snapshot in Redis with the log's changes
 * applied up to lastSeen, in the World like any partner. Requests for the partner wait for a round: one
 * script call that appends the changes they make and brings back every change made since (by any
 * replica), which are applied in the log's order, the requests' own last. A round starts after the turn in
 * which a request arrived, never before it (a read sees every write acknowledged before it arrived); the
 * requests of one turn share a round, and those arriving during a round share the next one.
 */

interface Waiter {
  change: Change | undefined
  resolve: (value: unknown) => void
  reject: (err: Error) => void
}

/** A change as the log carries it: its name, arguments and time (the partner is the log's). */
interface Encoded { n: string, a: unknown, t: number }

const encode = (c: Change): string => JSON.stringify({ n: c.name, a: c.args, t: c.at } satisfies Encoded)

function decode (partnerId: string, text: string): Change {
  const e = JSON.parse(text) as Encoded
  return { partnerId, name: e.n, args: e.a, at: e.t }
}

export interface ReplicaHost {
  client: RedisClient
  keys: RedisKeys
  /** A request's wait for its round is a span of its trace (instruments/spans.ts). */
  spans: Spans
  /** sandbox_redis_round_wait_seconds: how long each request waited for its round. */
  metrics: Metrics
  /** After a round, the log's size against the snapshot's: the host may write a new snapshot. */
  grown: (replica: PartnerReplica, logBytes: number, snapBytes: number) => void
  /** A change of another replica that failed here too (as it did there): worth a debug line. */
  report: (message: string, err: unknown) => void
  /** The partner does not exist (any more): nothing of it is kept. */
  gone: (replica: PartnerReplica) => void
}

export class PartnerReplica {
  /** The incarnation of the partner held here ('' for none: the next round brings the snapshot). */
  inc = ''
  /** The last log entry applied here. */
  lastSeen = ''
  private waiting: Waiter[] = []
  private running = false
  private scheduled = false

  constructor (readonly partnerId: string, readonly world: World, private readonly host: ReplicaHost) {}

  /** Settles once a round that started after this call has run: with the change's result, if one is given. */
  async round (change?: Change): Promise<unknown> {
    const waiting = traced(this.host.spans.span(SPAN.storeRound, { 'sandbox.partner': this.partnerId, 'db.system.name': 'redis' }), new Promise((resolve, reject) => {
      this.waiting.push({ change, resolve, reject })
      this.schedule()
    }))
    const metrics = this.host.metrics
    if (!metrics.on) return await waiting
    const start = performance.now()
    try {
      return await waiting
    } finally {
      metrics.redisRoundWait((performance.now() - start) / 1000)
    }
  }

  private schedule (): void {
    if (this.running || this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.run()
    })
  }

  private run (): void {
    const batch = this.waiting
    this.waiting = []
    this.running = true
    const sent: string[] = []
    for (const w of batch) if (w.change !== undefined) sent.push(encode(w.change))
    const { client, keys } = this.host
    const id = this.partnerId
    client.sandboxSync(keys.head(id), keys.log(id), keys.snap(id), this.inc, this.lastSeen, ...sent).then((reply) => {
      this.running = false
      this.settle(batch, sent, reply)
    }, (err: unknown) => {
      this.running = false
      const failed = asStoreError(err)
      for (const w of batch) w.reject(failed)
    }).finally(() => {
      if (this.waiting.length > 0) this.schedule()
    })
  }

  private settle (batch: Waiter[], sent: string[], reply: SyncReply): void {
    if (reply[0] === 'gone') {
      this.forget()
      this.host.gone(this)
      for (const w of batch) w.change === undefined ? w.resolve(undefined) : w.reject(notFound('Partner', this.partnerId))
      return
    }
    let entries: Entry[]
    let ids: string[]
    if (reply[0] === 'snap') {
      const [, inc, snapAt, snapshot, after, own, logBytes, snapBytes] = reply
      this.world.adoptPartner(JSON.parse(snapshot ?? 'null') as PartnerSnapshot)
      this.inc = inc
      this.lastSeen = snapAt
      entries = after
      ids = own
      this.host.grown(this, logBytes, snapBytes)
    } else {
      const [, inc, after, own, logBytes, snapBytes] = reply
      this.inc = inc
      entries = after
      ids = own
      this.host.grown(this, logBytes, snapBytes)
    }
    for (const [entryId, fields] of entries) {
      try {
        this.world.apply(decode(this.partnerId, fields[1]))
      } catch (err) {
        this.host.report(`change ${entryId} of partner ${this.partnerId} failed here as it did where it was made`, err)
      }
      this.lastSeen = entryId
    }
    // the requests' own changes come last, in the order they were sent; each applied from the text the
    // other replicas read, so that every replica applies exactly the same change
    let k = 0
    for (const w of batch) {
      if (w.change === undefined) {
        w.resolve(undefined)
        continue
      }
      const text = sent[k]
      this.lastSeen = ids[k++]
      try {
        w.resolve(this.world.apply(decode(this.partnerId, text)))
      } catch (err) {
        w.reject(err as Error)
      }
    }
  }

  /** The partner is gone (or never was): nothing of it stays here. */
  forget (): void {
    this.world.removePartner(this.partnerId)
    this.inc = ''
    this.lastSeen = ''
  }
}
