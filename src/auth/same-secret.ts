import { hash, timingSafeEqual } from 'node:crypto'

/**
 * Two secrets compared in time that depends neither on where they differ nor on their lengths (passwords,
 * client secrets, tokens, CSRF values): both are hashed to SHA-256 first, so timingSafeEqual always compares
 * 32 bytes with 32 bytes; a value sent in place of a secret that is missing or repeated (a string array) is no secret.
 */
export function sameSecret (known: string, given: unknown): boolean {
  if (typeof given !== 'string') return false
  return timingSafeEqual(hash('sha256', known, 'buffer'), hash('sha256', given, 'buffer'))
}
