import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { ConfigError, loadConfig } from '../src/config.js'
import { MemoryConsoleSessions } from '../src/store/console-sessions.js'
import { ClientSecrets, hashPassword, verifyPassword } from '../src/store/credentials.js'
import { build, PARTNER_A, PARTNER_B, TOKEN_PATH, type Credentials } from './helper.js'

/*
 * Issue 50, "credentials at rest": no client secret or password is kept as it was given, the operator rotates
 * secrets and suspends partners, and a partner's console sessions end with its credentials.
 */

const ADMIN = 'operator-token-0123456789'
const admin = { authorization: `Bearer ${ADMIN}` }

function tempDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-creds-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Every file under a directory, as text. */
function filesOf (dir: string): Array<{ path: string, text: string }> {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile()).map((path) => ({ path, text: readFileSync(path, 'utf8') }))
}

async function tokenRequest (app: FastifyInstance, who: Credentials, grant = 'grant_type=client_credentials') {
  return await app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers: { authorization: `Basic ${Buffer.from(`${who.client}:${who.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: grant
  })
}

async function signIn (app: FastifyInstance, who: Credentials): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/console/session', payload: { clientId: who.client, clientSecret: who.secret } })
  if (res.statusCode !== 200) throw new Error(`console sign-in failed: ${res.statusCode} ${res.body}`)
  return String(res.headers['set-cookie']).split(';')[0]
}

const signedIn = async (app: FastifyInstance, cookie: string): Promise<boolean> =>
  (await app.inject({ url: '/console/session', headers: { cookie } })).statusCode === 200

async function register (app: FastifyInstance, clientId: string): Promise<Credentials> {
  const res = await app.inject({ method: 'POST', url: '/__sandbox/admin/partners', headers: admin, payload: { clientId, scenario: 'empty' } })
  if (res.statusCode !== 200) throw new Error(`registration failed: ${res.statusCode} ${res.body}`)
  return { client: clientId, secret: res.json().clientSecret }
}

t.test('no secret or password can be read back from the data dir: a registered partner, the scenario partners and their users', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, adminToken: ADMIN })
  const acme = await register(app, 'acme-at-rest')
  t.equal((await tokenRequest(app, acme)).statusCode, 200, 'the registered secret works')
  t.equal((await tokenRequest(app, PARTNER_A, 'grant_type=password&username=alice&password=alice-password')).statusCode, 200, 'the published password works')
  // the snapshot document a partner downloads carries no credentials either
  const doc = await app.inject({ url: '/__sandbox/snapshot', headers: { authorization: `Bearer ${(await tokenRequest(app, acme)).json().access_token}` } })
  t.equal(doc.statusCode, 200)
  await app.close()
  const files = filesOf(dataDir)
  t.ok(files.some((f) => f.path.endsWith('acme-at-rest.json')), 'the partner has its file')
  for (const value of [acme.secret, 'partner-a-secret', 'partner-b-secret', 'alice-password', 'bob-password']) {
    t.same(files.filter((f) => f.text.includes(value)).map((f) => f.path), [], `${value.slice(0, 12)}... is in no file`)
    t.notOk(doc.body.includes(value), 'nor in the snapshot document')
  }
  const kept = JSON.parse(readFileSync(join(dataDir, 'partners', 'partner-a.json'), 'utf8'))
  t.match(kept.secretHash, /^hmac-sha256\$/, 'the secret is kept as an HMAC')
  t.match(kept.users[0].passwordHash, /^\$scrypt\$ln=14,r=8,p=5\$/, 'the password as a salted scrypt hash')
  t.notOk('secret' in kept || 'password' in kept.users[0])
  t.equal(statSync(join(dataDir, 'keys', 'secret-pepper')).mode & 0o777, 0o600, 'the pepper is kept beside the signing key, owner-only')
})

t.test('a data dir written before secrets were hashed is migrated at start: the same secrets and passwords work, none stays in a file', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir })
  await first.close()
  // as main wrote it: the secret and the passwords in plain text
  const file = join(dataDir, 'partners', 'partner-a.json')
  const { secretHash, users, ...old } = JSON.parse(readFileSync(file, 'utf8'))
  writeFileSync(file, JSON.stringify({ ...old, secret: 'partner-a-secret', users: users.map(({ passwordHash, ...u }: { passwordHash: string }) => ({ ...u, password: 'alice-password' })) }))
  t.ok(readFileSync(file, 'utf8').includes('partner-a-secret'), 'the old format')
  const app = await build(t, { dataDir })
  t.equal((await tokenRequest(app, PARTNER_A)).statusCode, 200, 'the old secret works')
  t.equal((await tokenRequest(app, PARTNER_A, 'grant_type=password&username=alice&password=alice-password')).statusCode, 200, 'the old password works')
  t.equal((await tokenRequest(app, { ...PARTNER_A, secret: 'wrong-secret' })).statusCode, 401)
  const files = filesOf(join(dataDir, 'partners'))
  t.same(files.filter((f) => f.text.includes('partner-a-secret') || f.text.includes('alice-password')).map((f) => f.path), [], 'no file keeps them')
  t.match(JSON.parse(readFileSync(file, 'utf8')).secretHash, /^hmac-sha256\$/)
})

