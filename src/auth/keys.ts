import { createHash } from 'node:crypto'
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importPKCS8, type JWK } from 'jose'
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

async function fromText (text: string): Promise<JWK> {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    let jwk: JWK
    try {
      jwk = JSON.parse(trimmed) as JWK
    } catch {
      // JSON.parse's message quotes the text around the fault: part of a private key
      throw new Error('not valid JSON')
    }
    if (jwk.kty !== 'RSA' || jwk.d === undefined) throw new Error('expected a private RSA JWK')
    return jwk
  }
  const key = await importPKCS8(trimmed, 'RS256', { extractable: true })
  return await exportJWK(key)
}

async function complete (jwk: JWK, source: SigningKeys['source']): Promise<SigningKeys> {
  const privateJwk: JWK = { ...jwk, alg: 'RS256', use: 'sig' }
  privateJwk.kid = jwk.kid ?? await calculateJwkThumbprint(privateJwk)
  const { d, p, q, dp, dq, qi, ...publicJwk } = privateJwk
  const cookieKeys = [createHash('sha256').update(`cookies:${String(d)}`).digest('base64url')]
  return { privateJwk, publicJwk, cookieKeys, source }
}

/**
 * The token signing key: from configuration (PEM PKCS#8 or JWK JSON), else the one kept in the data dir,
 * else a new one (written to the data dir when there is one, with owner-only permissions).
 */
export async function loadSigningKeys (configured: string | undefined, dataDir: string | undefined): Promise<SigningKeys> {
  if (configured !== undefined) {
    try {
      return await complete(await fromText(configured), 'configuration')
    } catch (err) {
      throw new ConfigError(`invalid option --signing-key / SANDBOX_SIGNING_KEY: ${(err as Error).message} (expected an RSA private key as PKCS#8 PEM or JWK JSON)`)
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
        return await complete(await fromText(text), 'data dir')
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
