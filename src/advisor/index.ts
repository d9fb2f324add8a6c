import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import { MemoryAdvisorStore, type AdvisorStore } from '../store/advisor.js'
import type { RedisKeys } from '../store/redis/keys.js'
import type { RedisClient } from '../store/redis/connection.js'
import { RedisAdvisorStore } from '../store/redis/advisor.js'
import { adviceFold, type AdviceThresholds } from './advice.js'
import { readinessFold } from './readiness.js'
import { digestOf } from './digest.js'
import { summaryOf, type AdvisorSummary } from './summary.js'
import type { Fold, FoldStates } from '../store/advisor.js'
import type { Observer } from './observer.js'

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

export function makeAdvisor (config: Config, redis: { client: RedisClient, keys: RedisKeys } | null, log: FastifyBaseLogger): Advisor {
  const thresholds = thresholdsOf(config)
  const all = folds(thresholds)
  const summarise = (states: FoldStates): AdvisorSummary => summaryOf(states, thresholds)
  const store = redis === null ? new MemoryAdvisorStore(all, summarise) : new RedisAdvisorStore(redis.client, redis.keys, all, summarise, log)
  return {
    store,
    thresholds,
    observer: (o) => store.add(o.partnerId, digestOf(o)),
    summaries: async (partnerIds) => await store.summaries(partnerIds) as Map<string, AdvisorSummary>
  }
}
