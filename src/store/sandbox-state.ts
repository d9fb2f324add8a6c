import { advanceBy, clockNow, localDateTimeSast, parseInstant, todaySast } from '../clock.js'
import { notFound, SandboxError, validationFailed } from '../errors.js'
import { FaultSyntaxError, formatFault, parseFault } from '../faults/fault.js'
import { isActive, matches, pickRule, type PickedRule, type RequestFacts } from '../faults/rules.js'
import type { ClockRequest, FaultRuleRequest } from '../schemas/sandbox-controls.js'
import { MAX_FAULT_RULES, type FaultRuleState } from '../schemas/sandbox-state.js'
import type { Partner } from './partner.js'
import type { ChangeContext, World } from './world.js'

/*
 * A partner's own sandbox state (issue 11): its fault rules and its clock. Kept in Partner.sandbox,
 * committed like its data (a data dir keeps them over a restart), gone after a reset.
 */

export { MAX_FAULT_RULES }

function invalid (field: string, value: unknown, code: string, message: string): SandboxError {
  return validationFailed('request', [{ field, rejectedValue: value, code, defaultMessage: message }])
}

export function ruleView (r: FaultRuleState) {
  const { rng: _rng, ...view } = r
  return { ...view, active: isActive(r) }
}

export function clockView (partner: Partner) {
  const clock = partner.sandbox.clock ?? null
  const real = Date.now()
  const now = clockNow(clock, real)
  return {
    mode: clock === null ? 'real' as const : clock.frozenAt !== undefined ? 'frozen' as const : 'offset' as const,
    now: new Date(now).toISOString(),
    today: todaySast(now),
    localDateTime: localDateTimeSast(now),
    offsetMs: now - real
  }
}

/** The fault syntax of a rule, checked and written the one way the header syntax writes it. */
function normalisedFault (text: string): string {
  try {
    return formatFault(parseFault(text))
  } catch (err) {
    if (!(err instanceof FaultSyntaxError)) throw err
    throw invalid('fault', text, 'SandboxFault', `fault ${err.message}`)
  }
}

export const sandboxStateChanges = {
  'faults.add' ({ partner, at }: ChangeContext, req: FaultRuleRequest) {
    const fault = normalisedFault(req.fault)
    const state = partner.sandbox
    if (state.faultRules.length >= MAX_FAULT_RULES) {
      throw new SandboxError('SANDBOX_ERR_LIMIT', `Partner '${partner.id}' has ${state.faultRules.length} fault rules; the limit is ${MAX_FAULT_RULES}. Delete some (DELETE /__sandbox/faults).`)
    }
    state.faultSeq += 1
    const rule: FaultRuleState = {
      id: `rule-${state.faultSeq}`,
      match: req.match ?? {},
      fault,
      probability: req.probability ?? 1,
      ...(req.times === undefined ? {} : { times: req.times }),
      ...(req.seed === undefined ? {} : { seed: req.seed, rng: req.seed }),
      matched: 0,
      fired: 0,
      createdAt: new Date(at).toISOString()
    }
    state.faultRules.push(rule)
    return ruleView(rule)
  },

  'faults.remove' ({ partner }: ChangeContext, a: { ruleId: string }): null {
    const rules = partner.sandbox.faultRules
    const i = rules.findIndex((r) => r.id === a.ruleId)
    if (i === -1) throw notFound('Fault rule', a.ruleId)
    rules.splice(i, 1)
    return null
  },

  'faults.clear' ({ partner }: ChangeContext): null {
    partner.sandbox.faultRules = []
    return null
  },

  /**
   * The rule that fires for a request (faults/rules.ts), counted: every replica counts the same requests in
   * the same order, so `times` and seeded rules hold across replicas. entropy: the draws of unseeded rules.
   */
  'faults.pick' ({ partner }: ChangeContext, a: { facts: RequestFacts, entropy: number }): PickedRule | null {
    const { rule } = pickRule(partner.sandbox.faultRules, a.facts, a.entropy)
    return rule === undefined ? null : { id: rule.id, fault: rule.fault }
  },

  /** Sets the partner's clock to an instant (running on, or frozen), or moves it forward by a duration. */
  'clock.set' ({ partner, at }: ChangeContext, req: ClockRequest) {
    if ((req.now === undefined) === (req.advance === undefined)) {
      throw invalid(req.now === undefined ? 'now' : 'advance', req.advance ?? null, 'OneOf', 'send exactly one of now and advance')
    }
    const current = partner.sandbox.clock
    let target: number
    let frozen: boolean
    if (req.now !== undefined) {
      const instant = parseInstant(req.now)
      if (instant === undefined) throw invalid('now', req.now, 'DateTime', 'must be a real date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS[.sss]][Z|+HH:MM]) from 1970 to 9999')
      target = instant
      frozen = req.frozen ?? false
    } else {
      const moved = advanceBy(clockNow(current, at), req.advance!)
      if (moved === undefined) throw invalid('advance', req.advance, 'Duration', 'must be an ISO 8601 duration forward (PnYnMnWnDTnHnMnS, e.g. P30D or PT2H) that stays before the year 10000')
      target = moved
      frozen = req.frozen ?? current?.frozenAt !== undefined
    }
    partner.sandbox.clock = frozen ? { offsetMs: target - at, frozenAt: target } : { offsetMs: target - at }
    return null
  },

  'clock.reset' ({ partner }: ChangeContext): null {
    partner.sandbox.clock = null
    return null
  }
}

export function sandboxStateRepo (world: World) {
  const partnerOf = (partnerId: string): Partner => {
    const partner = world.partner(partnerId)
    if (partner === undefined) throw notFound('Partner', partnerId)
    return partner
  }

  return {
    rules (partnerId: string) {
      return partnerOf(partnerId).sandbox.faultRules.map(ruleView)
    },

    async addRule (partnerId: string, req: FaultRuleRequest) {
      return await world.perform<ReturnType<typeof ruleView>>(partnerId, 'faults.add', req)
    },

    async removeRule (partnerId: string, ruleId: string): Promise<void> {
      await world.perform(partnerId, 'faults.remove', { ruleId })
    },

    async clearRules (partnerId: string): Promise<void> {
      await world.perform(partnerId, 'faults.clear', {})
    },

    /**
     * The rule that fires for a request, if any of the partner's rules matches it: null when none can
     * (no change made, nothing to wait for), else the rule (or null) once the match is counted.
     * The request's facts are asked for only when the partner has rules (nearly every request meets none).
     */
    pick (partnerId: string, factsOf: () => RequestFacts): PickedRule | null | Promise<PickedRule | null> {
      const rules = world.partner(partnerId)?.sandbox.faultRules
      if (rules === undefined || rules.length === 0) return null
      const facts = factsOf()
      if (!rules.some((r) => isActive(r) && matches(r.match, facts))) return null
      return world.perform<PickedRule | null>(partnerId, 'faults.pick', { facts, entropy: Math.floor(Math.random() * 0x100000000) })
    },

    clock (partnerId: string) {
      return clockView(partnerOf(partnerId))
    },

    async setClock (partnerId: string, req: ClockRequest) {
      await world.perform(partnerId, 'clock.set', req)
      return clockView(partnerOf(partnerId))
    },

    async resetClock (partnerId: string) {
      await world.perform(partnerId, 'clock.reset', {})
      return clockView(partnerOf(partnerId))
    }
  }
}

export type SandboxStateRepo = ReturnType<typeof sandboxStateRepo>
