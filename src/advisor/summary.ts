import type { AdviceCode } from '../schemas/advice.js'
import type { FoldStates } from '../store/advisor.js'
import { findingsOf, type AdviceState, type AdviceThresholds } from './advice.js'
import { initialReadiness, readinessCounts, type ReadinessState } from './readiness.js'

/*
 * What the operator's overview shows of a partner's advice and readiness (GET /__sandbox/admin/overview): the
 * finding codes GET /__sandbox/advice answers and the counts of GET /__sandbox/readiness, made from the same
 * states by the same functions. The advisor's store keeps it beside the state with replicas (store/redis/advisor.ts).
 */

export interface AdvisorSummary {
  /** The codes of the partner's findings, in the advice's order: errors first, then the most recent. */
  findings: AdviceCode[]
  /** The readiness checklist's counts. */
  readiness: { passed: number, failed: number, notTried: number }
}

export function summaryOf (states: FoldStates, t: AdviceThresholds): AdvisorSummary {
  const advice = states.advice as AdviceState | undefined
  const readiness = readinessCounts((states.readiness as ReadinessState | undefined) ?? initialReadiness())
  return { findings: advice === undefined ? [] : findingsOf(advice, t).map((f) => f.code), readiness }
}
