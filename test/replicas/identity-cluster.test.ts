import t from 'tap'
import { freePort, replicaSkip, startRedisCluster, startReplicas } from './harness.js'
import { apiStatus, authorizationUrl, basic, Jar, oidcPost, pkce, redeem, signIn } from './oidc.js'

/*
 * The identity provider's state and the limits' counters on a Redis Cluster of three masters (issue 28): the
 * same scripts, each on the keys of one hash tag, whatever node holds them.
 */

const skip = replicaSkip()

t.test('on a Redis Cluster: codes once, refresh tokens and revocations shared, lockout counted across replicas', { skip }, async (t) => {
  const cluster = await startRedisCluster(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const replicas = await startReplicas(t, 3, {
    redisUrl: cluster.url,
    publicUrl,
    env: { SANDBOX_REDIS_CLUSTER: '1', SANDBOX_LOCKOUT_FAILURES: '3', SANDBOX_LOCKOUT_SECONDS: '60', SANDBOX_TOKEN_RATE_LIMIT: '100' }
  })
  const [r1, r2, r3] = replicas
  const redirectUri = `${publicUrl}/api/docs/apidocs/static/oauth2-redirect.html`
  const jar = new Jar()
  const everywhere = async (tok: string): Promise<number[]> => await Promise.all(replicas.map(async (r) => await apiStatus(r, tok)))

  const p = pkce()
  const { code } = await signIn(jar, [r1, r2, r3], authorizationUrl(r1, redirectUri, p), redirectUri)
  const redeemed = await redeem(r2, code, redirectUri, p)
  t.equal(redeemed.status, 200, 'a code of replica 1 redeemed at replica 2')
  const refreshed = await oidcPost(r3, '/token', { grant_type: 'refresh_token', refresh_token: redeemed.json.refresh_token as string })
  t.equal(refreshed.status, 200, 'its refresh token works at replica 3')
  t.equal((await redeem(r3, code, redirectUri, p)).json.error, 'invalid_grant', 'the code replayed at replica 3')
  t.same(await everywhere(redeemed.json.access_token as string), [401, 401, 401], "the replay revoked the grant's access tokens everywhere")
  t.same(await everywhere(refreshed.json.access_token as string), [401, 401, 401], 'those of its refreshes too')

  const again = pkce()
  const second = await signIn(jar, [r2], authorizationUrl(r2, redirectUri, again), redirectUri)
  t.equal(second.loginPages, 0, 'the session made before is known at replica 2')
  const answers = await Promise.all(replicas.map(async (r) => await redeem(r, second.code, redirectUri, again)))
  t.same(answers.map((a) => a.status).sort(), [200, 400, 400], 'a code redeemed at three replicas at once is given out once')

  for (const r of replicas) t.equal((await oidcPost(r, '/token', { grant_type: 'client_credentials' }, basic('partner-b', 'wrong'))).status, 401)
  const locked = await oidcPost(r1, '/token', { grant_type: 'client_credentials' }, basic('partner-b'))
  t.equal(locked.json.error, 'invalid_client', 'three wrong secrets at three replicas lock the client')
  t.equal((await oidcPost(r2, '/token', { grant_type: 'client_credentials' }, basic('partner-a'))).status, 200, 'another client is not locked')
})
