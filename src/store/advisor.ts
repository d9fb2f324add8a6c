/*
 * The advisor's state of each partner (issue 29): the folds' states over the partner's requests. Kept in this
 * process (MemoryAdvisorStore: each digest folded at once), or in Redis with replicas (store/redis/advisor.ts:
 * digests appended to a per-partner list by whichever replica served the request, folded by whichever reads,
 * committed with a compare-and-set on the state's version). What it keeps is declared here, below the advisor
 * (src/advisor/) that makes digests (digest.ts) and the folds that judge them (advice.ts, readiness.ts).
 */

/** Which part of the sandbox a request went to: the bank's API, the token endpoint, or the control API. */
export type Area = 'api' | 'token' | 'control'

export interface Digest {
  /** The request id (X-Request-Id): the journal finds the entry by it. */
  requestId: string
  /** Arrival, and the answer handed over (or the connection dropped), epoch ms. */
  at: number
  end: number
  area: Area
  method: string
  /** The operation: method and route template, or method and path when no route matched. */
  operation: string
  /** The request itself: method, URL and (a hash of) the body; equal for a request sent again unchanged. */
  request: string
  /** 0: the connection was dropped without an answer (a reset or timeout). */
  status: number
  /** An `after` fault replaced, delayed or dropped the operation's answer. */
  afterFault: boolean
  create: boolean
  /** The operation ran and answered 2xx (for a create: its record was made), whatever the client got. */
  succeeded: boolean
  /** Retry-After of a 429 or 503, in ms; 0 when none. */
  retryAfterMs: number
  deprecated: boolean
  /** The access token the request carried: its id, expiry (epoch s) and subject (user, or '' for the client). */
  tokenId: string | null
  tokenExp: number
  tokenSubject: string
  /** A refused token's digest (advisor/observer.ts). */
  refusedToken: string | null
  /** For a 400: the rule broken (error code and the fields with their rules), else null. */
  rule: string | null
  /** A page of a list read (a 2xx GET whose answer has page info): the list (URL without page), page number, last. */
  page: { list: string, number: number, last: boolean } | null
}

/*
 * A partner's advisor state is the fold of its requests' digests: each Fold keeps a plain JSON state (it goes
 * to Redis with replicas) and steps it with every digest, in the order the partner's requests were filed. The
 * state store (MemoryAdvisorStore below, store/redis/advisor.ts) keeps the states of every fold it is given, so a
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

/** What the operator's overview reads of a partner's states (advisor/index.ts makes it): plain JSON, small. */
export type Summarise = (states: FoldStates) => unknown

/** Where the folds' states are kept: this process, or Redis. */
export interface AdvisorStore {
  /** Files a request's digest (the hot path, after the answer: it never waits and never fails the request). */
  add: (partnerId: string, digest: Digest) => void
  /** The partner's states, with every digest filed before the call folded in. */
  read: (partnerId: string) => FoldStates | Promise<FoldStates>
  /** The named folds start afresh (DELETE /__sandbox/advice: the advice; a reset: every fold). */
  clear: (partnerId: string, folds?: readonly string[]) => void | Promise<void>
  /** A deleted partner: its state goes (with Redis its keys went with it). */
  forget: (partnerId: string) => void
  /**
   * The summary of each partner named (the store's summarise of its states, every digest filed before the call
   * folded in), for the operator's overview of thousands of partners: with Redis it is kept beside the state,
   * so that a partner with nothing new costs a few bytes, not its whole state.
   */
  summaries: (partnerIds: readonly string[]) => Map<string, unknown> | Promise<Map<string, unknown>>
}

/**
 * Told of a partner's states after a fold or a clear (the metrics count the advice codes that appear): with the
 * states before it where the store has them at hand (Redis, at a commit), else the watcher keeps what it saw.
 */
export type FoldWatch = (partnerId: string, after: FoldStates, before?: FoldStates) => void

/** Starts the named folds (all when none are named) afresh in states. */
export function restart (folds: readonly Fold[], states: FoldStates, names?: readonly string[]): void {
  for (const f of folds) if (names === undefined || names.includes(f.name)) states[f.name] = f.init()
}

export class MemoryAdvisorStore implements AdvisorStore {
  private readonly states = new Map<string, FoldStates>()

  constructor (private readonly folds: readonly Fold[], private readonly summarise: Summarise, private readonly watch?: FoldWatch) {}

  add (partnerId: string, digest: Digest): void {
    let states = this.states.get(partnerId)
    if (states === undefined) this.states.set(partnerId, states = initialStates(this.folds))
    foldInto(this.folds, states, digest)
    this.watch?.(partnerId, states)
  }

  read (partnerId: string): FoldStates {
    return this.states.get(partnerId) ?? initialStates(this.folds)
  }

  clear (partnerId: string, names?: readonly string[]): void {
    const states = this.states.get(partnerId)
    if (states === undefined) return
    restart(this.folds, states, names)
    this.watch?.(partnerId, states)
  }

  forget (partnerId: string): void {
    this.states.delete(partnerId)
  }

  summaries (partnerIds: readonly string[]): Map<string, unknown> {
    // (most partners of a large sandbox have sent nothing since a reset: one summary of the initial states for all of them)
    let none: unknown
    return new Map(partnerIds.map((id) => {
      const states = this.states.get(id)
      if (states !== undefined) return [id, this.summarise(states)]
      none ??= this.summarise(initialStates(this.folds))
      return [id, none]
    }))
  }
}
