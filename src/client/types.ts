import type { components as BankComponents, paths as BankDocumentPaths } from './generated/bank-api.js'
import type { components as ControlComponents, operations as ControlOperations } from './generated/control-api.js'

/*
 * The client's types, all derived from the documents the sandbox serves (generated/, scripts/client-types.ts):
 * a method's body, query and answer are its operation's, named by operationId, so a change of the control API
 * shows up here as a type error rather than as a wrong call at run time.
 */

export type { paths as ControlPaths } from './generated/control-api.js'
export type { ControlOperations, BankDocumentPaths }

/** The bank's API's schemas (CustomerRecord, Account, ErrorBody, ...). */
export type BankSchemas = BankComponents['schemas']
/** The control API's schemas (SandboxAgentSummary, SandboxFaultRule, SandboxReadiness, ...). */
export type ControlSchemas = ControlComponents['schemas']

/** An operation whose Agent-Id header the client adds (the client's agent); a call may still give one of its own. */
type AgentIdOptional<Op> = Op extends { parameters: { header: infer H } }
  ? Omit<Op, 'parameters'> & { parameters: Omit<Op['parameters'], 'header'> & { header?: Omit<H, 'agent-id'> & { 'agent-id'?: string } } }
  : Op

/** The bank's API as SandboxClient.api calls it: the served document with the Agent-Id header optional. */
export type BankPaths = { [P in keyof BankDocumentPaths]: { [M in keyof BankDocumentPaths[P]]: AgentIdOptional<BankDocumentPaths[P][M]> } }

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never

/** The JSON body a control operation takes. */
export type BodyOf<K extends keyof ControlOperations> = JsonContent<NonNullable<ControlOperations[K]['requestBody']>>
/** The query parameters a control operation takes. */
export type QueryOf<K extends keyof ControlOperations> = NonNullable<ControlOperations[K]['parameters']['query']>
/** What a control operation answers with 200 (JSON). */
export type AnswerOf<K extends keyof ControlOperations> = ControlOperations[K]['responses'] extends { 200: infer R } ? JsonContent<R> : never

export type ErrorBody = BankSchemas['ErrorBody']
export type FieldError = BankSchemas['FieldError']
export type AgentSummary = ControlSchemas['SandboxAgentSummary']
export type PartnerSummary = ControlSchemas['SandboxPartnerSummary']
export type JournalSummary = ControlSchemas['SandboxJournalSummary']
export type JournalEntry = ControlSchemas['SandboxJournalEntry']
export type Snapshot = ControlSchemas['SandboxSnapshot']
export type Readiness = ControlSchemas['SandboxReadiness']
export type Advice = ControlSchemas['SandboxAdvice']
export type FaultRule = ControlSchemas['SandboxFaultRule']
export type FaultRuleRequest = ControlSchemas['SandboxFaultRuleRequest']
export type ClockState = ControlSchemas['SandboxClock']
export type Har = ControlSchemas['SandboxHar']
