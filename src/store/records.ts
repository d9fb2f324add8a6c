import type { Account } from '../schemas/accounts.js'
import type { Beneficiary } from '../schemas/beneficiaries.js'
import type { CustomerRecord } from '../schemas/customers.js'
import type { CustomerMessage } from '../schemas/messages.js'
import type { PartnerSandboxState } from '../schemas/sandbox-state.js'
import type { PartnerTokenState } from './token-state.js'

/*
 * What the store keeps. Records are immutable once stored (a change replaces the object), which lets
 * persistence cache each record's JSON. Fields not in the API schemas (customerId on beneficiaries and
 * messages, productCode on accounts) are internal: the response schemas drop them.
 */

export type StoredCustomer = CustomerRecord

export type StoredAccount = Account & {
  id: string
  number: string
  agentId: number
  customers: NonNullable<Account['customers']>
  productCode: string
}

export type StoredBeneficiary = Beneficiary & { customerId: string }

export type StoredMessage = CustomerMessage & { id: string, dateCreated: string, customerId: string }

export type RecordKind = 'customer' | 'account' | 'beneficiary' | 'message'

export type Sequences = Record<RecordKind, number>

export interface AgentSnapshot {
  id: string
  name: string
  /** Created through the sandbox API (POST /__sandbox/agents) rather than by the scenario. */
  fresh: boolean
  /** The scenario agent whose data this agent was built as (itself for scenario agents). */
  like: string
  scenario: string
  seed: number
  seq: Sequences
  customers: StoredCustomer[]
  accounts: StoredAccount[]
  beneficiaries: StoredBeneficiary[]
  messages: StoredMessage[]
}

export interface TestUser {
  username: string
  /** scrypt hash of the password (store/credentials.ts); never the password. */
  passwordHash: string
  name: string
  email: string
  agentId: string
  customerIds: string[]
}

export interface Guarantee {
  guaranteeId: string
  state: 'VALID' | 'INVALID'
}

/** A public OAuth client of a partner, for browser apps: no secret, PKCE; its users are the partner's test users. */
export interface PublicClient {
  clientId: string
  /** Keycloak-style: a trailing * is a prefix; http://localhost and http://127.0.0.1 match any port. */
  redirectUris: string[]
}

/** One partner (an OAuth client) and everything it owns: the unit of persistence (one file each). */
export interface PartnerSnapshot {
  format: 1
  id: string
  number: number
  name: string
  /** HMAC of the client secret (store/credentials.ts); never the secret. */
  secretHash: string
  /** The secret a rotation with an overlap replaced: accepted until previousSecretUntil (epoch ms), then dropped. */
  previousSecretHash?: string
  previousSecretUntil?: number
  /** Suspended by the operator: its token requests, tokens and console are refused; its data is kept. */
  suspended?: boolean
  redirectUris: string[]
  /** Optional: partner files written before public clients existed have none. */
  publicClients?: PublicClient[]
  /** Registered through the operator API rather than declared by a scenario. */
  registered: boolean
  scenario: string
  seed: number
  users: TestUser[]
  guaranteeSeq: number
  guarantees: Guarantee[]
  agents: AgentSnapshot[]
  /** Fault rules and clock (absent in files written before they existed: the initial state then). */
  sandbox?: PartnerSandboxState
  /** Revoked access tokens (store/tokens.ts); absent when there are none. */
  tokens?: PartnerTokenState
}

export const PARTNER_FILE_FORMAT = 1

/** The object without its undefined properties (what JSON would carry). */
export function compact<T extends object> (o: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v
  return out as T
}
