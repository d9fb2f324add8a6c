import type { FastifyBaseLogger } from 'fastify'
import type { Result } from 'ioredis'
import { NO_ACTIVITY, WINDOW_HOURS, hourOf, inWindow, type Activity, type ActivityStore } from '../activity.js'
import { OutageLog, TurnBatches, asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'

/*
 * The partners' activity (store/activity.ts) in Redis, so that every replica's overview shows the same numbers:
 * per partner one hash of at most 25 fields, a field per hourly bucket (slot hour % 24: "hour:requests:serverErrors",
 * taken over by a later hour) and the latest arrival. The requests a replica answers for a partner in one turn
 * are counted in one script call at the end of the turn, on the connection and in the pipeline of the journal's
 * entries of that turn (no round trip of its own, nothing a request waits for). Counts Redis did not take (it was
 * out of reach, or full) are kept here and sent again every RETRY_MS, merged with later ones, so that the 5xx an
 * outage causes are counted once it is over; a count whose script ran but whose answer was lost with the
 * connection is counted twice.
 */

/** How often counts Redis did not take are sent again. */
const RETRY_MS = 1000

/** KEYS: the activity, the partner's head (nothing for a partner that is gone). ARGV: the latest arrival, then hour, requests, server errors per hour. */
const ADD = `
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local last = tonumber(redis.call('HGET', KEYS[1], 'last')) or -1
if tonumber(ARGV[1]) > last then redis.call('HSET', KEYS[1], 'last', ARGV[1]) end
for i = 2, #ARGV, 3 do
  local hour = tonumber(ARGV[i])
  local field = 's' .. (hour % ${WINDOW_HOURS})
  local h, r, e = -1, 0, 0
  local held = redis.call('HGET', KEYS[1], field)
  if held then
    local hh, rr, ee = string.match(held, '^(%d+):(%d+):(%d+)$')
    h, r, e = tonumber(hh), tonumber(rr), tonumber(ee)
  end
  if h < hour then r, e = 0, 0 end
  if h <= hour then redis.call('HSET', KEYS[1], field, hour .. ':' .. (r + tonumber(ARGV[i + 1])) .. ':' .. (e + tonumber(ARGV[i + 2]))) end
end
return 1
`

/** KEYS: the activity. ARGV: the hour now is in. Answers requests and server errors in the window, and the latest arrival (-1 for none). */
const READ = `
local all = redis.call('HGETALL', KEYS[1])
local now = tonumber(ARGV[1])
local r, e, last = 0, 0, -1
for i = 1, #all, 2 do
  if all[i] == 'last' then
    last = tonumber(all[i + 1])
  else
    local h, rr, ee = string.match(all[i + 1], '^(%d+):(%d+):(%d+)$')
    if tonumber(h) > now - ${WINDOW_HOURS} then
      r = r + tonumber(rr)
      e = e + tonumber(ee)
    end
  end
end
return {r, e, last}
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    sandboxActivityAdd: (activity: string, partnerHead: string, last: number, ...counts: number[]) => Result<number, Context>
    sandboxActivityRead: (activity: string, nowHour: number) => Result<[number, number, number], Context>
  }
}

/** A partner's counts on their way: the latest arrival, and per hour its requests and server errors. */
class Counts {
  last = -1
  readonly hours = new Map<number, [number, number]>()

  add (hour: number, requests: number, serverErrors: number): void {
    const c = this.hours.get(hour)
    if (c === undefined) this.hours.set(hour, [requests, serverErrors])
    else {
      c[0] += requests
      c[1] += serverErrors
    }
  }

  /** Another batch's counts added to these, but for the hours that left the window meanwhile. */
  merge (other: Counts, nowHour: number): void {
    this.last = Math.max(this.last, other.last)
    for (const [hour, [requests, serverErrors]] of other.hours) if (inWindow(hour, nowHour)) this.add(hour, requests, serverErrors)
  }

  args (): number[] {
    const out = [this.last]
    for (const [hour, [requests, serverErrors]] of this.hours) out.push(hour, requests, serverErrors)
    return out
  }
}

export class RedisActivity implements ActivityStore {
  private readonly outage: OutageLog
  private unsent = new Map<string, Counts>()
  private retry: NodeJS.Timeout | undefined

  constructor (
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    log: Pick<FastifyBaseLogger, 'error' | 'info'>
  ) {
    this.outage = new OutageLog(log, "the operator's activity counts cannot reach Redis: they are kept here and sent again until it takes them", "the operator's activity counts reach Redis again")
    client.defineCommand('sandboxActivityAdd', { numberOfKeys: 2, lua: ADD })
    client.defineCommand('sandboxActivityRead', { numberOfKeys: 1, lua: READ })
  }

  count (partnerId: string, at: number, serverError: boolean): void {
    const counts = this.batches.of(partnerId)
    counts.last = Math.max(counts.last, at)
    counts.add(hourOf(at), 1, serverError ? 1 : 0)
  }

  private readonly batches = new TurnBatches(() => new Counts(), (partnerId, counts) => this.send(partnerId, counts))

  private send (partnerId: string, counts: Counts): void {
    this.client.sandboxActivityAdd(this.keys.activity(partnerId), this.keys.head(partnerId), ...counts.args() as [number, ...number[]]).then(() => {
      this.outage.reached()
    }, (err: unknown) => {
      this.outage.failed(err)
      this.keep(partnerId, counts)
    })
  }

  /** Counts Redis did not take, sent again after RETRY_MS (with what else fails meanwhile): at most one batch per partner. */
  private keep (partnerId: string, counts: Counts): void {
    const nowHour = hourOf(Date.now())
    const kept = this.unsent.get(partnerId)
    if (kept === undefined) {
      const fresh = new Counts()
      fresh.merge(counts, nowHour)
      this.unsent.set(partnerId, fresh)
    } else {
      kept.merge(counts, nowHour)
    }
    this.retry ??= setTimeout(() => {
      this.retry = undefined
      const unsent = this.unsent
      this.unsent = new Map()
      for (const [id, c] of unsent) this.send(id, c)
    }, RETRY_MS).unref()
  }

  async read (partnerIds: readonly string[], now: number): Promise<Map<string, Activity>> {
    const nowHour = hourOf(now)
    try {
      // one script call per partner (each partner's key is in its own slot), pipelined together
      const answers = await Promise.all(partnerIds.map(async (id) => await this.client.sandboxActivityRead(this.keys.activity(id), nowHour)))
      const out = new Map<string, Activity>()
      partnerIds.forEach((id, i) => {
        const [requests, serverErrors, last] = answers[i]
        out.set(id, last < 0 ? NO_ACTIVITY : { requests, serverErrors, lastRequestAt: last })
      })
      return out
    } catch (err) {
      throw asStoreError(err)
    }
  }

  /** The partner's key went with it (RedisBackend.removePartner, keys.allOf). */
  forget (partnerId: string): void {
    this.batches.drop(partnerId)
    this.unsent.delete(partnerId)
  }
}
