import t from 'tap'
import { call, freePort, replicaSkip, startReplicas, startSecureRedis, token } from './harness.js'

/*
 * Replicas through a Redis as deploy/ ships it (issue 51): TLS only, an ACL user with a password, the CA named by
 * SANDBOX_REDIS_CA. State is shared as over plain Redis, the user's rules (users.acl.example) let the sandbox do
 * all it does, a client that has not signed in gets nothing, and the password is never logged.
 */

const skip = replicaSkip()

t.test('two replicas share their state through rediss:// with a password, checked against SANDBOX_REDIS_CA', { skip }, async (t) => {
  const redis = await startSecureRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const [r1, r2] = await startReplicas(t, 2, { redisUrl: redis.url, publicUrl, env: { SANDBOX_REDIS_CA: redis.ca, LOG_LEVEL: 'info' } })
  const tok = await token(r1.base)
  const customer = await call(r1.base, tok, 'POST', '/api/customers', { defaultCustomer: { entityTypeId: '5', name1: 'TLS TRADING', identifyingNumber: '2015/123456/07', taxNumber: '9012345678' } })
  t.equal(customer.status, 200, 'a create on replica 1')
  t.same((await call(r2.base, tok, 'GET', `/api/customers/${customer.json.customerId as string}`)).json, customer.json, 'read from replica 2')
  t.ok(Number(redis.cli('dbsize')) > 0, 'the state is in the TLS Redis')
  t.match(redis.anonymous('get', 'sbx:anything'), /NOAUTH/, 'a client that has not signed in is refused')
  const password = new URL(redis.url).password
  for (const r of [r1, r2]) t.notOk(r.log().includes(password), `the password is not in ${r.base}'s log`)
})
