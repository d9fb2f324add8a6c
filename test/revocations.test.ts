import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { MAX_REVOKED } from '../src/store/tokens.js'
import { api, build, PARTNER_A, TOKEN_PATH, userToken } from './helper.js'

/*
 * Revoked access tokens are the partner's state (store/tokens.ts): no reset, restore or snapshot brings one
 * back; a data dir keeps them over a restart; the snapshot document does not carry them.
 */

const REVOKE_PATH = '/auth/realms/sandbox/protocol/openid-connect/revoke'
const basic = `Basic ${Buffer.from(`${PARTNER_A.client}:${PARTNER_A.secret}`).toString('base64')}`

async function clientToken (app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' })
  return res.json().access_token as string
}

async function revoke (app: FastifyInstance, token: string): Promise<void> {
  const res = await app.inject({ method: 'POST', url: REVOKE_PATH, headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${token}` })
  if (res.statusCode !== 200) throw new Error(`revoke: ${res.statusCode}`)
}

const status = async (app: FastifyInstance, token: string): Promise<number> => (await api(app, { url: '/api/banks', token })).statusCode

t.test('a revoked token stays revoked over a reset, a scenario switch and a snapshot restore, and is not in the snapshot document', async (t) => {
  const app = await build(t)
  const revoked = await clientToken(app)
  const user = await userToken(app, 'alice', 'alice-password')
  const other = await clientToken(app)
  const snapshot = (await api(app, { url: '/__sandbox/snapshot', token: other, agent: null })).json()
  await revoke(app, revoked)
  await revoke(app, user)
  t.equal(await status(app, revoked), 401)
  const refused = await api(app, { url: '/api/banks', token: revoked })
  t.match(refused.headers['www-authenticate'], /the access token was revoked/)
  t.equal(await status(app, user), 401, "a user's token is revoked likewise")

  t.equal((await api(app, { method: 'POST', url: '/__sandbox/reset', token: other, agent: null, body: {} })).statusCode, 200)
  t.equal(await status(app, revoked), 401, 'after a reset')
  t.equal((await api(app, { method: 'POST', url: '/__sandbox/reset', token: other, agent: null, body: { scenario: 'edge-cases' } })).statusCode, 200)
  t.equal(await status(app, revoked), 401, 'after a switch to another scenario')
  t.equal((await api(app, { method: 'PUT', url: '/__sandbox/snapshot', token: other, agent: null, body: snapshot })).statusCode, 200)
  t.equal(await status(app, revoked), 401, 'after a snapshot taken before the revocation is restored')
  t.equal(await status(app, user), 401)
  t.equal(await status(app, other), 200, 'the other token works')

  const doc = await api(app, { url: '/__sandbox/snapshot', token: other, agent: null })
  t.notOk('tokens' in doc.json(), 'the snapshot document has no revocations')
  t.notMatch(doc.body, /revoked/)
})

t.test('with a data dir, revocations survive a restart; without any, the partner file has no tokens field', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const first = await build(t, { dataDir: dir })
  const revoked = await clientToken(first)
  const kept = await clientToken(first)
  t.notOk('tokens' in first.world.partner('partner-a')!.snapshot(), 'no revocation, no tokens field')
  await revoke(first, revoked)
  await first.close()

  const second = await build(t, { dataDir: dir })
  t.equal(await status(second, revoked), 401, 'revoked after the restart')
  t.equal(await status(second, kept), 200)
  const partners = join(dir, 'partners')
  const partnerFiles = readdirSync(partners).filter((f) => f.startsWith('partner-a.')).map((f) => readFileSync(join(partners, f), 'utf8')).join('\n')
  t.match(partnerFiles, /"tokens":\{"revoked":\{"[^"]+":\d+\}\}/, 'the revocation is in the partner file (its id and expiry)')
})

t.test(`more than ${MAX_REVOKED} live revocations turn into a cut-off: every token issued until then is refused, later ones work`, async (t) => {
  const app = await build(t)
  const early = await clientToken(app)
  const exp = Math.floor(Date.now() / 1000) + 300
  await app.world.perform('partner-a', 'tokens.revoke', { tokens: Array.from({ length: MAX_REVOKED + 1 }, (_, i) => ({ jti: `made-up-${i}`, exp })) })
  const state = app.world.partner('partner-a')!.tokens
  t.same(state.revoked, {}, 'the list is replaced')
  t.type(state.revokedBefore, 'number')
  t.equal(await status(app, early), 401, 'a token issued before is refused')
  await new Promise((resolve) => setTimeout(resolve, 1100 - Date.now() % 1000))
  t.equal(await status(app, await clientToken(app)), 200, 'a token issued in a later second works')
})
