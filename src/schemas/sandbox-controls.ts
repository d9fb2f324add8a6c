import { Type, type Static } from '@sinclair/typebox'
import { ref } from './common.js'
import { GuaranteeState } from './guarantees.js'
import { FaultMatch } from './sandbox-state.js'

/* Requests and answers of the control API's unhappy-path endpoints (issue 11): faults, magic values, clock, state. */

const FaultText = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The fault, in the Sandbox-Fault header syntax: a comma-separated list of status=<400-599>, latency=<0-60000 ms>, reset, timeout, after',
  examples: ['status=503']
})

export const FaultRuleRequest = Type.Object({
  match: Type.Optional(ref(FaultMatch)),
  fault: FaultText,
  probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 1, description: 'Chance that a matching request gets the fault', examples: [0.5] })),
  times: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000000, description: 'The rule fires this many times, then expires (it stays listed, inactive)', examples: [3] })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295, description: 'Seed of the rule\'s own random draws: the same sequence of requests gets its faults on the same requests every run', examples: [42] }))
}, { $id: 'SandboxFaultRuleRequest', title: 'SandboxFaultRuleRequest', additionalProperties: false })
export type FaultRuleRequest = Static<typeof FaultRuleRequest>

export const FaultRule = Type.Object({
  id: Type.String({ description: 'Named in Sandbox-Fault-Applied (rule=<id>)' }),
  match: ref(FaultMatch),
  fault: Type.String(),
  probability: Type.Number(),
  times: Type.Optional(Type.Integer()),
  seed: Type.Optional(Type.Integer()),
  matched: Type.Integer({ description: 'Requests that matched the rule' }),
  fired: Type.Integer({ description: 'Requests that got its fault' }),
  active: Type.Boolean({ description: 'False once it has fired `times` times' }),
  createdAt: Type.String({ description: 'When it was made (real time, ISO 8601)' })
}, { $id: 'SandboxFaultRule', title: 'SandboxFaultRule' })

export const FaultRuleList = Type.Object({ faults: Type.Array(ref(FaultRule)) }, { $id: 'SandboxFaultRuleList', title: 'SandboxFaultRuleList' })

export const FaultIdParam = Type.Object({ faultId: Type.String({ pattern: '^rule-[0-9]{1,10}$', examples: ['rule-1'] }) })

export const MagicOutcome = Type.Object({
  connection: Type.Union([Type.Literal('answered'), Type.Literal('reset'), Type.Literal('held')], {
    description: 'answered: an HTTP answer; reset: the connection is closed without one (the client sees ECONNRESET); held: no answer until the client gives up (at most SANDBOX_FAULT_HOLD ms, then closed)'
  }),
  status: Type.Optional(Type.Integer({ description: 'Status of the answer (answered only)' })),
  error: Type.Optional(Type.String({ description: 'X-Sandbox-Error of an error answer; its body is the ErrorBody of the status' })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Headers the answer carries with exactly these values (names in lower case)' })),
  delayMs: Type.Optional(Type.Integer({ description: 'The answer comes at least this many milliseconds late' })),
  // a $ref takes no description beside it: the object's description says what body is
  body: Type.Optional(ref(GuaranteeState)),
  created: Type.Optional(Type.Boolean({ description: 'Creating operations: whether the record is created (absent for reads)' }))
}, {
  $id: 'SandboxMagicOutcome',
  title: 'SandboxMagicOutcome',
  description: 'What the request with the value gets, in fields a tool can check; body is the whole body of the answer where it is fixed (the state of a guarantee, {} for no state)'
})

export const MagicValue = Type.Object({
  value: Type.String({ description: 'The value (match "prefix": any value starting with it)' }),
  match: Type.Union([Type.Literal('exact'), Type.Literal('prefix')]),
  operation: Type.String({ description: 'operationId of the bank API document' }),
  method: Type.String(),
  path: Type.String(),
  field: Type.String({ description: 'Body field, or path parameter, that takes the value' }),
  fault: Type.Optional(Type.String({ description: 'The fault it applies, in the Sandbox-Fault syntax' })),
  outcome: ref(MagicOutcome),
  description: Type.String()
}, { $id: 'SandboxMagicValue', title: 'SandboxMagicValue' })

export const MagicList = Type.Object({ values: Type.Array(ref(MagicValue)) }, { $id: 'SandboxMagicList', title: 'SandboxMagicList' })

export const Clock = Type.Object({
  mode: Type.Union([Type.Literal('real'), Type.Literal('offset'), Type.Literal('frozen')], { description: 'real time, real time shifted, or stopped at one instant' }),
  now: Type.String({ description: "The partner's now, ISO 8601 in UTC" }),
  today: Type.String({ description: 'The partner\'s date in South Africa (what openedDate and closedDate get)' }),
  localDateTime: Type.String({ description: 'The partner\'s local South African time without zone (what dateCreated gets)' }),
  offsetMs: Type.Integer({ description: 'Milliseconds between the partner\'s now and real time' })
}, { $id: 'SandboxClock', title: 'SandboxClock' })

export const ClockRequest = Type.Object({
  now: Type.Optional(Type.String({ minLength: 10, maxLength: 40, description: 'Date-time (ISO 8601; without an offset it is South African time) or date (midnight in South Africa)', examples: ['2027-02-28T23:59:00+02:00'] })),
  advance: Type.Optional(Type.String({ minLength: 2, maxLength: 40, description: 'ISO 8601 duration to move the clock forward by (P30D, PT2H, P1Y2M)', examples: ['P30D'] })),
  frozen: Type.Optional(Type.Boolean({ examples: [false], description: 'Stop the clock at that instant (true) or let it run on from there (false, the default with now); with advance, the clock keeps its mode' }))
}, {
  $id: 'SandboxClockRequest',
  title: 'SandboxClockRequest',
  additionalProperties: false,
  // now and advance go alone: the example of the whole body is one of them
  examples: [{ advance: 'P30D' }]
})
export type ClockRequest = Static<typeof ClockRequest>

export const AccountIdPathParam = Type.Object({ accountId: Type.String({ pattern: '^[0-9]{1,16}$', examples: ['1001200000001'] }) })
// a customer with another client (the default scenario's trust), so that KYC's otherCustomer example applies to it
export const CustomerIdPathParam = Type.Object({ customerId: Type.String({ pattern: '^[0-9]{1,19}$', examples: ['1001100000002'] }) })

export const CloseRequest = Type.Object({
  closedDate: Type.Optional(Type.String({ format: 'date', description: "Date to close on (YYYY-MM-DD, not before openedDate); default the partner's today", examples: ['2027-01-31'] }))
}, { $id: 'SandboxCloseRequest', title: 'SandboxCloseRequest', additionalProperties: false })

export const AmountRequest = Type.Object({
  amount: Type.Number({ description: 'ZAR, at most 2 fractional digits', examples: [1500.5] })
}, { $id: 'SandboxAmountRequest', title: 'SandboxAmountRequest', additionalProperties: false })

export const KycRequest = Type.Object({
  kycStatus: Type.Boolean({ examples: [false] }),
  otherCustomer: Type.Optional(Type.Integer({ minimum: 0, description: 'Index in otherCustomers; the default customer when absent', examples: [0] }))
}, { $id: 'SandboxKycRequest', title: 'SandboxKycRequest', additionalProperties: false })

export const SANDBOX_CONTROL_SCHEMAS = [FaultRuleRequest, FaultRule, FaultRuleList, MagicOutcome, MagicValue, MagicList, Clock, ClockRequest, CloseRequest, AmountRequest, KycRequest]
