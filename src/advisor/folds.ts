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
