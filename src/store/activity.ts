/*
 * What the operator's overview shows of each partner's traffic (GET /__sandbox/admin/overview, issue 45): its
 * requests and the 5xx answers the sandbox did not inject over the last 24 hours, and when its latest request
 * arrived. Counted once per request where the journal step attributes it to a partner (plugins/journal.ts, with
 * the journal on or off), in 24 hourly buckets per partner, so that reading it never scans a journal and a
 * partner's whole history costs a few numbers. Kept in this process (MemoryActivity below), or in Redis with
 * replicas (store/redis/activity.ts), so that every replica answers the same numbers.
 *
 * The window slides by whole hours (UTC, from the epoch): it is the hour now is in and the 23 before it, so it
 * reaches between 23 and 24 hours back; windowStart() says where it starts.
 */

export const HOUR_MS = 3_600_000
export const WINDOW_HOURS = 24

/** A partner's traffic as the overview shows it. */
export interface Activity {
  /** Requests that arrived in the window. */
  requests: number
  /** Of those, the answers with a 5xx status and no Sandbox-Fault-Applied header (the sandbox failed them). */
  serverErrors: number
  /** Arrival of the partner's latest request (epoch ms), whenever it was; null for none since it was made. */
  lastRequestAt: number | null
}

export const NO_ACTIVITY: Readonly<Activity> = Object.freeze({ requests: 0, serverErrors: 0, lastRequestAt: null })

export const hourOf = (at: number): number => Math.floor(at / HOUR_MS)

/** The start of the window that ends at now (epoch ms): the start of the oldest hour it counts. */
export const windowStart = (now: number): number => (hourOf(now) - WINDOW_HOURS + 1) * HOUR_MS

/** Whether a bucket of this hour is in the window of the hour now is in (a bucket of a later hour, a replica's clock ahead, counts too). */
export const inWindow = (hour: number, nowHour: number): boolean => hour > nowHour - WINDOW_HOURS

/** Where the partners' activity is kept: this process, or Redis. */
export interface ActivityStore {
  /** Counts a request (the hot path, after the answer: it never waits and never fails the request). */
  count: (partnerId: string, at: number, serverError: boolean) => void
  /** The activity of each partner named, in the window that ends at now; a partner without any gets NO_ACTIVITY. */
  read: (partnerIds: readonly string[], now: number) => Map<string, Activity> | Promise<Map<string, Activity>>
  /** A deleted partner: its counts go (with Redis its key went with it). */
  forget: (partnerId: string) => void
}

/** One partner's buckets: slot hour % 24 holds that hour's counts, until a later hour takes the slot. */
class Buckets {
  readonly hours = new Float64Array(WINDOW_HOURS).fill(-1)
  readonly requests = new Uint32Array(WINDOW_HOURS)
  readonly serverErrors = new Uint32Array(WINDOW_HOURS)
  last = -1

  add (at: number, serverError: boolean): void {
    const hour = hourOf(at)
    const slot = hour % WINDOW_HOURS
    if (at > this.last) this.last = at
    // (a request filed late, after its slot moved on to a later hour, is past the window already)
    if (this.hours[slot] > hour) return
    if (this.hours[slot] < hour) {
      this.hours[slot] = hour
      this.requests[slot] = 0
      this.serverErrors[slot] = 0
    }
    this.requests[slot] += 1
    if (serverError) this.serverErrors[slot] += 1
  }

  activity (now: number): Activity {
    const nowHour = hourOf(now)
    let requests = 0
    let serverErrors = 0
    for (let slot = 0; slot < WINDOW_HOURS; slot++) {
      if (!inWindow(this.hours[slot], nowHour)) continue
      requests += this.requests[slot]
      serverErrors += this.serverErrors[slot]
    }
    return { requests, serverErrors, lastRequestAt: this.last < 0 ? null : this.last }
  }
}

/** Kept in this process: a restart forgets it, as it forgets the journal. */
export class MemoryActivity implements ActivityStore {
  private readonly partners = new Map<string, Buckets>()

  count (partnerId: string, at: number, serverError: boolean): void {
    let buckets = this.partners.get(partnerId)
    if (buckets === undefined) this.partners.set(partnerId, buckets = new Buckets())
    buckets.add(at, serverError)
  }

  read (partnerIds: readonly string[], now: number): Map<string, Activity> {
    const out = new Map<string, Activity>()
    for (const id of partnerIds) out.set(id, this.partners.get(id)?.activity(now) ?? NO_ACTIVITY)
    return out
  }

  forget (partnerId: string): void {
    this.partners.delete(partnerId)
  }
}
