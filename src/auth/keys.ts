import { createHash, createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose'
import { ConfigError } from '../config.js'

/** One RSA signing key. */
export interface SigningKey {
  /** Private RS256 key as a JWK (with its kid), for the provider's keystore. */
  privateJwk: JWK
  /** Its public half, for local verification in the resource server and the JWKS. */
  publicJwk: JWK
}

export interface SigningKeys extends SigningKey {
  /**
   * Every key the sandbox accepts, the current one (privateJwk above) first: the JWKS publishes them all and a
   * token signed by any of them verifies (by its kid), so that a new key rolls across replicas without
   * invalidating the tokens of the old one. A key no longer listed makes its tokens invalid.
   */
  accepted: SigningKey[]
  /** Keys for the provider's signed cookies, derived from the signing keys (the current one signs, all verify), so sessions survive restarts and rotations. */
  cookieKeys: string[]
  /** Where they came from, for the start-up log. */
  source: 'configuration' | 'data dir' | 'generated'
}

/** Why a PEM text is no RSA private key, without a word of the text itself (it may be part of a key). */
function pemProblem (pem: string, err: unknown): string {
  const label = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem)?.[1]
  if (label === undefined) return 'neither PEM (no -----BEGIN ...----- line) nor JSON'
  if (/PUBLIC KEY|CERTIFICATE/.test(label)) return `${label.includes('CERTIFICATE') ? 'a certificate' : 'a public key'} ("BEGIN ${label}"), not the private key`
  if ((err as { code?: string }).code === 'ERR_MISSING_PASSPHRASE' || /ENCRYPTED/.test(label) || pem.includes('Proc-Type: 4,ENCRYPTED')) return 'the key is encrypted with a passphrase (give it unencrypted)'
  if (pem.includes('\\n')) return 'the PEM has the two characters \\n where its line breaks belong'
  return `the PEM block "BEGIN ${label}" could not be read as a private key`
}

function privateKey (text: string): { key: KeyObject, kid?: string } {
  const trimmed = text.trim()
  if (!trimmed.startsWith('{')) {
    try {
      return { key: createPrivateKey({ key: trimmed, format: 'pem' }) }
    } catch (err) {
      throw new Error(pemProblem(trimmed, err))
    }
  }
  let jwk: JWK
  try {
    jwk = JSON.parse(trimmed) as JWK
  } catch {
    // JSON.parse's message quotes the text around the fault: part of a private key
    throw new Error('not valid JSON')
  }
  if (jwk.kty !== 'RSA' || jwk.d === undefined) throw new Error('expected a private RSA JWK')
  try {
    return { key: createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }), kid: jwk.kid }
  } catch {
    throw new Error('the JWK is not a usable RSA private key')
  }
}

/** The signing key as a private JWK: RSA (RS256) of 2048 bits or more, from PEM (PKCS#1 or PKCS#8) or JWK JSON. */
function fromText (text: string): JWK {
  const { key, kid } = privateKey(text)
  const type = String(key.asymmetricKeyType)
  if (type === 'rsa-pss') throw new Error('an RSA-PSS key, which cannot sign RS256 (PKCS#1 v1.5) tokens')
  if (type !== 'rsa') throw new Error(`a key of type ${type.toUpperCase()}, not RSA (tokens are signed RS256)`)
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
  if (bits < 2048) throw new Error(`an RSA key of ${bits} bits (RS256 needs 2048 or more)`)
  const jwk = key.export({ format: 'jwk' }) as JWK
  return kid === undefined ? jwk : { ...jwk, kid }
}

async function complete (jwk: JWK): Promise<SigningKey> {
  const privateJwk: JWK = { ...jwk, alg: 'RS256', use: 'sig' }
  privateJwk.kid = jwk.kid ?? await calculateJwkThumbprint(privateJwk)
  const { d, p, q, dp, dq, qi, oth, ...publicJwk } = privateJwk
  return { privateJwk, publicJwk }
}

const cookieKeyOf = (key: SigningKey): string => createHash('sha256').update(`cookies:${String(key.privateJwk.d)}`).digest('base64url')

/** The keys, the current one first (a kid given twice must name the same key: that one is kept once). */
function keySet (keys: SigningKey[], source: SigningKeys['source']): SigningKeys {
  const accepted: SigningKey[] = []
  for (const key of keys) {
    const same = accepted.find((k) => k.privateJwk.kid === key.privateJwk.kid)
    if (same === undefined) accepted.push(key)
    else if (same.privateJwk.n !== key.privateJwk.n || same.privateJwk.d !== key.privateJwk.d) throw new Error(`two different keys have the kid ${String(key.privateJwk.kid)}`)
  }
  return { ...accepted[0], accepted, cookieKeys: accepted.map(cookieKeyOf), source }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g

/** The i-th key of a list, or why not, saying which. */
function keyOfList (i: number, read: () => JWK): JWK {
  try {
    return read()
  } catch (err) {
    throw new Error(`key ${i + 1}: ${(err as Error).message}`)
  }
}

/** The keys a text holds, in its order: PEM blocks one after another, a JSON array of JWKs, a JWK Set, or one JWK. */
function keysInText (text: string): JWK[] {
  const trimmed = text.trim()
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let value: unknown
    try {
      value = JSON.parse(trimmed)
    } catch {
      throw new Error('not valid JSON')
    }
    const list = Array.isArray(value) ? value : Array.isArray((value as { keys?: unknown }).keys) ? (value as { keys: unknown[] }).keys : [value]
    return list.map((jwk, i) => keyOfList(i, () => {
      if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) throw new Error('expected a private RSA JWK')
      return fromText(JSON.stringify(jwk))
    }))
  }
  const blocks = trimmed.match(PEM_BLOCK) ?? []
  if (blocks.length === 0) throw new Error('no PEM block, JWK or JSON array of JWKs')
  return blocks.map((block, i) => keyOfList(i, () => fromText(block)))
}

