import t from 'tap'
import * as client from 'openid-client'
import { listen } from '../helper.js'
import { browse, follow, Jar } from './flow.js'

t.test('lockout on the login page: after N wrong passwords the right one fails too, for the login page and the password grant alike', async (t) => {
  const { base } = await listen(t, { lockoutFailures: 2, lockoutSeconds: 2 })
  const issuer = new URL(`${base}/auth/realms/sandbox`)
  const web = await client.discovery(issuer, 'partner-a-web', undefined, client.None(), { execute: [client.allowInsecureRequests] })
  const redirectUri = 'http://localhost:5173/'
  const authUrl = client.buildAuthorizationUrl(web, { redirect_uri: redirectUri, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })
  const jar = new Jar()
  const login = await follow(jar, await browse(jar, authUrl), authUrl, redirectUri)
  await login.res.text()
  const submit = async (password: string): Promise<Response> => await browse(jar, login.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'alice', password }).toString()
  })
  for (let i = 0; i < 2; i++) t.match(await (await submit('wrong')).text(), /Invalid username or password/)
  const locked = await submit('alice-password')
  t.equal(locked.status, 200, 'the form again, no redirect')
  t.match(await locked.text(), /Invalid username or password/, 'the right password is refused while locked, with the same message')
  const partnerA = await client.discovery(issuer, 'partner-a', 'partner-a-secret', client.ClientSecretBasic('partner-a-secret'), { execute: [client.allowInsecureRequests] })
  const grant = await client.genericGrantRequest(partnerA, 'password', { username: 'alice', password: 'alice-password' }).then(() => 'ok', (e: { error?: string }) => e.error)
  t.equal(grant, 'invalid_grant', 'the user is locked for the password grant too')
  await new Promise((resolve) => setTimeout(resolve, 2100))
  const after = await submit('alice-password')
  t.equal(after.status, 303, 'after the lock the right password signs in')
})
