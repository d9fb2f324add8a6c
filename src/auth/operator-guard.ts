import type { FastifyRequest } from 'fastify'
import { SandboxError } from '../errors.js'
import { addressKey, type Lockout } from './lockout.js'
import { sameSecret } from './same-secret.js'

/*
 * The operator token (SANDBOX_ADMIN_TOKEN) is one secret for everyone: no client or user to lock, so its wrong
 * guesses are counted per source address (request.ip: the client's own behind a proxy with SANDBOX_TRUST_PROXY),
 * the operator console's sign-in and the /__sandbox/admin bearer together. SANDBOX_ADDRESS_LOCKOUT_FAILURES wrong
 * tokens in a row lock the address for SANDBOX_ADDRESS_LOCKOUT_SECONDS: then every token it sends, the right one
 * included, is answered with the same 429 and Retry-After, without being compared. Unlike a client's lockout
 * (answered as a wrong secret, as Keycloak does) the lock is told: an address is no account, telling it reveals
 * nothing about the token, and the operator learns why the right token is refused.
 */

const OPERATOR_TOKEN = 'operator-token'

/** The answer to every operator token from a locked address, right or wrong. */
function addressLocked (seconds: number): SandboxError {
  return new SandboxError('SANDBOX_ERR_RATE_LIMITED', `Too many wrong operator tokens from this address: every operator token it sends is refused for up to ${seconds} seconds`, [], {
    'retry-after': String(seconds)
  })
}

/** Resolves when `given` is the operator token; else throws `wrong()`, or while the request's address is locked the 429. */
export async function checkOperatorToken (guard: Lockout, request: FastifyRequest, adminToken: string, given: string | undefined, wrong: () => SandboxError): Promise<void> {
  const verdict = await guard.attempt(addressKey(request.ip, OPERATOR_TOKEN), () => given !== undefined && sameSecret(adminToken, given))
  if (verdict === 'locked') throw addressLocked(guard.lockSeconds)
  if (verdict === 'wrong') throw wrong()
}