t.test('the operator rotates a secret: answered once, the old one refused at once or after the overlap, console sessions end', async (t) => {
  const app = await build(t, { adminToken: ADMIN })
  const cookie = await signIn(app, PARTNER_A)
  const other = await signIn(app, PARTNER_B)
  const res = await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/secret', headers: admin })
  t.equal(res.statusCode, 200, 'rotated')
  const rotated = res.json()
  t.equal(rotated.clientId, 'partner-a')
  t.match(rotated.clientSecret, /^[A-Za-z0-9_-]{32}$/)
  t.notOk('previousSecretValidUntil' in rotated)
  const next = { client: 'partner-a', secret: rotated.clientSecret }
  t.equal((await tokenRequest(app, PARTNER_A)).statusCode, 401, 'the published secret stops at once')
  t.equal((await tokenRequest(app, next)).statusCode, 200, 'the new one works')
  t.notOk(await signedIn(app, cookie), "the partner's console session ended")
  t.ok(await signedIn(app, other), "another partner's did not")

  // with an overlap, and a secret the operator chose
  const chosen = { client: 'partner-a', secret: 'operator-chosen-secret-1' }
  const overlap = await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/secret', headers: admin, payload: { overlapSeconds: 3600, clientSecret: chosen.secret } })
  t.equal(overlap.statusCode, 200, 'rotated with an overlap')
  t.equal(overlap.json().clientSecret, chosen.secret)
  t.ok(Date.parse(overlap.json().previousSecretValidUntil) > Date.now() + 3500_000, 'the old secret works for the hour asked')
  t.equal((await tokenRequest(app, chosen)).statusCode, 200, 'the new secret works')
  t.equal((await tokenRequest(app, next)).statusCode, 200, 'the one it replaced still works during the overlap')
  t.equal((await tokenRequest(app, PARTNER_A)).statusCode, 401, 'the one before that does not')
  t.equal(app.world.partner('partner-a')!.previousSecretUntil! > Date.now(), true)

  // bad input changes nothing
  for (const payload of [{ overlapSeconds: -1 }, { overlapSeconds: 604801 }, { clientSecret: 'short' }, { clientSecret: 'has a space in it...' }]) {
    const bad = await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/secret', headers: admin, payload })
    t.equal(bad.statusCode, 400, JSON.stringify(payload))
    t.equal(bad.json().status, 400, 'in the error shape')
  }
  t.equal((await tokenRequest(app, chosen)).statusCode, 200, 'the secret is unchanged')
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/nobody/secret', headers: admin })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/secret' })).statusCode, 401, 'operators only')
  // a reset keeps the rotated secret (a scenario partner does not get its published one back)
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/admin/reset', headers: admin })).statusCode, 200)
  t.equal((await tokenRequest(app, chosen)).statusCode, 200, 'after a reset of everything, the rotated secret works')
  t.equal((await tokenRequest(app, PARTNER_A)).statusCode, 401, 'and the published one does not')
})

