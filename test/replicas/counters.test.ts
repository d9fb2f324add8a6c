import t from 'tap'
import { freePort, replicaSkip, startRedis, startReplicas, token, type Replica } from './harness.js'
import { basic, oidcPost, type Answer } from './oidc.js'

/*
 * The limits of a hosted sandbox on three replicas over one Redis (issue 28): SANDBOX_RATE_LIMIT and
 * SANDBOX_TOKEN_RATE_LIMIT allow N per second for a partner across all replicas, not N per replica; the
 * lockout counts wrong secrets in a row whichever replica they reach. Counters Redis cannot be asked about
 * answer 503, never 500 and never "let through".
 */

const skip = replicaSkip()
const RATE = 5
const TOKEN_RATE = 4
const ADMIN = 'admin-token-for-the-counter-tests'

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))
// Redis counts a window from its first hit: a pause longer than a window starts a fresh one
const freshWindow = async (): Promise<void> => await sleep(1100)

const statuses = (answers: Array<{ status: number }>): Record<number, number> => {
  const out: Record<number, number> = {}
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1
  return out
}

/** n requests to each replica at once. */
async function burst<T> (replicas: Replica[], n: number, send: (r: Replica) => Promise<T>): Promise<T[]> {
  return await Promise.all(replicas.flatMap((r) => Array.from({ length: n }, async () => await send(r))))
}

