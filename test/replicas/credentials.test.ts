import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, TOKEN_PATH } from '../helper.js'
import { replicaSkip, startRedis } from './harness.js'

/*
 * Issue 50, credentials at rest, with two sandboxes on one Redis (in this process): Redis keeps no secret as
 * it was given, and a suspension, a rotation or a deletion at one ends the partner's console sessions and
 * token requests at the other.
 */

const skip = replicaSkip()
const ADMIN = 'admin-token-for-the-credential-tests'
const admin = { authorization: `Bearer ${ADMIN}` }

const tokenStatus = async (app: FastifyInstance, client: string, secret: string): Promise<number> => (await app.inject({
  method: 'POST',
  url: TOKEN_PATH,
  headers: { authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
  payload: 'grant_type=client_credentials'
})).statusCode

async function signIn (app: FastifyInstance, clientId: string, clientSecret: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/console/session', payload: { clientId, clientSecret } })
  if (res.statusCode !== 200) throw new Error(`console sign-in failed: ${res.statusCode} ${res.body}`)
  return String(res.headers['set-cookie']).split(';')[0]
}

const signedIn = async (app: FastifyInstance, cookie: string): Promise<boolean> =>
  (await app.inject({ url: '/console/session', headers: { cookie } })).statusCode === 200

t.test('two sandboxes on one Redis: no plain secret in Redis; suspension, rotation and deletion reach the other one', { skip }, async (t) => {
  const redis = await startRedis(t)
  const one = await build(t, { redisUrl: redis.url, adminToken: ADMIN, redisTimeout: 60000 })
  const two = await build(t, { redisUrl: redis.url, adminToken: ADMIN, redisTimeout: 60000 })
  const registered = await one.inject({ method: 'POST', url: '/__sandbox/admin/partners', headers: admin, payload: { clientId: 'acme-redis', scenario: 'empty' } })
  // (a generous Redis timeout: a busy CI machine is not what this test is about)
  t.equal(registered.statusCode, 200, 'registered')
  const secret: string = registered.json().clientSecret
  t.equal(await tokenStatus(two, 'acme-redis', secret), 200, 'the other sandbox checks the same hash (one pepper, kept in Redis)')

  // every value of every key, whatever its type
  const keys = redis.cli('--scan').split('\n').filter(Boolean)
  const read: Record<string, string[]> = { string: ['get'], hash: ['hgetall'], list: ['lrange', '0', '-1'], set: ['smembers'], zset: ['zrange', '0', '-1'], stream: ['xrange', '-', '+'] }
  const values = keys.map((key) => {
    const type = redis.cli('type', key)
    const [command, ...args] = read[type] ?? ['get']
    return redis.cli(command, key, ...args)
  }).join('\n')
  t.match(values, /hmac-sha256\$/, 'the hashes are there')
  t.ok(keys.length > 10, `${keys.length} keys`)
  for (const value of [secret, 'partner-a-secret', 'alice-password']) t.notOk(values.includes(value), `${value.slice(0, 12)}... is in no key of Redis`)

  const cookie = await signIn(one, 'partner-a', 'partner-a-secret')
  t.equal((await two.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/suspend', headers: admin })).statusCode, 200)
  t.notOk(await signedIn(one, cookie), 'suspended at the other: the console session ended here')
  t.equal(await tokenStatus(one, 'partner-a', 'partner-a-secret'), 401, 'and token requests are refused here')
  t.equal((await one.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/resume', headers: admin })).statusCode, 200)
  t.equal(await tokenStatus(two, 'partner-a', 'partner-a-secret'), 200, 'resumed here: works there')

  const mine = await signIn(two, 'acme-redis', secret)
  const rotated = await one.inject({ method: 'POST', url: '/__sandbox/admin/partners/acme-redis/secret', headers: admin, payload: { overlapSeconds: 60 } })
  t.equal(rotated.statusCode, 200)
  t.notOk(await signedIn(two, mine), 'rotated at one: the console session ended at the other')
  t.equal(await tokenStatus(two, 'acme-redis', rotated.json().clientSecret), 200, 'the new secret works at the other')
  t.equal(await tokenStatus(two, 'acme-redis', secret), 200, 'the old one during the overlap')

  const again = await signIn(two, 'acme-redis', rotated.json().clientSecret)
  t.equal((await one.inject({ method: 'DELETE', url: '/__sandbox/admin/partners/acme-redis', headers: admin })).statusCode, 204)
  t.notOk(await signedIn(two, again), 'deleted at one: the console session ended at the other')
})
