import { createHash, createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto'
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose'
import { ConfigError } from '../config.js'

export interface SigningKeys {
  /** Private RS256 key as a JWK, for the provider's keystore. */
  privateJwk: JWK
  /** Its public half, for local verification in the resource server. */
  publicJwk: JWK
  /** Keys for the provider's signed cookies, derived from the signing key so sessions survive restarts. */
  cookieKeys: string[]
  /** Where it came from, for the start-up log. */
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

async function complete (jwk: JWK, source: SigningKeys['source']): Promise<SigningKeys> {
  const privateJwk: JWK = { ...jwk, alg: 'RS256', use: 'sig' }
  privateJwk.kid = jwk.kid ?? await calculateJwkThumbprint(privateJwk)
  const { d, p, q, dp, dq, qi, ...publicJwk } = privateJwk
  const cookieKeys = [createHash('sha256').update(`cookies:${String(d)}`).digest('base64url')]
  return { privateJwk, publicJwk, cookieKeys, source }
}

/**
 * The token signing key: from configuration (PEM, PKCS#1 or PKCS#8, or JWK JSON), else the one kept in the data dir,
 * else a new one (written to the data dir when there is one, with owner-only permissions).
 */
export async function loadSigningKeys (configured: string | undefined, dataDir: string | undefined): Promise<SigningKeys> {
  if (configured !== undefined) {
    try {
      return await complete(fromText(configured), 'configuration')
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
        return await complete(fromText(text), 'data dir')
      } catch (err) {
        throw new Error(`the signing key ${file} is not a private RSA JWK: ${(err as Error).message}`)
      }
    }
  }
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true })
  const keys = await complete(await exportJWK(privateKey), 'generated')
  if (file !== undefined) {
    await mkdir(join(dataDir!, 'keys'), { recursive: true, mode: 0o700 })
    await writeFile(`${file}.tmp`, JSON.stringify(keys.privateJwk), { mode: 0o600 })
    await rename(`${file}.tmp`, file)
    await chmod(file, 0o600)
  }
  return keys
}
