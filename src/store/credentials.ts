import { createHmac, createSecretKey, randomBytes, scrypt, scryptSync, timingSafeEqual, type KeyObject, type ScryptOptions } from 'node:crypto'

/*
 * Credentials at rest (issue 50): what the sandbox keeps of a client secret or a test user's password is a
 * hash, never the value, wherever it keeps state (memory, the data dir, Redis) and whatever it logs. A value is
 * only ever compared with what a caller sends (verify(secret) -> boolean): counting failures and locking out
 * is the caller's business (auth/lockout.ts), so that both stay one check each.
 *
 * - Passwords (people choose them, guessable): scrypt, salted, slow. Parameters: N = 2^14, r = 8, p = 5, a
 *   32-byte key and a 16-byte random salt per password. That is one of OWASP's equivalent scrypt settings
 *   (Password Storage Cheat Sheet) at 16 MiB per hash rather than 2^17's 128 MiB: hashes run in libuv's
 *   thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), so password grants in flight hold at
 *   most 64 MiB, and the token rate limit bounds how many a client may start (docs/operations.md). The
 *   parameters travel in each stored hash, so raising them later keeps older hashes valid.
 * - Client secrets (generated: 192 random bits, or an operator's choice): HMAC-SHA-256 keyed with a
 *   server-side pepper. Fast (a microsecond), so that client-credentials token requests cost what they cost
 *   before; without the pepper a copy of the data dir or of Redis cannot even test a guess of an operator's
 *   chosen secret. Where the pepper comes from: credential-keys.ts.
 */

const PASSWORD_PREFIX = '$scrypt$'
const SECRET_PREFIX = 'hmac-sha256$'

export const PASSWORD_HASH = { N: 1 << 14, r: 8, p: 5, keyLength: 32, saltLength: 16 }
// scrypt needs 128 * N * r * p bytes... of which N * r * 128 at once: 16 MiB; twice that leaves room
const MAX_MEMORY = 64 * 1024 * 1024
// what a stored hash may ask for (one written by hand must not make every sign-in cost seconds)
const MAX_N = 1 << 17

interface PasswordParams { N: number, r: number, p: number }

function formatPassword (params: PasswordParams, salt: Buffer, key: Buffer): string {
  return `${PASSWORD_PREFIX}ln=${Math.log2(params.N)},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** A stored password hash taken apart, or undefined when it is none (then nothing matches it). */
function parsePassword (stored: string): { params: PasswordParams, salt: Buffer, key: Buffer } | undefined {
  if (!stored.startsWith(PASSWORD_PREFIX)) return undefined
  const [settings, salt, key] = stored.slice(PASSWORD_PREFIX.length).split('$')
  if (settings === undefined || salt === undefined || key === undefined) return undefined
  const values = new Map(settings.split(',').map((kv) => kv.split('=') as [string, string]))
  const ln = Number(values.get('ln'))
  const r = Number(values.get('r'))
  const p = Number(values.get('p'))
  if (![ln, r, p].every((n) => Number.isInteger(n) && n > 0) || 1 << ln > MAX_N || r > 32 || p > 16) return undefined
  return { params: { N: 1 << ln, r, p }, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') }
}

const scryptOptions = (params: PasswordParams): ScryptOptions => ({ ...params, maxmem: MAX_MEMORY })

/** A password's stored form: scrypt with a new random salt (in the thread pool: the event loop goes on). */
export async function hashPassword (password: string): Promise<string> {
  const salt = randomBytes(PASSWORD_HASH.saltLength)
  return formatPassword(PASSWORD_HASH, salt, await scryptAsync(password, salt, PASSWORD_HASH.keyLength, PASSWORD_HASH))
}

/** The same, on this thread: for a data dir migrated at start, before anything is served. */
export function hashPasswordSync (password: string): string {
  const salt = randomBytes(PASSWORD_HASH.saltLength)
  return formatPassword(PASSWORD_HASH, salt, scryptSync(password, salt, PASSWORD_HASH.keyLength, scryptOptions(PASSWORD_HASH)))
}

async function scryptAsync (password: string, salt: Buffer, keyLength: number, params: PasswordParams): Promise<Buffer> {
  return await new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, scryptOptions(params), (err, key) => { if (err === null) resolve(key); else reject(err) })
  })
}

// what an unknown user's password is checked against: the same work as a known one's, so that the time of the
// answer does not tell which usernames exist
const NO_USER = { params: PASSWORD_HASH, salt: Buffer.alloc(PASSWORD_HASH.saltLength), key: Buffer.alloc(PASSWORD_HASH.keyLength) }

/**
 * Whether the password is the one the stored hash was made of (compared in constant time). No stored hash (no
 * such user): false, after as much work as a check.
 */
export async function verifyPassword (stored: string | undefined, password: string): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parsePassword(stored)
  const against = parsed ?? NO_USER
  const key = await scryptAsync(password, against.salt, against.key.length, against.params)
  return timingSafeEqual(key, against.key) && parsed !== undefined
}

export const isPasswordHash = (value: string): boolean => value.startsWith(PASSWORD_PREFIX)

/** Client secrets hashed with the sandbox's pepper (credential-keys.ts). */
export class ClientSecrets {
  // the pepper as a key object, made once: Node 24 makes one of a Buffer at every createHmac (12 us against 3, a
  // client-credentials token request checks a secret up to three times)
  private readonly key: KeyObject

  constructor (pepper: Buffer) {
    if (pepper.length < 32) throw new Error('the client secret pepper must have 32 bytes or more')
    this.key = createSecretKey(pepper)
  }

  /** A pepper of this process only: for a sandbox whose partners live no longer than it (memory). */
  static generated (): ClientSecrets {
    return new ClientSecrets(randomBytes(32))
  }

  private mac (secret: string): Buffer {
    return createHmac('sha256', this.key).update(secret, 'utf8').digest()
  }

  hash (secret: string): string {
    return SECRET_PREFIX + this.mac(secret).toString('base64url')
  }

  /** Whether the secret is the one the stored hash was made of (compared in constant time; no stored hash: false). */
  verify (stored: string | undefined, secret: string): boolean {
    const mac = this.mac(secret)
    const expected = stored?.startsWith(SECRET_PREFIX) === true ? Buffer.from(stored.slice(SECRET_PREFIX.length), 'base64url') : undefined
    return expected !== undefined && expected.length === mac.length && timingSafeEqual(expected, mac)
  }
}

export const isSecretHash = (value: string): boolean => value.startsWith(SECRET_PREFIX)

/**
 * The hashes of a scenario's published test passwords, made once each: every reset rebuilds a partner's users,
 * and a slow hash per user per reset would make resets slow. (One salt per password then, for every user of
 * every partner that has it: these passwords are in the scenario files anyway.)
 */
export class PasswordHashes {
  private readonly known = new Map<string, string>()

  /** The stored form of a password: made on this thread when it was not prepared. */
  of (password: string): string {
    let hash = this.known.get(password)
    if (hash === undefined) this.known.set(password, hash = hashPasswordSync(password))
    return hash
  }

  /** Hashes these passwords in the thread pool, side by side (at start: the start scenario's users). */
  async prepare (passwords: Iterable<string>): Promise<void> {
    const missing = [...new Set(passwords)].filter((p) => !this.known.has(p))
    const hashes = await Promise.all(missing.map(hashPassword))
    missing.forEach((p, i) => this.known.set(p, hashes[i]))
  }
}
