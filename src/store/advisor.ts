import type { Digest } from '../advisor/digest.js'
import { foldInto, initialStates, type Fold, type FoldStates } from '../advisor/folds.js'

/*
 * The advisor's state of each partner (issue 29): the folds' states (advisor/folds.ts) over the partner's
 * requests. Kept in this process (MemoryAdvisorStore: each digest folded at once), or in Redis with replicas
 * (store/redis/advisor.ts: digests appended to a per-partner list by whichever replica served the request,
 * folded by whichever reads, committed with a compare-and-set on the state's version).
 */
export interface AdvisorStore {
  /** Files a request's digest (the hot path, after the answer: it never waits and never fails the request). */
  add: (partnerId: string, digest: Digest) => void
  /** The partner's states, with every digest filed before the call folded in. */
  read: (partnerId: string) => FoldStates | Promise<FoldStates>
  /** The named folds start afresh (DELETE /__sandbox/advice: the advice; a reset: every fold). */
  clear: (partnerId: string, folds?: readonly string[]) => void | Promise<void>
  /** A deleted partner: its state goes (with Redis its keys went with it). */
  forget: (partnerId: string) => void
}

/** Starts the named folds (all when none are named) afresh in states. */
export function restart (folds: readonly Fold[], states: FoldStates, names?: readonly string[]): void {
  for (const f of folds) if (names === undefined || names.includes(f.name)) states[f.name] = f.init()
}

export class MemoryAdvisorStore implements AdvisorStore {
  private readonly states = new Map<string, FoldStates>()

  constructor (private readonly folds: readonly Fold[]) {}

  add (partnerId: string, digest: Digest): void {
    let states = this.states.get(partnerId)
    if (states === undefined) this.states.set(partnerId, states = initialStates(this.folds))
    foldInto(this.folds, states, digest)
  }

  read (partnerId: string): FoldStates {
    return this.states.get(partnerId) ?? initialStates(this.folds)
  }

  clear (partnerId: string, names?: readonly string[]): void {
    const states = this.states.get(partnerId)
    if (states !== undefined) restart(this.folds, states, names)
  }

  forget (partnerId: string): void {
    this.states.delete(partnerId)
  }
}
