import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import { MemoryAdvisorStore, type AdvisorStore, type Fold, type FoldStates, type FoldWatch } from '../store/advisor.js'
import type { RedisKeys } from '../store/redis/keys.js'
import type { RedisClient } from '../store/redis/connection.js'
import { RedisAdvisorStore } from '../store/redis/advisor.js'
import { adviceFold, type AdviceThresholds } from './advice.js'
import { readinessFold } from './readiness.js'
import { digestOf } from './digest.js'
import { summaryOf, type AdvisorSummary } from './summary.js'
import type { Observer } from './observer.js'
import type { AdviceState } from './advice.js'
import type { Metrics } from '../instruments/recorder.js'

/*
 * The integration advisor, as app.ts wires it: the folds over each partner's requests, the store of their
 * states (in this process, or in Redis with replicas), and the journal observer that feeds it.
 *
 * To judge requests another way (the go-live readiness checklist): write a Fold (declared in store/advisor.ts) and add it
 * to folds() below; it gets every digest, its state is kept, shared by replicas and cleared with the others
 * (a reset clears every fold, DELETE /__sandbox/advice only 'advice'), and fastify.advisor.store.read(partnerId)
 * returns it under its name. A fold that needs more of a request adds a field to Digest (advisor/digest.ts),
 * filled from the Observation (advisor/observer.ts). An observer that is no fold (nothing kept per partner)
 * goes in the observers list app.ts gives the journal plugin.
 */

export interface Advisor {
  store: AdvisorStore
  thresholds: AdviceThresholds
  /** Feeds the store: given to the journal plugin, which calls it with every entry it files. */
  observer: Observer
  /** Each named partner's finding codes and readiness counts (the operator's overview). */
  summaries: (partnerIds: readonly string[]) => Promise<Map<string, AdvisorSummary>>
}

export function thresholdsOf (config: Config): AdviceThresholds {
  return {
    tokenCalls: config.adviceTokenCalls,
    retryWindowMs: config.adviceRetryWindow,
    retryCount: config.adviceRetryCount,
    pollRate: config.advicePollRate,
    pollSeconds: config.advicePollSeconds,
    clientErrors: config.adviceClientErrors
  }
}

/** Every fold over the partners' requests. */
function folds (thresholds: AdviceThresholds): Fold[] {
  return [adviceFold(thresholds) as Fold, readinessFold(thresholds) as Fold]
}

/** The advice codes a partner's states show (the advice fold's `seen`). */
const seenCodes = (states: FoldStates | undefined): AdviceState['seen'] => (states?.advice as AdviceState | undefined)?.seen ?? {}

/**
 * sandbox_advice_findings_total: each advice code counted when it appears in a partner's findings. With the
 * states before a fold (Redis) the codes new in it; else against the codes this process saw the partner have,
 * compared by their number first (a loop over a few keys per request; a list only when it changed).
 */
function adviceFindings (metrics: Metrics): FoldWatch | undefined {
  if (!metrics.on) return undefined
  const known = new Map<string, Set<string>>()
  return (partnerId, after, before) => {
    const seen = seenCodes(after)
    if (before !== undefined) {
      const had = seenCodes(before)
      for (const code in seen) if (!(code in had)) metrics.adviceFinding(code)
      return
    }
    let count = 0
    // eslint-disable-next-line @typescript-eslint/no-unused-vars -- counted, not read
    for (const _code in seen) count++
    const codes = known.get(partnerId)
    if (count === (codes?.size ?? 0)) return
    // cleared (fewer codes): what it has now is known; more: the new ones are counted
    const now = new Set(Object.keys(seen))
    if (codes !== undefined && count > codes.size) for (const code of now) if (!codes.has(code)) metrics.adviceFinding(code)
    if (codes === undefined) for (const code of now) metrics.adviceFinding(code)
    known.set(partnerId, now)
  }
}

export function makeAdvisor (config: Config, redis: { client: RedisClient, keys: RedisKeys } | null, log: FastifyBaseLogger, metrics?: Metrics): Advisor {
  const thresholds = thresholdsOf(config)
  const all = folds(thresholds)
  const watch = metrics === undefined ? undefined : adviceFindings(metrics)
  const summarise = (states: FoldStates): AdvisorSummary => summaryOf(states, thresholds)
  const store = redis === null ? new MemoryAdvisorStore(all, summarise, watch) : new RedisAdvisorStore(redis.client, redis.keys, all, summarise, log, watch)
  return {
    store,
    thresholds,
    observer: (o) => store.add(o.partnerId, digestOf(o)),
    summaries: async (partnerIds) => await store.summaries(partnerIds) as Map<string, AdvisorSummary>
  }
}
