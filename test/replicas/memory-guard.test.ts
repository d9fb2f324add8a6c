import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { api, build, tokenFor } from '../helper.js'
import { memoryOf } from '../../src/store/redis/memory-guard.js'
import { replicaSkip, startRedis, type RedisServer } from './harness.js'

/*
 * What all partners share: Redis's memory (issue 50, finding 6). The shipped Redis (deploy/) has a maxmemory and
 * noeviction, so a full Redis refuses every write with OOM. The sandbox refuses partners' writes itself before
 * that (SANDBOX_REDIS_MEMORY_GUARD, from INFO memory read every second), with a clear 507, reads still served;
 * and an OOM answer of Redis, should it still come, is the same 507, never the 503 "cannot be reached".
 */

const skip = replicaSkip()
const MESSAGE = { message: 'FILLING', fromDepartment: 'QUOTA', fromPerson: 'TEST' }
const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

const used = (redis: RedisServer): number => memoryOf(redis.cli('info', 'memory').replace(/\n/g, '\r\n')).used
const write = async (app: FastifyInstance) => await api(app, { url: '/api/customers/1001100000001/messages', body: MESSAGE })
const read = async (app: FastifyInstance) => await api(app, { url: '/api/customers/1001100000001/messages?size=5' })

t.test('above SANDBOX_REDIS_MEMORY_GUARD percent of maxmemory, writes are refused with 507 and reads served; below it again, writes pass', { skip }, async (t) => {
  const redis = await startRedis(t)
  const app = await build(t, { redisUrl: redis.url, redisMemoryGuard: 80 })
  t.equal((await write(app)).statusCode, 200, 'room: a write passes')

  // Redis's own limit set so that what it holds now is 90% of it: past the guard's 80%, short of OOM
  redis.cli('config', 'set', 'maxmemory', String(Math.ceil(used(redis) / 0.9)))
  await sleep(1500)
  const refused = await write(app)
  t.equal(refused.statusCode, 507)
  t.equal(refused.headers['x-sandbox-error'], 'SANDBOX_ERR_STORE_FULL')
  t.match(refused.json(), { status: 507, error: 'Insufficient Storage', message: /shared store \(Redis\) is full/ })
  t.equal((await read(app)).statusCode, 200, 'reads are still served')
  // (app.inject: the control API's document lists no 507 yet, the bank API's lists it under its default answer)
  const named = await app.inject({ method: 'POST', url: '/__sandbox/snapshots', headers: { authorization: `Bearer ${await tokenFor(app)}` }, payload: { name: 'before' } })
  t.equal(named.statusCode, 507, 'a named snapshot is a write too')

  redis.cli('config', 'set', 'maxmemory', '0')
  await sleep(1500)
  t.equal((await write(app)).statusCode, 200, 'room again: writes pass')
})

t.test("Redis's own out-of-memory answer is the same 507, not 503 \"cannot be reached\"", { skip }, async (t) => {
  const redis = await startRedis(t)
  const app = await build(t, { redisUrl: redis.url, redisMemoryGuard: 0 })
  t.equal((await write(app)).statusCode, 200)
  // below what Redis holds: noeviction (redis-server's default, and deploy/'s) refuses every write with OOM
  redis.cli('config', 'set', 'maxmemory', String(used(redis) - 100_000))
  t.match(redis.cli('set', 'probe', 'x'), /^OOM /, 'Redis itself refuses writes now')
  const refused = await write(app)
  t.equal(refused.statusCode, 507)
  t.equal(refused.headers['x-sandbox-error'], 'SANDBOX_ERR_STORE_FULL')
  t.equal(refused.headers['retry-after'], undefined, 'no Retry-After: a retry within seconds does not help')
  redis.cli('config', 'set', 'maxmemory', '0')
  t.equal((await write(app)).statusCode, 200)
})