t.test('the limits count across three replicas', { skip }, async (t) => {
  const redis = await startRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const replicas = await startReplicas(t, 3, {
    redisUrl: redis.url,
    publicUrl,
    env: { SANDBOX_RATE_LIMIT: String(RATE), SANDBOX_TOKEN_RATE_LIMIT: String(TOKEN_RATE), SANDBOX_LOCKOUT_FAILURES: '3', SANDBOX_LOCKOUT_SECONDS: '60', SANDBOX_ADMIN_TOKEN: ADMIN }
  })
  const [r1, r2, r3] = replicas
  const clientCredentials = async (r: Replica, clientId: string, secret = `${clientId}-secret`): Promise<Answer> =>
    await oidcPost(r, '/token', { grant_type: 'client_credentials' }, basic(clientId, secret))

  await t.test(`SANDBOX_RATE_LIMIT=${RATE}: a partner's requests sent to three replicas in one second get ${RATE} answers in all, the rest 429`, async (t) => {
    const tok = await token(r1.base)
    await freshWindow()
    const answers = await burst(replicas, 3 * RATE, async (r) => await fetch(`${r.base}/api/banks`, { headers: { authorization: `Bearer ${tok}`, 'agent-id': '1001' } }))
    const counted = statuses(answers)
    // per replica it would be 3 * RATE; a burst that straddles the end of a window may get a second window's share
    t.ok(counted[200] >= RATE && counted[200] <= 2 * RATE, `${counted[200]} answered 200 of ${answers.length} (${JSON.stringify(counted)})`)
    t.equal(counted[200] + counted[429], answers.length, 'the others 429')
    const refused = answers.find((a) => a.status === 429)!
    t.equal(refused.headers.get('x-sandbox-error'), 'SANDBOX_ERR_RATE_LIMITED')
    t.ok(Number(refused.headers.get('retry-after')) >= 1, 'with Retry-After')
    t.equal(refused.headers.get('ratelimit-limit'), String(RATE))
    await freshWindow()
    t.equal((await fetch(`${r2.base}/api/banks`, { headers: { authorization: `Bearer ${tok}`, 'agent-id': '1001' } })).status, 200, 'the next window has a fresh budget')
  })

  await t.test(`SANDBOX_TOKEN_RATE_LIMIT=${TOKEN_RATE}: a client's token requests to three replicas in one second get ${TOKEN_RATE} tokens in all`, async (t) => {
    await freshWindow()
    const answers = await burst(replicas, TOKEN_RATE + 1, async (r) => await clientCredentials(r, 'partner-b'))
    const counted = statuses(answers)
    t.ok(counted[200] >= TOKEN_RATE && counted[200] <= 2 * TOKEN_RATE, `${counted[200]} tokens of ${answers.length} requests (${JSON.stringify(counted)})`)
    t.equal(counted[200] + counted[429], answers.length, 'the others 429')
    const refused = answers.find((a) => a.status === 429)!
    t.equal(refused.headers.get('retry-after'), '1')
    t.match(refused.json.message, /client 'partner-b' may ask for 4 tokens per second/)
  })

  await t.test('a partner registered on one replica has a token budget of its own on another from its first token request', async (t) => {
    const res = await fetch(`${r1.base}/__sandbox/admin/partners`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ clientId: 'acme-budget' }) })
    t.equal(res.status, 200, 'registered on replica 1')
    const registered = await res.json() as { clientId: string, clientSecret: string }
    // at the start of a window (counted per second), the address's budget spent on replica 3 by a client id
    // nobody has, then the new partner's first request there: its own budget, not the address's
    await sleep(1000 - (Date.now() % 1000) + 20)
    for (let i = 0; i < TOKEN_RATE; i++) t.equal((await clientCredentials(r3, 'nobody-at-all', 'wrong')).status, 401, `unknown client ${i + 1}: 401, counted against the address`)
    const first = await clientCredentials(r3, registered.clientId, registered.clientSecret)
    t.equal(first.status, 200, `the new partner's first token request on replica 3 is counted as its own (${first.status}${first.status === 200 ? '' : ` ${JSON.stringify(first.json)}`})`)
  })

  await t.test('the lockout counts wrong secrets in a row on every replica: a success on one starts the count again; the third in a row locks the client everywhere', async (t) => {
    await freshWindow()
    for (const round of [1, 2]) {
      t.equal((await clientCredentials(r1, 'partner-b', 'wrong')).status, 401, `round ${round}: a wrong secret at replica 1`)
      t.equal((await clientCredentials(r2, 'partner-b', 'wrong')).status, 401, `round ${round}: a wrong secret at replica 2`)
      t.equal((await clientCredentials(r3, 'partner-b')).status, 200, `round ${round}: the right one at replica 3 (two in a row: not locked)`)
      await freshWindow()
    }
    for (const r of replicas) t.equal((await clientCredentials(r, 'partner-b', 'wrong')).status, 401, `a wrong secret at ${r.base}`)
    await freshWindow()
    for (const r of replicas) {
      const locked = await clientCredentials(r, 'partner-b')
      t.equal(locked.status, 401, `locked at ${r.base}: the right secret is refused`)
      t.equal(locked.json.error, 'invalid_client', 'as a wrong secret (Keycloak says nothing of the lock)')
    }
    t.equal((await clientCredentials(r1, 'partner-a')).status, 200, 'another client is not locked')
  })

  await t.test("a user's wrong passwords at three replicas lock the user", async (t) => {
    await freshWindow()
    const password = async (r: Replica, pw: string): Promise<Answer> => await oidcPost(r, '/token', { grant_type: 'password', username: 'alice', password: pw, scope: 'openid' })
    for (const r of replicas) t.equal((await password(r, 'wrong')).json.error, 'invalid_grant', `a wrong password at ${r.base}`)
    await freshWindow()
    const locked = await password(r2, 'alice-password')
    t.equal(locked.status, 401)
    t.equal(locked.json.error_description, 'Invalid user credentials', 'the right password is refused while locked')
  })

  await t.test('while Redis is down a counted request answers 503 with Retry-After (never 500, never let through)', async (t) => {
    const tok = await token(r3.base)
    await redis.stop()
    for (const res of [await clientCredentials(r1, 'partner-a'), await fetch(`${r1.base}/api/banks`, { headers: { authorization: `Bearer ${tok}`, 'agent-id': '1001' } })]) {
      t.equal(res.status, 503)
      t.equal(res.headers.get('x-sandbox-error'), 'SANDBOX_ERR_STORE_UNAVAILABLE')
      t.equal(res.headers.get('retry-after'), '1')
    }
    await redis.start()
  })
})