t.test('a suspended partner is refused everywhere with a clear error, its data kept; resumed, it works again', async (t) => {
  const app = await build(t, { adminToken: ADMIN })
  const token = (await tokenRequest(app, PARTNER_A)).json().access_token
  const cookie = await signIn(app, PARTNER_A)
  const before = app.world.partner('partner-a')!.recordCount
  const res = await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/suspend', headers: admin })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json(), { clientId: 'partner-a', suspended: true })

  const refused = await tokenRequest(app, PARTNER_A)
  t.equal(refused.statusCode, 401)
  t.same(refused.json(), { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' }, "Keycloak's answer for a disabled client")
  const api = await app.inject({ url: '/api/customers', headers: { authorization: `Bearer ${token}`, 'agent-id': '1001' } })
  t.equal(api.statusCode, 401)
  t.match(api.json().message, /suspended by the sandbox's operator/, 'its tokens are refused, saying why')
  t.notOk(await signedIn(app, cookie), 'its console session ended')
  const console = await app.inject({ method: 'POST', url: '/console/session', payload: { clientId: 'partner-a', clientSecret: 'partner-a-secret' } })
  t.equal(console.statusCode, 401)
  t.match(console.json().message, /suspended/, 'its console sign-in is refused, saying why')
  t.equal((await tokenRequest(app, PARTNER_B)).statusCode, 200, 'other partners go on')
  t.equal(app.world.partner('partner-a')!.recordCount, before, 'its data is kept')

  t.same((await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/resume', headers: admin })).json(), { clientId: 'partner-a', suspended: false })
  t.equal((await tokenRequest(app, PARTNER_A)).statusCode, 200, 'resumed: the same secret works')
  t.equal((await app.inject({ url: '/api/customers', headers: { authorization: `Bearer ${token}`, 'agent-id': '1001' } })).statusCode, 200, 'and its unexpired tokens')
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/nobody/suspend', headers: admin })).statusCode, 404)
})

t.test("deleting a partner and expiring its tokens end its console sessions, no other partner's", async (t) => {
  const app = await build(t, { adminToken: ADMIN })
  const acme = await register(app, 'acme-sessions')
  const cookie = await signIn(app, acme)
  const other = await signIn(app, PARTNER_B)
  t.equal((await app.inject({ method: 'DELETE', url: '/__sandbox/admin/partners/acme-sessions', headers: admin })).statusCode, 204)
  // the same client id registered again by someone else: the old session must not open it
  await register(app, 'acme-sessions')
  t.notOk(await signedIn(app, cookie), 'the deleted partner\'s session ended')
  t.ok(await signedIn(app, other))

  const mine = await signIn(app, PARTNER_A)
  const token = (await tokenRequest(app, PARTNER_A)).json().access_token
  const expire = await app.inject({ method: 'POST', url: '/__sandbox/tokens/expire', headers: { authorization: `Bearer ${token}` } })
  t.equal(expire.statusCode, 200, expire.body)
  t.notOk(await signedIn(app, mine), 'expiring all tokens ended the console session')
  t.ok(await signedIn(app, other), "another partner's stays")
})

t.test("console sessions are capped per partner: one partner's sign-ins never evict another's", async (t) => {
  const store = new MemoryConsoleSessions()
  const expires = Date.now() + 60_000
  store.put('b', { partnerId: 'partner-b', csrf: 'x', expires })
  store.put('a-first', { partnerId: 'partner-a', csrf: 'x', expires })
  for (let i = 0; i < 10_000; i++) store.put(`a-${i}`, { partnerId: 'partner-a', csrf: 'x', expires })
  t.ok(store.get('b') !== undefined, "partner-b's session outlives 10,000 sign-ins of partner-a")
  t.equal(store.get('a-first'), undefined, "partner-a's oldest went")
  t.ok(store.get('a-9999') !== undefined, 'its newest stays')

  const app = await build(t)
  const first = await signIn(app, PARTNER_A)
  const other = await signIn(app, PARTNER_B)
  let last = ''
  for (let i = 0; i < 50; i++) last = await signIn(app, PARTNER_A)
  t.notOk(await signedIn(app, first), "the 51st sign-in ended the partner's first session")
  t.ok(await signedIn(app, last))
  t.ok(await signedIn(app, other), "and no other partner's")
})

t.test('password hashes: scrypt with the documented parameters, salted, compared in constant time; client secrets keyed', async (t) => {
  const a = await hashPassword('alice-password')
  const b = await hashPassword('alice-password')
  t.not(a, b, 'a salt of its own each time')
  t.ok(await verifyPassword(a, 'alice-password'))
  t.notOk(await verifyPassword(a, 'alice-passwore'))
  t.notOk(await verifyPassword(undefined, 'alice-password'), 'no user: false (after the same work)')
  t.notOk(await verifyPassword('alice-password', 'alice-password'), 'a plain value is no hash')
  const one = ClientSecrets.generated()
  const two = ClientSecrets.generated()
  t.ok(one.verify(one.hash('s3cret-value'), 's3cret-value'))
  t.notOk(two.verify(one.hash('s3cret-value'), 's3cret-value'), 'another pepper: another hash')
  t.notOk(one.verify('s3cret-value', 's3cret-value'), 'a plain value is no hash')
})

t.test('SANDBOX_ADMIN_TOKEN_FILE: the operator token from a mounted file, its trailing newline dropped; a clear start error otherwise', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'admin-token')
  writeFileSync(file, `${ADMIN}\n`)
  t.equal(loadConfig({ adminTokenFile: file }).adminToken, ADMIN)
  const app = await build(t, { adminTokenFile: file })
  t.equal((await app.inject({ url: '/__sandbox/admin/partners', headers: admin })).statusCode, 200, 'the token of the file opens the operator endpoints')

  const missing = join(dir, 'nothing-here')
  t.throws(() => loadConfig({ adminTokenFile: missing }), new ConfigError(`invalid option --admin-token-file / SANDBOX_ADMIN_TOKEN_FILE = ${JSON.stringify(missing)}: the file cannot be read (ENOENT)`))
  writeFileSync(file, 'short\n')
  t.throws(() => loadConfig({ adminTokenFile: file }), /holds 5 characters/)
  writeFileSync(file, `${ADMIN}\n`)
  t.throws(() => loadConfig({ adminTokenFile: file, adminToken: ADMIN }), /exclude each other/)
  try {
    writeFileSync(file, 'two words of a token\n')
    loadConfig({ adminTokenFile: file })
    t.fail('refused')
  } catch (err) {
    t.notOk((err as Error).message.includes('two words'), 'the file\'s text is never in the message')
  }
})
