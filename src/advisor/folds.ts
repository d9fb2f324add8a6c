import type { Digest } from '../store/advisor.js'

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
 * What a window keyed by request (Digest.request) holds for this digest's request. An empty window is not
 * looked in: the key is made on first use (a hash of the body), and most requests meet empty windows.
 */
export function ofRequest<V> (window: Record<string, V>, d: Digest): V | undefined {
  for (const key in window) if (Object.hasOwn(window, key)) return window[d.request]
  return undefined
}
