import type { AddressInfo } from 'node:net'
import t from 'tap'
import express from 'express'
import Keycloak from 'keycloak-connect'
import { listen } from '../helper.js'

/*
 * keycloak-connect (Keycloak's Node.js adapter, from npm) configured for the sandbox as for a Keycloak realm:
 * bearer-only protection of an express route, the password grant and a refresh, over real HTTP.
 */

interface KcToken { token: string, content: Record<string, unknown>, isExpired: () => boolean }
interface Grant { access_token: KcToken, refresh_token?: KcToken, id_token?: KcToken }
/** The adapter's grant manager as its JavaScript has it (its .d.ts leaves out the callback and scope arguments). */
interface GrantManager {
  obtainDirectly: (username: string, password: string, callback?: undefined, scope?: string) => Promise<Grant>
  ensureFreshness: (grant: Grant) => Promise<Grant>
}

t.test('keycloak-connect protects an express route with sandbox tokens, signs a user in and refreshes', async (t) => {
  const { base } = await listen(t)
  const keycloak = new Keycloak({}, {
    realm: 'sandbox',
    'auth-server-url': `${base}/auth`,
    resource: 'partner-a',
    credentials: { secret: 'partner-a-secret' },
    'bearer-only': true,
    'ssl-required': 'none',
    'confidential-port': 0
  } as unknown as Keycloak.KeycloakConfig)

  const grants = keycloak.grantManager as unknown as GrantManager

  const app = express()
  app.use(keycloak.middleware())
  app.get('/protected', keycloak.protect(), (req, res) => {
    const grant = (req as unknown as { kauth: { grant: Grant } }).kauth.grant
    res.json({ username: grant.access_token.content.preferred_username, agents: grant.access_token.content.agent_id })
  })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.teardown(() => server.close())
  const route = `http://127.0.0.1:${(server.address() as AddressInfo).port}/protected`

  await t.test('bearer-only: a sandbox token opens the route, none or a bad one does not', async (t) => {
    const tokenRes = await fetch(`${base}/auth/realms/sandbox/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials'
    })
    const { access_token: token } = await tokenRes.json() as { access_token: string }
    const ok = await fetch(route, { headers: { authorization: `Bearer ${token}` } })
    t.equal(ok.status, 200)
    t.same(await ok.json(), { username: 'service-account-partner-a', agents: ['1001', '1002'] })
    t.equal((await fetch(route)).status, 403, 'no token')
    const tampered = `${token.slice(0, -6)}AAAAAA`
    t.equal((await fetch(route, { headers: { authorization: `Bearer ${tampered}` } })).status, 403, 'a bad signature')
  })

  await t.test('the password grant gives a grant whose tokens the adapter validates (typ Bearer, ID, Refresh)', async (t) => {
    const grant = await grants.obtainDirectly('alice', 'alice-password', undefined, 'openid')
    t.equal(grant.access_token.content.preferred_username, 'alice')
    t.equal(grant.id_token?.content.typ, 'ID', 'the ID token passed the adapter\'s typ check')
    t.ok(grant.refresh_token !== undefined && !grant.refresh_token.isExpired(), 'the refresh token is a JWT the adapter reads')
    const ok = await fetch(route, { headers: { authorization: `Bearer ${grant.access_token.token}` } })
    t.same(await ok.json(), { username: 'alice', agents: ['1001'] })

    // an access token the adapter thinks expired: ensureFreshness refreshes it with the refresh token
    const before = grant.access_token.token
    grant.access_token.content.exp = 1
    const fresh = await grants.ensureFreshness(grant)
    t.not(fresh.access_token.token, before, 'a new access token')
    t.equal(fresh.access_token.content.preferred_username, 'alice')
    t.equal((await fetch(route, { headers: { authorization: `Bearer ${fresh.access_token.token}` } })).status, 200)
  })

  await t.test('a wrong password is refused as Keycloak refuses it', async (t) => {
    const err = await grants.obtainDirectly('alice', 'wrong').then(() => undefined, (e: Error) => e)
    t.match(err?.message, /401/)
  })
})
