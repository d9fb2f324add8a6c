import type { FastifyBaseLogger } from 'fastify'
import type { Result } from 'ioredis'
import { foldInto, initialStates, restart, type AdvisorStore, type Digest, type Fold, type FoldStates, type FoldWatch, type Summarise } from '../advisor.js'
import { OutageLog, TurnBatches, asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'

/*
 * The advisor's state in Redis (SANDBOX_REDIS_URL), so that a partner's findings count its requests whichever
 * replica served them. Per partner: a list of digests not yet folded, appended by the replica that served
 * each request (the digests of one turn in one script call, as the journal files its entries), and a hash with
 * the folded state (JSON) and its version. Any replica folds: it reads the state and the pending digests in one
 * script call, folds them here (the folds are plain functions, the same as in one process) and commits with a
 * compare-and-set on the version, which also drops the digests it folded from the head of the list; a replica
 * that lost the race reads again. Reading the advice folds; so does the replica whose filing finds FOLD_AT
 * digests pending, so that the list stays short while nobody reads. The digests arrive in the order replicas
 * file them, which can differ from their arrival times by the milliseconds a filing takes: the folds compare
 * times, not positions.
 */

/** Pending digests at which the replica that filed the last one folds them. */
const FOLD_AT = 256
/** Most digests kept pending (Redis unreachable by folds for long): the oldest go, and the state's version moves. */
const MAX_PENDING = 10_000
/** Digests per script call. */
const BATCH = 1000
/** Compare-and-set attempts of a clear before it gives up (503). */
const ATTEMPTS = 5

/** KEYS: digests, state, the partner's head (nothing for a partner that is gone). ARGV: most pending, digests. Answers the pending count. */
const ADD = `
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
local n = redis.call('RPUSH', KEYS[1], unpack(ARGV, 2))
local most = tonumber(ARGV[1])
if n > most then
  redis.call('LTRIM', KEYS[1], n - most, -1)
  redis.call('HINCRBY', KEYS[2], 'v', 1)
  n = most
end
return n
`

/** KEYS: state, digests. Answers the version, the state's JSON ('' for none) and the pending digests. */
const READ = `
local h = redis.call('HMGET', KEYS[1], 'v', 'state')
local out = { h[1] or '0', h[2] or '' }
for _, d in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do out[#out + 1] = d end
return out
`

/**
 * KEYS: state, digests, the partner's head. ARGV: the version read, the new state, digests folded, the new
 * state's summary. Answers 1, or 0 when another replica committed first.
 */
const COMMIT = `
if redis.call('EXISTS', KEYS[3]) == 0 then return 1 end
if (redis.call('HGET', KEYS[1], 'v') or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', tonumber(ARGV[1]) + 1, 'state', ARGV[2], 'summary', ARGV[4])
redis.call('LTRIM', KEYS[2], tonumber(ARGV[3]), -1)
return 1
`

/**
 * KEYS: state, digests. Answers the summary of the state as committed ('' for none: no state, or one committed
 * by a version without summaries), whether there is a state (1 or 0), and how many digests are pending.
 */
const SUMMARY = `
local h = redis.call('HMGET', KEYS[1], 'v', 'summary')
return { h[2] or '', h[1] and 1 or 0, redis.call('LLEN', KEYS[2]) }
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    sandboxAdvisorAdd: (digests: string, state: string, partnerHead: string, most: number, ...digest: string[]) => Result<number, Context>
    sandboxAdvisorRead: (state: string, digests: string) => Result<string[], Context>
    sandboxAdvisorCommit: (state: string, digests: string, partnerHead: string, version: string, json: string, folded: number, summary: string) => Result<number, Context>
    sandboxAdvisorSummary: (state: string, digests: string) => Result<[string, number, number], Context>
  }
}

/** A fold of the stored states and the pending digests: `json` is the stored states it started from. */
interface Folded { version: string, json: string, states: FoldStates, folded: number }

export class RedisAdvisorStore implements AdvisorStore {
  private readonly folding = new Set<string>()

  private readonly outage: OutageLog

  constructor (
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly folds: readonly Fold[],
    private readonly summarise: Summarise,
    log: Pick<FastifyBaseLogger, 'error' | 'info'>,
    private readonly watch?: FoldWatch
  ) {
    this.outage = new OutageLog(log, 'the advisor cannot reach Redis: requests are not counted in its findings until it is back', 'the advisor reaches Redis again')
    client.defineCommand('sandboxAdvisorAdd', { numberOfKeys: 3, lua: ADD })
    client.defineCommand('sandboxAdvisorRead', { numberOfKeys: 2, lua: READ })
    client.defineCommand('sandboxAdvisorCommit', { numberOfKeys: 3, lua: COMMIT })
    client.defineCommand('sandboxAdvisorSummary', { numberOfKeys: 2, lua: SUMMARY })
  }

  add (partnerId: string, digest: Digest): void {
    this.batches.of(partnerId).push(JSON.stringify(digest))
  }

  private readonly batches = new TurnBatches<string[]>(() => [], (partnerId, digests) => {
    // (a script's arguments are unpacked onto Lua's stack, which holds some 8,000: one call per BATCH)
    for (let i = 0; i < digests.length; i += BATCH) this.append(partnerId, digests.slice(i, i + BATCH))
  })

  private append (partnerId: string, digests: string[]): void {
    const k = this.keys
    this.client.sandboxAdvisorAdd(k.advisorDigests(partnerId), k.advisorState(partnerId), k.head(partnerId), MAX_PENDING, ...digests).then((n) => {
      this.outage.reached()
      if (n >= FOLD_AT && !this.folding.has(partnerId)) {
        this.folding.add(partnerId)
        this.update(partnerId, (s) => s).catch(this.outage.failed).finally(() => this.folding.delete(partnerId))
      }
    }, this.outage.failed)
  }

  /** The stored state with the pending digests folded in. */
  private async fold (partnerId: string): Promise<Folded> {
    const [version, json, ...digests] = await this.client.sandboxAdvisorRead(this.keys.advisorState(partnerId), this.keys.advisorDigests(partnerId))
    const states = json === '' ? initialStates(this.folds) : JSON.parse(json) as FoldStates
    for (const d of digests) foldInto(this.folds, states, JSON.parse(d) as Digest)
    return { version, json, states, folded: digests.length }
  }

  private async commit (partnerId: string, f: Folded): Promise<boolean> {
    const k = this.keys
    const summary = JSON.stringify(this.summarise(f.states))
    const committed = await this.client.sandboxAdvisorCommit(k.advisorState(partnerId), k.advisorDigests(partnerId), k.head(partnerId), f.version, JSON.stringify(f.states), f.folded, summary) === 1
    // once per change, whichever replica commits it: what it changed from is what it read
    if (committed && this.watch !== undefined) this.watch(partnerId, f.states, f.json === '' ? initialStates(this.folds) : JSON.parse(f.json) as FoldStates)
    return committed
  }

  /** Folds, changes and commits, again while another replica commits first. */
  private async update (partnerId: string, change: (states: FoldStates) => FoldStates): Promise<FoldStates> {
    for (let i = 0; i < ATTEMPTS; i++) {
      const f = await this.fold(partnerId)
      f.states = change(f.states)
      if (await this.commit(partnerId, f)) return f.states
    }
    throw new Error(`the advisor state of ${partnerId} kept changing under ${ATTEMPTS} attempts to commit it`)
  }

  async read (partnerId: string): Promise<FoldStates> {
    try {
      const f = await this.fold(partnerId)
      // a replica that commits first has folded at least these digests: this answer stands either way
      if (f.folded > 0) await this.commit(partnerId, f)
      return f.states
    } catch (err) {
      throw asStoreError(err)
    }
  }

  async clear (partnerId: string, names?: readonly string[]): Promise<void> {
    try {
      await this.update(partnerId, (states) => {
        restart(this.folds, states, names)
        return states
      })
    } catch (err) {
      throw asStoreError(err)
    }
  }

  /** The partner's keys went with it (RedisBackend.removePartner, keys.allOf). */
  forget (partnerId: string): void {
    this.batches.drop(partnerId)
  }

  /** The summary kept beside each state; a partner with digests pending (or a state without one) is folded first, as read() does. */
  async summaries (partnerIds: readonly string[]): Promise<Map<string, unknown>> {
    const k = this.keys
    try {
      const kept = await Promise.all(partnerIds.map(async (id) => await this.client.sandboxAdvisorSummary(k.advisorState(id), k.advisorDigests(id))))
      const out = new Map<string, unknown>()
      let none: unknown
      await Promise.all(partnerIds.map(async (id, i) => {
        const [summary, hasState, pending] = kept[i]
        if (pending === 0 && summary !== '') out.set(id, JSON.parse(summary))
        else if (pending === 0 && hasState === 0) out.set(id, none ??= this.summarise(initialStates(this.folds)))
        else out.set(id, this.summarise(await this.read(id)))
      }))
      return out
    } catch (err) {
      throw asStoreError(err)
    }
  }
}
