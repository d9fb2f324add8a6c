import { advanceBy, clockNow, localDateTimeSast, parseInstant, todaySast } from '../clock.js'
import { notFound, SandboxError, validationFailed } from '../errors.js'
import { FaultSyntaxError, formatFault, parseFault } from '../faults/fault.js'
import { isActive } from '../faults/rules.js'
import type { ClockRequest, FaultRuleRequest } from '../schemas/sandbox-controls.js'
import type { FaultRuleState } from '../schemas/sandbox-state.js'
import type { Partner } from './partner.js'
import type { World } from './world.js'

/*
 * A partner's own sandbox state (issue 11): its fault rules and its clock. Kept in Partner.sandbox,
 * committed like its data (a data dir keeps them over a restart), gone after a reset.
 */

export const MAX_FAULT_RULES = 100

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
      const partner = partnerOf(partnerId)
      let fault: string
      try {
        fault = formatFault(parseFault(req.fault))
      } catch (err) {
        if (!(err instanceof FaultSyntaxError)) throw err
        throw invalid('fault', req.fault, 'SandboxFault', `fault ${err.message}`)
      }
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
        createdAt: new Date().toISOString()
      }
      state.faultRules.push(rule)
      await world.commit(partner)
      return ruleView(rule)
    },

    async removeRule (partnerId: string, ruleId: string): Promise<void> {
      const partner = partnerOf(partnerId)
      const rules = partner.sandbox.faultRules
      const i = rules.findIndex((r) => r.id === ruleId)
      if (i === -1) throw notFound('Fault rule', ruleId)
      rules.splice(i, 1)
      await world.commit(partner)
    },

    async clearRules (partnerId: string): Promise<void> {
      const partner = partnerOf(partnerId)
      partner.sandbox.faultRules = []
      await world.commit(partner)
    },

    clock (partnerId: string) {
      return clockView(partnerOf(partnerId))
    },

    /** Sets the partner's clock to an instant (running on, or frozen), or moves it forward by a duration. */
    async setClock (partnerId: string, req: ClockRequest) {
      const partner = partnerOf(partnerId)
      if ((req.now === undefined) === (req.advance === undefined)) {
        throw invalid(req.now === undefined ? 'now' : 'advance', req.advance ?? null, 'OneOf', 'send exactly one of now and advance')
      }
      const real = Date.now()
      const current = partner.sandbox.clock
      let target: number
      let frozen: boolean
      if (req.now !== undefined) {
        const at = parseInstant(req.now)
        if (at === undefined) throw invalid('now', req.now, 'DateTime', 'must be a real date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS[.sss]][Z|+HH:MM]) from 1970 to 9999')
        target = at
        frozen = req.frozen ?? false
      } else {
        const moved = advanceBy(clockNow(current, real), req.advance!)
        if (moved === undefined) throw invalid('advance', req.advance, 'Duration', 'must be an ISO 8601 duration forward (PnYnMnWnDTnHnMnS, e.g. P30D or PT2H) that stays before the year 10000')
        target = moved
        frozen = req.frozen ?? current?.frozenAt !== undefined
      }
      partner.sandbox.clock = frozen ? { offsetMs: target - real, frozenAt: target } : { offsetMs: target - real }
      await world.commit(partner)
      return clockView(partner)
    },

    async resetClock (partnerId: string) {
      const partner = partnerOf(partnerId)
      partner.sandbox.clock = null
      await world.commit(partner)
      return clockView(partner)
    }
  }
}
