import { createPublicKey, generateKeyPairSync } from 'node:crypto'
import Fastify from 'fastify'
import { exportJWK, type JWK } from 'jose'
import t from 'tap'
import keycloakPages from '../../src/auth/keycloak-pages.js'
import { generatesSigningKey } from '../../src/auth/keys.js'
import { TokenVerifier } from '../../src/auth/verify.js'
import { PUBLIC_URL, SIGNING_KEY, build, tokenFor } from '../helper.js'

/*
 * A sandbox that makes its own signing key does not wait for it at start (src/auth/index.ts keysGenerated):
 * what needs the key waits for it instead, and answers once it is there.
 */

const ISSUER = `${PUBLIC_URL}/auth/realms/sandbox`

/** A key being made: resolve() hands it over. */
function pendingKey (): { publicJwk: Promise<JWK>, resolve: (jwk: JWK) => void } {
  let handOver: (jwk: JWK) => void = () => {}
  const publicJwk = new Promise<JWK>((resolve) => { handOver = resolve })
  return { publicJwk, resolve: (jwk) => handOver(jwk) }
}

const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })

t.test('a token checked before the key is made is checked once it is', async (t) => {
  // a real access token of the sandbox (test/helper.ts signs with SIGNING_KEY)
  const token = await tokenFor(await build(t))
  const key = pendingKey()
  const verifier = new TokenVerifier(key.publicJwk.then((k) => [k]), `${PUBLIC_URL}/auth/realms/sandbox`, `${PUBLIC_URL}/api`)
  let settled = false
  const verified = verifier.verify(token).finally(() => { settled = true })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.notOk(settled, 'it waits while the key is being made')
  const { kid } = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as { kid: string }
  key.resolve({ ...await exportJWK(createPublicKey(SIGNING_KEY)), kid, alg: 'RS256', use: 'sig' })
  const claims = await verified
  t.equal(claims.clientId, 'partner-a', 'and verifies with it')
})

t.test('the realm information answers once the key is made', async (t) => {
  const key = pendingKey()
  const app = Fastify()
  await app.register(keycloakPages, { prefix: '/auth/realms/sandbox', issuer: ISSUER, publicJwk: key.publicJwk, clientOrigins: () => undefined })
  await app.ready()
  t.teardown(() => app.close())
  let answered = false
  const res = app.inject({ url: '/auth/realms/sandbox' }).then((r) => { answered = true; return r })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.notOk(answered, 'the app is ready; the realm information waits for the key')
  key.resolve(await exportJWK(publicKey))
  const body = (await res).json() as { public_key: string }
  t.equal(body.public_key, publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), 'then carries its public half')
})

t.test('only a key the sandbox makes itself is not waited for', async (t) => {
  t.ok(generatesSigningKey(undefined, undefined), 'none configured, no data dir: made')
  t.notOk(generatesSigningKey('-----BEGIN PRIVATE KEY-----', undefined), 'one configured: loaded (and a bad one stops the start)')
  t.notOk(generatesSigningKey(undefined, undefined, '/keys'), 'several configured: loaded')
})
