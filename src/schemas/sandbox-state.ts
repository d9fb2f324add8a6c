import { Type, type Static } from '@sinclair/typebox'
import { PATTERN_RULES } from '../path-patterns.js'
import { PathPatternString, ref } from './common.js'

/*
 * A partner's own sandbox state beside its data: fault rules and its clock (issue 11). Kept with the
 * partner (store/partner.ts), persisted in its file, carried by snapshots, cleared by a reset.
 */

/** Which requests a fault rule applies to; every field optional, all given ones must match. */
export const FaultMatch = Type.Object({
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,16}$', description: 'HTTP method, any case (GET, POST, ...)', examples: ['POST'] })),
  path: Type.Optional(PathPatternString({
    description: `Request path without the query, as sent or without its /{version} prefix; * stands for any characters within one segment, ** for any characters (${PATTERN_RULES}). A rule with a path or route that matches the token endpoint (/**/protocol/openid-connect/token) applies to the token requests of the partner's own clients too; one with neither, to the API only`,
    examples: ['/api/customers']
  })),
  route: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 1024,
    pattern: '^/',
    description: 'Route template as the API document writes it (/api/customers/{customerId}/messages); :customerId is accepted too',
    examples: ['/api/customers/{customerId}/messages']
  })),
  agentId: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$', description: 'The Agent-Id of the request', examples: ['1001'] }))
}, { $id: 'SandboxFaultMatch', title: 'SandboxFaultMatch', additionalProperties: false, examples: [{ method: 'POST', path: '/api/customers' }] })
export type FaultMatch = Static<typeof FaultMatch>

/** A stored fault rule: what POST /__sandbox/faults accepted, with its counters. */
export const FaultRuleState = Type.Object({
  id: Type.String(),
  match: ref(FaultMatch),
  fault: Type.String({ description: 'The fault, in the Sandbox-Fault header syntax' }),
  probability: Type.Number({ minimum: 0, maximum: 1 }),
  times: Type.Optional(Type.Integer({ minimum: 1 })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
  /** State of the seeded generator (mulberry32) after the draws so far. */
  rng: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
  matched: Type.Integer({ minimum: 0 }),
  fired: Type.Integer({ minimum: 0 }),
  createdAt: Type.String()
}, {
  $id: 'SandboxFaultRuleState',
  title: 'SandboxFaultRuleState',
  // the rule POST /__sandbox/faults makes of its documented example, before it matched anything
  examples: [{ id: 'rule-1', match: { method: 'POST', path: '/api/customers' }, fault: 'status=503', probability: 0.5, times: 3, seed: 42, rng: 42, matched: 0, fired: 0, createdAt: '2026-11-23T08:00:00.000Z' }]
})
export type FaultRuleState = Static<typeof FaultRuleState>

/** A partner's clock: real time shifted by offsetMs, or frozen at frozenAt (epoch ms). */
export const ClockState = Type.Object({
  offsetMs: Type.Integer(),
  frozenAt: Type.Optional(Type.Integer())
}, {
  $id: 'SandboxClockState',
  title: 'SandboxClockState',
  // frozen at the instant of PUT /__sandbox/clock's documented example, set 30 days before it
  examples: [{ offsetMs: 2592000000, frozenAt: Date.parse('2027-02-28T23:59:00+02:00') }]
})
export type ClockState = Static<typeof ClockState>

/**
 * Most fault rules one partner may have: each of its requests is matched against every one (path patterns in
 * time linear in pattern and path, so a partner's rules cost at most this many linear matches a request). A
 * snapshot's state is held to the same number, or an upload would bring in what POST /__sandbox/faults refuses.
 */
export const MAX_FAULT_RULES = 100

export const PartnerSandboxState = Type.Object({
  faultRules: Type.Array(ref(FaultRuleState), { maxItems: MAX_FAULT_RULES }),
  faultSeq: Type.Integer({ minimum: 0 }),
  // absent means real time, like null (a JSON null reads as absent, as Jackson reads it)
  clock: Type.Optional(Type.Union([ref(ClockState), Type.Null()]))
}, { $id: 'SandboxPartnerState', title: 'SandboxPartnerState' })
export type PartnerSandboxState = Static<typeof PartnerSandboxState>

export function initialSandboxState (): PartnerSandboxState {
  return { faultRules: [], faultSeq: 0, clock: null }
}

export const SANDBOX_STATE_SCHEMAS = [FaultMatch, FaultRuleState, ClockState, PartnerSandboxState]
