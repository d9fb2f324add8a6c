import t from 'tap'
import type { Test } from 'tap'
import { RedisActivity } from '../../src/store/redis/activity.js'
import { redisClient } from '../../src/store/redis/connection.js'
import { RedisKeys } from '../../src/store/redis/keys.js'
import { activityCases } from '../activity-cases.js'
import { replicaSkip, startRedis } from './harness.js'

/*
 * The operator's activity counts in Redis (store/redis/activity.ts) under a controlled clock, the same cases as the
 * store of one process (test/activity-cases.ts); and counts Redis refused (full: maxmemory) sent again once it takes
 * them, so that an outage's 5xx are not lost from the overview.
 */

const skip = replicaSkip()
const quiet = { error: () => {}, info: () => {} }

async function connected (t: Test, url: string): Promise<Awaited<ReturnType<typeof redisClient>>> {
  const client = await redisClient({ url, cluster: false, commandTimeout: 2000 })
  client.on('error', () => {})
  await client.connect()
  t.teardown(() => client.disconnect())
  return client
}

t.test('the activity in Redis', { skip }, async (t) => {
  const redis = await startRedis(t)
  const client = await connected(t, redis.url)
  const keys = new RedisKeys('sbx')
  // the partners exist (a partner's head): counts of a partner that is gone are dropped
  for (const id of ['partner-a', 'partner-b']) await client.hset(keys.head(id), 'inc', '1')
  const store = new RedisActivity(client, keys, quiet)
  // sent at the end of the turn, in order on the connection: a PING after them answers once they are done
  const settle = async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve))
    await client.ping()
  }
  await activityCases(t, store, settle, ['partner-a', 'partner-b'], async (id) => {
    await client.del(...keys.allOf(id))
    store.forget(id)
  })

  await t.test('a partner that is gone gets no key', async (t) => {
    store.count('gone', Date.now(), false)
    await settle()
    t.equal(await client.exists(keys.activity('gone')), 0)
  })
})

t.test('counts a full Redis refused are sent again once it takes them', { skip }, async (t) => {
  const redis = await startRedis(t)
  const client = await connected(t, redis.url)
  const keys = new RedisKeys('sbx')
  await client.hset(keys.head('partner-a'), 'inc', '1')
  const store = new RedisActivity(client, keys, quiet)
  const now = Date.now()
  redis.cli('config', 'set', 'maxmemory', '1')
  store.count('partner-a', now, true)
  store.count('partner-a', now + 1, false)
  await new Promise((resolve) => setImmediate(resolve))
  await client.ping()
  t.same((await store.read(['partner-a'], now)).get('partner-a'), { requests: 0, serverErrors: 0, lastRequestAt: null }, 'refused while Redis is full')
  redis.cli('config', 'set', 'maxmemory', '0')
  let counted = (await store.read(['partner-a'], now)).get('partner-a')
  for (let i = 0; i < 100 && counted?.requests === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    counted = (await store.read(['partner-a'], now)).get('partner-a')
  }
  t.same(counted, { requests: 2, serverErrors: 1, lastRequestAt: now + 1 }, 'counted once Redis takes writes again')
})
