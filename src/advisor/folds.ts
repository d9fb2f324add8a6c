import type { Digest } from './digest.js'

/*
 * A partner's advisor state is the fold of its requests' digests: each Fold keeps a plain JSON state (it goes
 * to Redis with replicas) and steps it with every digest, in the order the partner's requests were filed. The
 * state store (store/advisor.ts, store/redis/advisor.ts) keeps the states of every fold it is given, so a
 * fold added to the list app.ts builds (the readiness checklist beside the advice) shares the digests, the
 * store and the clearing without code of its own for either backend.
 */

export interface Fold<S = unknown> {
  /** The state's name in the partner's states (stable: it is stored). */
  readonly name: string
  init: () => S
  /** Steps the state with the partner's next request; deterministic, no clock (the digest has the times). */
  step: (state: S, digest: Digest) => void
}

/** Every fold's state, by fold name. */
export type FoldStates = Record<string, unknown>

export function initialStates (folds: readonly Fold[]): FoldStates {
  const states: FoldStates = {}
  for (const f of folds) states[f.name] = f.init()
  return states
}

/** Steps every fold with a digest (a fold missing from states, added since they were stored, starts fresh). */
export function foldInto (folds: readonly Fold[], states: FoldStates, digest: Digest): void {
  for (const f of folds) f.step(states[f.name] ??= f.init(), digest)
}

/** Puts key in a record that keeps at most max keys, the oldest inserted going first. */
export function putBounded<V> (record: Record<string, V>, key: string, value: V, max: number): V {
  if (!(key in record)) {
    const keys = Object.keys(record)
    if (keys.length >= max) delete record[keys[0]]
  }
  record[key] = value
  return value
}
