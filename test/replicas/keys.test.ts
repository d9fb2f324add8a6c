import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { decodeProtectedHeader } from 'jose'
import { freePort, replicaSkip, startRedis, startReplica, token, type Replica } from './harness.js'
import { apiStatus, authorizationUrl, basic, Jar, OIDC, oidcPost, pkce, redeem, signIn } from './oidc.js'

/*
 * Signing key rotation across three replicas (SANDBOX_SIGNING_KEYS, issue 28), the way docs/operations.md says
 * to do it: the new key rolled out as an accepted one, then as the current one, then the old one removed; each
 * step restarts the replicas one by one. No valid token (access, refresh) or browser session is
 * dropped on the way; once the old key is gone, what it signed is refused.
 */

const skip = replicaSkip()

const rsa = (format: 'pkcs8' | 'pkcs1'): string => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: format, format: 'pem' }).toString()
const OLD = rsa('pkcs8')
// (PKCS#1, "BEGIN RSA PRIVATE KEY": as openssl genrsa writes it)
const NEW = rsa('pkcs1')

const kid = (jwt: string): string => String(decodeProtectedHeader(jwt).kid)

t.test('a new signing key rolled across three replicas drops no valid token; the old key removed, its tokens are refused', { skip }, async (t) => {
  const redis = await startRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const redirectUri = `${publicUrl}/api/docs/apidocs/static/oauth2-redirect.html`
  // a directory of key files: the name that sorts last is the current key
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-keys-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, '2026-01-signing.pem'), OLD)
  writeFileSync(join(dir, '2026-07-signing.pem'), NEW)
  writeFileSync(join(dir, '.hidden'), 'not a key')

  // each replica its own options: restarted with other keys one at a time
  const envs = [0, 1, 2].map(() => ({ SANDBOX_SIGNING_KEY: '', SANDBOX_SIGNING_KEYS: OLD }))
  const replicas: Replica[] = []
  for (const env of envs) replicas.push(await startReplica(t, { redisUrl: redis.url, publicUrl, env }))
  const [r1, r2, r3] = replicas
  const everywhere = async (tok: string): Promise<number[]> => await Promise.all(replicas.map(async (r) => await apiStatus(r, tok)))
  const jwksKids = async (r: Replica): Promise<string[]> => ((await (await fetch(`${r.base}${OIDC}/certs`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid)
  const rolled = async (keys: string, each: (i: number) => Promise<void>): Promise<void> => {
    for (const [i, r] of replicas.entries()) {
      await r.stop()
      envs[i].SANDBOX_SIGNING_KEYS = keys
      await r.start()
      await each(i)
    }
  }

  const [oldKid] = await jwksKids(r1)
  const oldAccess = await token(r1.base)
  const password = await oidcPost(r2, '/token', { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'openid' })
  const oldRefresh = password.json.refresh_token as string
  const jar = new Jar()
  const first = pkce()
  const signedIn = await signIn(jar, [r3], authorizationUrl(r3, redirectUri, first), redirectUri)
  t.equal(signedIn.loginPages, 1, 'a browser signed in with the old key alone')
  t.equal(kid(oldAccess), oldKid)

  await t.test('step 1: the new key accepted (the old one still signs), replica by replica', async (t) => {
    await rolled(`${OLD}\n${NEW}`, async (i) => {
      t.same(await everywhere(oldAccess), [200, 200, 200], `after replica ${i + 1}: the old token works everywhere`)
      t.equal(kid(await token(replicas[i].base)), oldKid, `replica ${i + 1} still signs with the old key`)
    })
    const kids = await jwksKids(r2)
    t.equal(kids.length, 2, 'the JWKS publishes both')
    t.equal(kids[0], oldKid)
  })

  let newKid = ''
  await t.test('step 2: the new key current (a directory of key files), replica by replica', async (t) => {
    await rolled(dir, async (i) => {
      const fresh = await token(replicas[i].base)
      newKid ||= kid(fresh)
      t.not(kid(fresh), oldKid, `replica ${i + 1} signs with the new key`)
      t.same(await everywhere(fresh), [200, 200, 200], `its token works on every replica, restarted or not (after replica ${i + 1})`)
      t.same(await everywhere(oldAccess), [200, 200, 200], 'and so does the old token')
    })
    t.same(await jwksKids(r3), [newKid, oldKid], 'the JWKS publishes both, the current first')
    const refreshed = await oidcPost(r1, '/token', { grant_type: 'refresh_token', refresh_token: oldRefresh })
    t.equal(refreshed.status, 200, 'a refresh token of the old key refreshes')
    t.equal(kid(refreshed.json.access_token as string), newKid, 'into a token of the new key')
    const again = pkce()
    const known = await signIn(jar, [r2, r1], authorizationUrl(r2, redirectUri, again), redirectUri)
    t.equal(known.loginPages, 0, 'the browser session of the old key is still known (its cookies verify)')
    t.equal((await redeem(r1, known.code, redirectUri, again)).status, 200)
  })

  await t.test('step 3: the old key removed; what it signed is refused by every replica', async (t) => {
    const fresh = await token(r2.base)
    await rolled(NEW, async () => {})
    t.same(await jwksKids(r1), [newKid], 'the JWKS publishes the new key alone')
    t.same(await everywhere(oldAccess), [401, 401, 401], 'the old access token is refused')
    const refused = await fetch(`${r3.base}/api/banks`, { headers: { authorization: `Bearer ${oldAccess}`, 'agent-id': '1001' } })
    t.match(refused.headers.get('www-authenticate'), /signed with a key this sandbox does not hold/)
    t.equal((await oidcPost(r2, '/token', { grant_type: 'refresh_token', refresh_token: oldRefresh })).json.error, 'invalid_grant', "the old key's refresh token is refused")
    t.same(await everywhere(fresh), [200, 200, 200], "the new key's tokens work")
    t.equal((await oidcPost(r3, '/token', { grant_type: 'client_credentials' }, basic('partner-b'))).status, 200)
  })
})
