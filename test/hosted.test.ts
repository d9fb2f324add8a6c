import { readFileSync } from 'node:fs'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { hostingTable } from '../scripts/config-table.js'
import { ConfigError, loadConfig } from '../src/config.js'
import { PARTNER_A, TOKEN_PATH, build, tokenFor } from './helper.js'

/*
 * The hosted profile (issue 50, finding 2): the same code with safe defaults. On a hosted sandbox no partner
 * accepts a secret or password published anywhere (the README, the scenario files, the Postman environment
 * served without sign-in), the limits are on, HSTS is sent over https, and the start needs an operator credential.
 */

const ADMIN = 'operator-token-of-the-hosted-tests'
const HOSTED = { profile: 'hosted', adminToken: ADMIN }
const FORM = 'application/x-www-form-urlencoded'
const basic = (client: string, secret: string): string => `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}`

async function clientCredentials (app: FastifyInstance, client: string, secret: string): Promise<number> {
  const res = await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: basic(client, secret), 'content-type': FORM }, payload: 'grant_type=client_credentials' })
  return res.statusCode
}

async function passwordGrant (app: FastifyInstance, username: string, password: string, clientSecret = PARTNER_A.secret): Promise<number> {
  const res = await app.inject({ method: 'POST', url: TOKEN_PATH, headers: { authorization: basic(PARTNER_A.client, clientSecret), 'content-type': FORM }, payload: `grant_type=password&username=${username}&password=${password}&scope=openid` })
  return res.statusCode
}

async function postmanEnvironment (app: FastifyInstance): Promise<Record<string, string>> {
  const res = await app.inject({ url: '/api/docs/postman-environment.json' })
  return Object.fromEntries((res.json() as { values: Array<{ key: string, value: string }> }).values.map((v) => [v.key, v.value]))
}

t.test('the hosted profile refuses to start without an operator credential, saying so in one line', async (t) => {
  t.throws(() => loadConfig({ profile: 'hosted' }), new ConfigError('the hosted profile (--profile / SANDBOX_PROFILE = hosted) needs an operator credential: set SANDBOX_ADMIN_TOKEN (--admin-token), at least 16 characters'))
  t.doesNotThrow(() => loadConfig({ profile: 'hosted', adminToken: ADMIN }))
  t.doesNotThrow(() => loadConfig({}), 'the local profile starts without one, as before')
})

t.test("the hosted profile's defaults come from the schema's table, and an option set explicitly wins", async (t) => {
  const local = loadConfig({})
  const hosted = loadConfig(HOSTED)
  t.equal(local.profile, 'local', 'local by default')
  t.match(local, { scenarioPartners: 'on', publishedSecrets: 'on', rateLimit: 0, tokenRateLimit: 0, lockoutFailures: 0, lockoutSeconds: 0, hsts: 0, maxRecords: 500000 }, 'local: as before')
  t.match(hosted, { scenarioPartners: 'off', publishedSecrets: 'off', rateLimit: 25, tokenRateLimit: 10, lockoutFailures: 30, lockoutSeconds: 60, hsts: 31536000, maxRecords: 20000 }, 'hosted: limits on')
  t.match(loadConfig({ ...HOSTED, rateLimit: '0', scenarioPartners: 'on' }), { rateLimit: 0, scenarioPartners: 'on', tokenRateLimit: 10 }, 'explicit values win')
  t.throws(() => loadConfig({ profile: 'public' }), /invalid option --profile \/ SANDBOX_PROFILE = "public": expected one of local, hosted/)
})

t.test('a local sandbox still has the scenario partners with their published secrets, in the Postman environment too', async (t) => {
  const app = await build(t)
  t.equal(await clientCredentials(app, 'partner-a', 'partner-a-secret'), 200)
  t.equal(await passwordGrant(app, 'alice', 'alice-password'), 200)
  t.equal((await postmanEnvironment(app)).clientSecret, 'partner-a-secret')
})

