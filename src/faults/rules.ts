import { pathPattern, routerTemplate } from '../path-patterns.js'
import type { FaultMatch, FaultRuleState } from '../schemas/sandbox-state.js'

/*
 * Which of a partner's fault rules applies to a request. Rules are tried in the order they were made; each
 * matching rule counts the request and draws against its probability; the first that fires applies.
 * A seeded rule draws from its own generator (mulberry32, its state kept with the rule), so the same
 * sequence of requests gets its faults on the same requests in every run, and after a restart.
 */

/** What a rule can match on: the request as sent and as routed. */
/** The rule that fired for a request. */
export interface PickedRule { id: string, fault: string }

export interface RequestFacts {
  method: string
  /** Path without the query, as sent (a version prefix included). */
  path: string
  /** Path without the query and without a /{version} prefix. */
  apiPath: string
  /** Fastify's route template (/api/customers/:customerId). */
  route: string | undefined
  agentId: string | undefined
  /** A request to the token endpoint: only rules that name a path or route matching it apply (a rule without one is for the API). */
  token?: boolean
}

/** One step of mulberry32: the next state and a number in [0, 1). */
export function mulberry32 (state: number): { state: number, value: number } {
  const next = (state + 0x6D2B79F5) >>> 0
  let t = next
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return { state: next, value: ((t ^ (t >>> 14)) >>> 0) / 4294967296 }
}

export function matches (m: FaultMatch, r: RequestFacts): boolean {
  if (r.token === true && m.path === undefined && m.route === undefined) return false
  if (m.method !== undefined && m.method.toUpperCase() !== r.method) return false
  if (m.agentId !== undefined && m.agentId !== r.agentId) return false
  if (m.route !== undefined && routerTemplate(m.route) !== r.route) return false
  if (m.path !== undefined) {
    const re = pathPattern(m.path)
    if (!re.test(r.path) && !re.test(r.apiPath)) return false
  }
  return true
}

export function isActive (rule: FaultRuleState): boolean {
  return rule.times === undefined || rule.fired < rule.times
}

/**
 * The rule that fires for this request, if any, updating the counters and generators of the rules it
 * consulted. `changed` says whether anything worth keeping changed (a firing, a seeded draw). Unseeded
 * rules draw from `entropy` (a mulberry32 state the caller chose at random): the same entropy makes the
 * same choice, so a replica that applies the pick again agrees with the one that made it.
 */
export function pickRule (rules: FaultRuleState[], facts: RequestFacts, entropy: number): { rule?: FaultRuleState, changed: boolean } {
  let changed = false
  let unseeded = entropy
  for (const rule of rules) {
    if (!isActive(rule) || !matches(rule.match, facts)) continue
    rule.matched += 1
    let fires = rule.probability >= 1
    if (!fires && rule.probability > 0) {
      if (rule.rng !== undefined) {
        const draw = mulberry32(rule.rng)
        rule.rng = draw.state
        changed = true
        fires = draw.value < rule.probability
      } else {
        const draw = mulberry32(unseeded)
        unseeded = draw.state
        fires = draw.value < rule.probability
      }
    }
    if (fires) {
      rule.fired += 1
      return { rule, changed: true }
    }
  }
  return { changed }
}
