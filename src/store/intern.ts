/**
 * One copy of each short text that stored records repeat. A parsed request body brings new strings every
 * time, so a partner's test suite that sends the same message, department, person or beneficiary name over
 * and over stored one copy per record: under W2 (bench/run.ts, Node 24) the messages' three texts were 120 of
 * the 250 bytes each stored message took in the heap snapshot, and every copy survived the young
 * generation's collections to be copied into the old one. Pooled, the request's own copy dies young.
 *
 * Bounded: texts up to MAX_LENGTH characters (longer ones rarely repeat and cost more to look up), at most
 * MAX_ENTRIES of them (the pool starts again when full, so a partner sending only distinct texts costs a map
 * insert per text and at most MAX_ENTRIES * MAX_LENGTH characters). Strings are values: sharing one between
 * partners shares nothing a partner can observe.
 */
const MAX_LENGTH = 256
const MAX_ENTRIES = 8192

const pool = new Map<string, string>()

export function intern (text: string): string
export function intern (text: string | undefined): string | undefined
export function intern (text: string | undefined): string | undefined {
  if (text === undefined || text.length > MAX_LENGTH) return text
  const known = pool.get(text)
  if (known !== undefined) return known
  if (pool.size >= MAX_ENTRIES) pool.clear()
  pool.set(text, text)
  return text
}