t.test('a hosted sandbox has no scenario partners: partner-a and its published secret open nothing', async (t) => {
  const app = await build(t, HOSTED)
  t.same([...app.world.partners.keys()], [], 'no partner until the operator registers one')
  t.equal(await clientCredentials(app, 'partner-a', 'partner-a-secret'), 401)
  const env = await postmanEnvironment(app)
  t.equal(env.clientSecret, '', 'the Postman environment (served without sign-in) carries no secret')
  const collection = (await app.inject({ url: '/api/docs/postman.json' })).json() as { variable: Array<{ key: string, value: string }> }
  t.equal(collection.variable.find((v) => v.key === 'clientSecret')?.value, '', 'nor does the collection')

  // the operator registers partners, whose secrets only the operator is given
  const registered = await app.inject({ method: 'POST', url: '/__sandbox/admin/partners', headers: { authorization: `Bearer ${ADMIN}` }, payload: { clientId: 'acme' } })
  t.equal(registered.statusCode, 200)
  t.equal(await clientCredentials(app, 'acme', (registered.json() as { clientSecret: string }).clientSecret), 200)
  // a reset of every partner does not bring the scenario's back
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/admin/reset', headers: { authorization: `Bearer ${ADMIN}` }, payload: {} })).statusCode, 200)
  t.same([...app.world.partners.keys()], ['acme'])
})

t.test('hosted with SANDBOX_SCENARIO_PARTNERS=on: the scenario partners exist, but no published secret or password works, before or after a reset', async (t) => {
  const app = await build(t, { ...HOSTED, scenarioPartners: 'on' })
  const a = app.world.partner('partner-a')!
  t.ok(a, 'partner-a exists')
  const b = app.world.partner('partner-b')!
  t.notOk(app.world.secrets.verify(a.secretHash, 'partner-a-secret'), 'with a secret of its own, not the published one')
  t.not(a.secretHash, b.secretHash, 'each its own')
  t.equal(await clientCredentials(app, 'partner-a', 'partner-a-secret'), 401)
  t.equal(await clientCredentials(app, 'partner-b', 'partner-b-secret'), 401)
  t.equal((await postmanEnvironment(app)).clientSecret, '')

  // nobody is shown the generated secret: the operator rotates it to learn one, and gives it to the partner
  const rotated = await app.inject({ method: 'POST', url: '/__sandbox/admin/partners/partner-a/secret', headers: { authorization: `Bearer ${ADMIN}` }, payload: {} })
  t.equal(rotated.statusCode, 200)
  const secret = (rotated.json() as { clientSecret: string }).clientSecret
  t.ok(secret.length >= 32, 'a long random one')
  t.equal(await clientCredentials(app, 'partner-a', secret), 200)
  t.equal(await passwordGrant(app, 'alice', 'alice-password', secret), 401, 'the published test user password is refused (invalid_grant, as Keycloak answers it), even with the right client secret')

  // the secret survives the partner's reset, which never brings the published ones back
  const token = await tokenFor(app, { client: 'partner-a', secret })
  t.equal((await app.inject({ method: 'POST', url: '/__sandbox/reset', headers: { authorization: `Bearer ${token}` }, payload: {} })).statusCode, 200)
  t.equal(await clientCredentials(app, 'partner-a', secret), 200, 'a reset keeps the secret')
  t.equal(await clientCredentials(app, 'partner-a', 'partner-a-secret'), 401)
  t.equal(await passwordGrant(app, 'alice', 'alice-password', secret), 401, 'nor the published password')
})

t.test('HSTS is sent when the public URL is https and the profile (or SANDBOX_HSTS) asks for it', async (t) => {
  const header = async (overrides: Record<string, unknown>): Promise<unknown> =>
    (await (await build(t, overrides)).inject({ url: '/api/banks' })).headers['strict-transport-security']
  t.equal(await header({ ...HOSTED, publicUrl: 'https://sandbox.example.com' }), 'max-age=31536000 ; includeSubDomains', 'hosted over https: as Spring Security writes it')
  t.equal(await header({ ...HOSTED, publicUrl: 'http://sandbox.example.com' }), undefined, 'never over plain http')
  t.equal(await header({ publicUrl: 'https://sandbox.example.com' }), undefined, 'local: none, as before')
})

t.test("docs/hosting.md's table of local against hosted is the one generated from src/config.ts", async (t) => {
  const page = readFileSync(new URL('../docs/hosting.md', import.meta.url), 'utf8')
  const m = /<!-- hosting-table:start[^\n]*-->\n([\s\S]*?)\n<!-- hosting-table:end -->/.exec(page)
  t.ok(m, 'the table markers are there')
  t.equal(m?.[1], hostingTable(), 'up to date: run `npx tsx scripts/config-table.ts hosting` and paste its output')
})
