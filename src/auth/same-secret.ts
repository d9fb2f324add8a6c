import { timingSafeEqual } from 'node:crypto'

/** Two secrets compared in time that does not depend on where they differ (passwords, client secrets, tokens). */
export function sameSecret (a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
