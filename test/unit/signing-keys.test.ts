import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { exportJWK, type JWK } from 'jose'
import { loadConfig } from '../../src/config.js'
import { loadSigningKeys, type SigningKeys } from '../../src/auth/keys.js'

/* SANDBOX_SIGNING_KEY and SANDBOX_SIGNING_KEYS: the forms a key may take, the current key of a list, and the refusals. */

const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 })
const [A, B, C] = [pair(), pair(), pair()]
const pkcs8 = (k: typeof A): string => k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
const pkcs1 = (k: typeof A): string => k.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()
const jwk = async (k: typeof A): Promise<JWK> => await exportJWK(k.privateKey)

const moduli = (keys: SigningKeys): string[] => keys.accepted.map((k) => String(k.publicJwk.n))
const modulus = async (k: typeof A): Promise<string> => String((await jwk(k)).n)

function tempDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-keys-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test('one key: PKCS#8 PEM, PKCS#1 PEM or a JWK, with derived cookie keys and a thumbprint kid', async (t) => {
  for (const [form, text] of [['PKCS#8', pkcs8(A)], ['PKCS#1', pkcs1(A)], ['JWK', JSON.stringify(await jwk(A))]]) {
    const keys = await loadSigningKeys(text, undefined)
    t.same(moduli(keys), [await modulus(A)], `${form}: the key`)
    t.equal(keys.source, 'configuration')
    t.equal(keys.cookieKeys.length, 1)
    t.type(keys.privateJwk.kid, 'string')
    t.notOk('d' in keys.publicJwk, `${form}: the public half has no private part`)
  }
  const a = await loadSigningKeys(pkcs8(A), undefined)
  const again = await loadSigningKeys(pkcs1(A), undefined)
  t.equal(a.privateJwk.kid, again.privateJwk.kid, 'the kid depends on the key, not its form')
  t.same(a.cookieKeys, again.cookieKeys, 'and so do the cookie keys')
})

t.test('several keys: the current one first, every one accepted, a cookie key each', async (t) => {
  const expected = [await modulus(A), await modulus(B), await modulus(C)]
  const forms: Array<[string, string]> = [
    ['PEM blocks', `${pkcs8(A)}\n${pkcs1(B)}${pkcs8(C)}`],
    ['a JSON array of JWKs', JSON.stringify([await jwk(A), await jwk(B), await jwk(C)])],
    ['a JWK Set', JSON.stringify({ keys: [await jwk(A), await jwk(B), await jwk(C)] })]
  ]
  for (const [form, text] of forms) {
    const keys = await loadSigningKeys(undefined, undefined, text)
    t.same(moduli(keys), expected, form)
    t.equal(keys.privateJwk.n, expected[0], `${form}: the first signs`)
    t.equal(keys.cookieKeys.length, 3)
    t.equal(new Set(keys.cookieKeys).size, 3)
  }
  const dir = tempDir(t)
  const file = join(dir, 'keys.pem')
  writeFileSync(file, forms[0][1])
  t.same(moduli(await loadSigningKeys(undefined, undefined, file)), expected, 'a file holding them')
  t.same(moduli(await loadSigningKeys(undefined, undefined, `${pkcs8(A)}${pkcs8(A)}${pkcs8(B)}`)), [expected[0], expected[1]], 'a key given twice is kept once')
})

t.test('a directory of key files: the name that sorts last holds the current key; hidden files are left out', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, '2025-12-signing.pem'), pkcs8(A))
  writeFileSync(join(dir, '2026-06-signing.json'), JSON.stringify(await jwk(C)))
  writeFileSync(join(dir, '2026-01-signing.pem'), pkcs1(B))
  writeFileSync(join(dir, '..data'), 'what Kubernetes mounts beside a Secret')
  t.same(moduli(await loadSigningKeys(undefined, undefined, dir)), [await modulus(C), await modulus(B), await modulus(A)])
  await t.rejects(loadSigningKeys(undefined, undefined, tempDir(t)), /invalid option --signing-keys \/ SANDBOX_SIGNING_KEYS: the directory .* holds no key files/)
  writeFileSync(join(dir, '2026-09-broken.pem'), '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')
  await t.rejects(loadSigningKeys(undefined, undefined, dir), /file 2026-09-broken\.pem: key 1: the PEM block "BEGIN PRIVATE KEY" could not be read as a private key/)
})

t.test('what is not a list of RSA private keys is refused at start, naming the option and the key, never quoting it', async (t) => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  const cases: Array<[string, RegExp]> = [
    [`${pkcs8(A)}${ec}`, /key 2: a key of type EC, not RSA/],
    ['[{"kty":"RSA","n":"x","e":"AQAB"}]', /key 1: expected a private RSA JWK/],
    ['[{"kty":', /not valid JSON/],
    ['/no/such/place', /neither keys .* nor the path of a file or directory/],
    [A.publicKey.export({ type: 'spki', format: 'pem' }).toString(), /key 1: a public key \("BEGIN PUBLIC KEY"\), not the private key/]
  ]
  for (const [text, message] of cases) {
    const err = await loadSigningKeys(undefined, undefined, text).then(() => undefined, (e: Error) => e)
    t.match(err?.message, message)
    t.match(err?.message, /^invalid option --signing-keys \/ SANDBOX_SIGNING_KEYS: /)
    t.equal(err?.name, 'ConfigError')
  }
  const a = await jwk(A)
  const b = await jwk(B)
  await t.rejects(loadSigningKeys(undefined, undefined, JSON.stringify([{ ...a, kid: 'k' }, { ...b, kid: 'k' }])), /two different keys have the kid k/)
  await t.rejects(loadSigningKeys(ec, undefined), /invalid option --signing-key \/ SANDBOX_SIGNING_KEY: a key of type EC, not RSA/)
})

t.test('configuration: one of SANDBOX_SIGNING_KEY and SANDBOX_SIGNING_KEYS; Redis needs either; the keys are never echoed', async (t) => {
  t.throws(() => loadConfig({ signingKey: pkcs8(A), signingKeys: pkcs8(B) }), /--signing-key \/ SANDBOX_SIGNING_KEY and --signing-keys \/ SANDBOX_SIGNING_KEYS exclude each other/)
  t.throws(() => loadConfig({ redisUrl: 'redis://127.0.0.1:6379' }), /needs signing keys shared by every replica: set SANDBOX_SIGNING_KEY .* or SANDBOX_SIGNING_KEYS/)
  t.equal(loadConfig({ redisUrl: 'redis://127.0.0.1:6379', signingKeys: pkcs8(A) }).signingKeys, pkcs8(A))
  t.equal(loadConfig({ redisUrl: 'redis://127.0.0.1:6379', signingKey: pkcs8(A) }).signingKey, pkcs8(A))
  t.throws(() => loadConfig({ signingKeys: '' }), /--signing-keys \/ SANDBOX_SIGNING_KEYS = \(hidden, 0 characters\)/)
})
