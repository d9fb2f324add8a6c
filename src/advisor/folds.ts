/* Helpers of the advisor's folds (advice.ts, readiness.ts); a fold itself is declared with the state store (store/advisor.ts). */

/** Puts key in a record that keeps at most max keys, the oldest inserted going first. */
export function putBounded<V> (record: Record<string, V>, key: string, value: V, max: number): V {
  if (!(key in record)) {
    const keys = Object.keys(record)
    if (keys.length >= max) delete record[keys[0]]
  }
  record[key] = value
  return value
}

/**
 * Whether a record holds any key. A window keyed by request (Digest.request) is looked up only when it holds
 * some: the key is made on first use, and most requests meet empty windows.
 */
export function hasKeys (record: object): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true
  return false
}
