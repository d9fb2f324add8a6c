import t from 'tap'
import * as client from 'openid-client'
import { decodeJwt } from 'jose'
import { listen } from '../helper.js'
import { signInAt } from './flow.js'

const ADMIN_TOKEN = 'operator-secret-0123456789'

t.test('a public client (no secret, PKCE) signs a test user in from a localhost app on any port', async (t) => {
  const { base } = await listen(t, { adminToken: ADMIN_TOKEN })
  const issuer = new URL(`${base}/auth/realms/sandbox`)
  const web = await client.discovery(issuer, 'partner-a-web', undefined, client.None(), { execute: [client.allowInsecureRequests] })

  for (const redirectUri of ['http://localhost:5173/callback', 'http://127.0.0.1:43210/']) {
    await t.test(`redirect URI ${redirectUri}`, async (t) => {
      const verifier = client.randomPKCECodeVerifier()
      const authUrl = client.buildAuthorizationUrl(web, { redirect_uri: redirectUri, scope: 'openid', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' })
      const back = await signInAt(authUrl, redirectUri, 'alice', 'alice-password')
      t.ok(back.href.startsWith(redirectUri), `back at ${back.href}`)
      const tokens = await client.authorizationCodeGrant(web, back, { pkceCodeVerifier: verifier })
      const at = decodeJwt(tokens.access_token)
      t.equal(at.azp, 'partner-a-web', 'azp is the public client')
      t.equal(at.client_id, 'partner-a', 'client_id is the partner it acts for')
      t.equal(at.preferred_username, 'alice')
      t.same(at['allowed-origins'], ['http://localhost', 'http://127.0.0.1'])
      const res = await fetch(`${base}/api/users/current/customers`, { headers: { authorization: `Bearer ${tokens.access_token}`, 'agent-id': '1001' } })
      t.equal(res.status, 200, "the API serves alice's customers")
      t.equal((await res.json() as { customers: unknown[] }).customers.length, 3)
      const refreshed = await client.refreshTokenGrant(web, tokens.refresh_token!)
      t.equal(decodeJwt(refreshed.access_token).azp, 'partner-a-web', 'refresh works without a secret')
    })
  }

  await t.test('the token endpoint answers CORS for a localhost origin on any port', async (t) => {
    const res = await fetch(`${base}/auth/realms/sandbox/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { origin: 'http://localhost:4200', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&client_id=partner-a-web&refresh_token=nope'
    })
    t.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:4200')
    t.equal(res.headers.get('access-control-allow-credentials'), 'true')
  })

  await t.test('a redirect URI outside the registered ones is refused, and so are grants a public client has no right to', async (t) => {
    const authUrl = client.buildAuthorizationUrl(web, { redirect_uri: 'http://evil.test/callback', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })
    const res = await fetch(authUrl, { redirect: 'manual' })
    t.equal(res.status, 400)
    const noPkce = await fetch(client.buildAuthorizationUrl(web, { redirect_uri: 'http://localhost:5173/', scope: 'openid' }), { redirect: 'manual' })
    t.match(noPkce.headers.get('location') ?? await noPkce.text(), /code_challenge|PKCE/i, 'PKCE is required')
    const cc = await fetch(`${base}/auth/realms/sandbox/protocol/openid-connect/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=partner-a-web' })
    t.equal(cc.status, 401)
    t.same(await cc.json(), { error: 'unauthorized_client', error_description: 'Public client not allowed to retrieve service account' }, "Keycloak's answer (ClientCredentialsGrantType)")
  })

  await t.test('the operator API registers a partner with public clients; a taken client id is a 409', async (t) => {
    const register = (body: unknown) => fetch(`${base}/__sandbox/admin/partners`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const res = await register({ clientId: 'acme', publicClients: [{ clientId: 'acme-spa', redirectUris: ['http://localhost/*'] }] })
    t.equal(res.status, 200)
    const body = await res.json() as { summary: { publicClients: unknown[] } }
    t.same(body.summary.publicClients, [{ clientId: 'acme-spa', redirectUris: ['http://localhost/*'] }])
    const meta = await client.discovery(issuer, 'acme-spa', undefined, client.None(), { execute: [client.allowInsecureRequests] })
    const page = await fetch(client.buildAuthorizationUrl(meta, { redirect_uri: 'http://localhost:3000/', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }), { redirect: 'manual' })
    t.equal(page.status, 303, 'the new public client can start a sign-in')
    t.equal((await register({ clientId: 'acme-2', publicClients: [{ clientId: 'partner-b-web', redirectUris: ['http://localhost/*'] }] })).status, 409, "another partner's public client id")
    t.equal((await register({ publicClients: [{ clientId: 'x', redirectUris: [] }] })).status, 400, 'an invalid public client')
  })
})
