import type { Test } from 'tap'
import { HOUR_MS, windowStart, type ActivityStore } from '../src/store/activity.js'

/*
 * The operator's activity counts (store/activity.ts) under a controlled clock: the same cases for the store of one
 * process (test/unit/activity.test.ts) and the Redis one (test/replicas/activity-store.test.ts). Times are given,
 * never read from the machine's clock.
 */

// 2026-03-02T10:30:00Z: half past an hour
const NOW = Date.UTC(2026, 2, 2, 10, 30)
const at = (hoursAgo: number, minutes = 0): number => NOW - hoursAgo * HOUR_MS + minutes * 60_000

/** Counts are taken after the turn they were given in (the Redis store sends them then): read until they are there. */
export type Settle = () => Promise<void>

/** A partner deleted as the sandbox deletes one: the store forgets it (with Redis, its keys went with it first). */
export type Remove = (partnerId: string) => Promise<void>

export async function activityCases (t: Test, store: ActivityStore, settle: Settle, partners: [string, string], remove: Remove = async (id) => { store.forget(id) }): Promise<void> {
  const [a, b] = partners
  const read = async (id: string, now = NOW) => (await store.read([id], now)).get(id)

  await t.test('a partner without requests has none, and no latest request', async (t) => {
    t.same(await read(a), { requests: 0, serverErrors: 0, lastRequestAt: null })
  })

  await t.test('the window is the current hour and the 23 before it: between 23 and 24 hours back', async (t) => {
    t.equal(windowStart(NOW), Date.UTC(2026, 2, 1, 11, 0), 'from the start of the hour 23 hours before the current one')
    store.count(a, at(0, -10), false) // 10:20, this hour
    store.count(a, at(23, -29), true) // 11:01 the day before: the oldest hour of the window
    store.count(a, at(24, 29), false) // 10:59 the day before: 23 h 31 min ago, but its hour is out
    store.count(a, at(30), true) // long out
    await settle()
    t.same(await read(a), { requests: 2, serverErrors: 1, lastRequestAt: at(0, -10) })
    t.same(await read(a, NOW + HOUR_MS), { requests: 1, serverErrors: 0, lastRequestAt: at(0, -10) }, 'an hour later, 11:01 the day before has left the window')
    t.same(await read(a, NOW + 24 * HOUR_MS), { requests: 0, serverErrors: 0, lastRequestAt: at(0, -10) }, 'a day later nothing is counted; the latest request stays')
  })

  await t.test('a later hour takes its slot over from the same hour a day before; a request filed late for a slot taken over counts only as the latest arrival', async (t) => {
    store.count(b, at(26), true) // 08:30 the day before (slot 8)
    store.count(b, at(2), false) // 08:30 today: the same slot, a day later
    await settle()
    t.same(await read(b), { requests: 1, serverErrors: 0, lastRequestAt: at(2) }, 'the day before is gone from the slot')
    store.count(b, at(26, 5), true) // 08:35 the day before, filed only now
    store.count(b, at(2, 10), true) // 08:40 today
    await settle()
    t.same(await read(b), { requests: 2, serverErrors: 1, lastRequestAt: at(2, 10) })
    t.same(await read(b, NOW + 30 * HOUR_MS), { requests: 0, serverErrors: 0, lastRequestAt: at(2, 10) })
  })

  await t.test('many partners are read at once, each its own', async (t) => {
    const both = await store.read([a, b, 'nobody'], NOW)
    t.same([...both.keys()], [a, b, 'nobody'])
    t.same(both.get(a), { requests: 2, serverErrors: 1, lastRequestAt: at(0, -10) })
    t.same(both.get('nobody'), { requests: 0, serverErrors: 0, lastRequestAt: null })
  })

  await t.test('a deleted partner has nothing', async (t) => {
    await remove(b)
    t.same(await read(b), { requests: 0, serverErrors: 0, lastRequestAt: null })
  })
}
