import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build } from '../helper.js'
import { replicaSkip, startRedis } from './harness.js'

/*
 * Issue 50, "every sign-in resists guessing", with replicas: the guard's counts are Redis's, so wrong secrets at the
 * partner console of one replica and the token endpoint of another lock the client on both, and wrong operator
 * tokens from one address add up across replicas. Two sandboxes in this process share one redis-server (the
 * replicas' own processes are what test/replicas/counters.test.ts starts; nothing here depends on being apart).
 */

const skip = replicaSkip()
const ADMIN = 'operator-secret-0123456789'
const FORM = 'application/x-www-form-urlencoded'

const consoleSignIn = async (app: FastifyInstance, clientSecret: string): Promise<LightMyRequestResponse> =>
  await app.inject({ method: 'POST', url: '/console/session', payload: { clientId: 'partner-b', clientSecret } })
const clientCredentials = async (app: FastifyInstance, secret: string): Promise<LightMyRequestResponse> =>
  await app.inject({ method: 'POST', url: '/auth/realms/sandbox/protocol/openid-connect/token', headers: { authorization: `Basic ${Buffer.from(`partner-b:${secret}`).toString('base64')}`, 'content-type': FORM }, payload: 'grant_type=client_credentials' })
const adminCall = async (app: FastifyInstance, token: string, remoteAddress: string): Promise<LightMyRequestResponse> =>
  await app.inject({ url: '/__sandbox/admin/partners', headers: { authorization: `Bearer ${token}` }, remoteAddress })

t.test('with replicas on one Redis the console sign-in, the token endpoint and the operator token share their counts', { skip }, async (t) => {
  const redis = await startRedis(t)
  const options = { redisUrl: redis.url, adminToken: ADMIN, lockoutFailures: 3, lockoutSeconds: 60, addressLockoutFailures: 3, addressLockoutSeconds: 60 }
  const r1 = await build(t, options)
  const r2 = await build(t, options)

  t.equal((await consoleSignIn(r1, 'wrong')).statusCode, 401, 'a wrong secret at the console of replica 1')
  t.equal((await clientCredentials(r2, 'wrong')).statusCode, 401, 'one at the token endpoint of replica 2')
  t.equal((await consoleSignIn(r2, 'wrong')).statusCode, 401, 'and one at the console of replica 2: the third in a row')
  t.equal((await consoleSignIn(r1, 'partner-b-secret')).statusCode, 401, 'the right secret is refused at the console of replica 1')
  t.equal((await clientCredentials(r1, 'partner-b-secret')).json().error, 'invalid_client', 'and at the token endpoint')
  t.equal(redis.cli('exists', 'sbx:{partner-b}:count:lock:client'), '1', 'the lock is a key in Redis')

  t.equal((await adminCall(r1, 'wrong', '198.51.100.7')).statusCode, 401)
  t.equal((await adminCall(r2, 'wrong', '198.51.100.7')).statusCode, 401)
  t.equal((await r1.inject({ method: 'POST', url: '/console/operator/session', payload: { token: 'wrong' }, remoteAddress: '198.51.100.7' })).statusCode, 401, 'three wrong operator tokens from one address on two replicas')
  for (const r of [r1, r2]) t.equal((await adminCall(r, ADMIN, '198.51.100.7')).statusCode, 429, 'the address is locked on each replica')
  t.equal((await adminCall(r2, ADMIN, '198.51.100.8')).statusCode, 200, 'another address is not')
  t.equal(redis.cli('exists', 'sbx:{address:198.51.100.7}:count:lock:operator-token'), '1', "the address's lock is a key in Redis")
})