/**
 * SANDBOX_SIGNING_KEYS: the text itself (PEM blocks or JWKs, the current key first), or the path of a file
 * holding such a text, or of a directory whose files (names starting with a dot left out, as Kubernetes
 * mounts a Secret) each hold keys: there the file whose name sorts last holds the current key.
 */
async function keysOf (value: string): Promise<JWK[]> {
  const trimmed = value.trim()
  if (trimmed.startsWith('-----') || trimmed.startsWith('[') || trimmed.startsWith('{')) return keysInText(trimmed)
  let isDirectory: boolean
  try {
    isDirectory = (await stat(trimmed)).isDirectory()
  } catch {
    // (not quoted: a key pasted without its BEGIN line would land in a log)
    throw new Error('neither keys (PEM, JWK JSON) nor the path of a file or directory that can be read')
  }
  if (!isDirectory) return keysInText(await readFile(trimmed, 'utf8'))
  const names = (await readdir(trimmed, { withFileTypes: true }))
    .filter((e) => !e.name.startsWith('.') && (e.isFile() || e.isSymbolicLink()))
    .map((e) => e.name).sort().reverse()
  const out: JWK[] = []
  for (const name of names) {
    try {
      out.push(...keysInText(await readFile(join(trimmed, name), 'utf8')))
    } catch (err) {
      throw new Error(`file ${name}: ${(err as Error).message}`)
    }
  }
  if (out.length === 0) throw new Error(`the directory ${trimmed} holds no key files`)
  return out
}

/** Whether loadSigningKeys will generate the key: none configured, and none kept in the data dir. */
export function generatesSigningKey (configured: string | undefined, dataDir: string | undefined, configuredList?: string): boolean {
  return configured === undefined && configuredList === undefined && (dataDir === undefined || !existsSync(join(dataDir, 'keys', 'signing-key.json')))
}

/**
 * The token signing keys: from configuration (SANDBOX_SIGNING_KEY: one key, PEM or JWK JSON;
 * SANDBOX_SIGNING_KEYS: several, the current one first, see keysOf), else the one kept in the data dir, else
 * a new one (written to the data dir when there is one, with owner-only permissions).
 */
export async function loadSigningKeys (configured: string | undefined, dataDir: string | undefined, configuredList?: string): Promise<SigningKeys> {
  if (configuredList !== undefined) {
    try {
      return keySet(await Promise.all((await keysOf(configuredList)).map(complete)), 'configuration')
    } catch (err) {
      throw new ConfigError(`invalid option --signing-keys / SANDBOX_SIGNING_KEYS: ${(err as Error).message} (expected unencrypted RSA private keys of 2048 bits or more, the current one first: PEM blocks (PKCS#8 or PKCS#1) one after another, a JSON array of JWKs or a JWK Set; or the path of a file holding them, or of a directory of key files where the name that sorts last is the current key)`)
    }
  }
  if (configured !== undefined) {
    try {
      return keySet([await complete(fromText(configured))], 'configuration')
    } catch (err) {
      throw new ConfigError(`invalid option --signing-key / SANDBOX_SIGNING_KEY: ${(err as Error).message} (expected an unencrypted RSA private key of 2048 bits or more: PEM, PKCS#1 "BEGIN RSA PRIVATE KEY" or PKCS#8 "BEGIN PRIVATE KEY", or JWK JSON)`)
    }
  }
  const file = dataDir === undefined ? undefined : join(dataDir, 'keys', 'signing-key.json')
  if (file !== undefined) {
    let text: string | undefined
    try {
      text = await readFile(file, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read the signing key ${file}: ${(err as Error).message}`)
    }
    if (text !== undefined) {
      try {
        return keySet([await complete(fromText(text))], 'data dir')
      } catch (err) {
        throw new Error(`the signing key ${file} is not a private RSA JWK: ${(err as Error).message}`)
      }
    }
  }
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true })
  const keys = keySet([await complete(await exportJWK(privateKey))], 'generated')
  if (file !== undefined) {
    await mkdir(join(dataDir!, 'keys'), { recursive: true, mode: 0o700 })
    await writeFile(`${file}.tmp`, JSON.stringify(keys.privateJwk), { mode: 0o600 })
    await rename(`${file}.tmp`, file)
    await chmod(file, 0o600)
  }
  return keys
}
