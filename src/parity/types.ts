/*
 * The parity kit's vocabulary (docs/parity.md): a probe is one request sent alike to the target and to the
 * reference sandbox; an exchange is what one side sent and answered; a difference is one aspect on which the
 * two answers disagree.
 */

/** What a probe tries: the families of probes, one each. */
export type ProbeKind = 'valid' | 'validation' | 'paging' | 'auth' | 'not-found' | 'method' | 'content-type' | 'token'

/** What can be compared of two answers (a probe's `compare` lists those that apply to it). */
export type Aspect = 'status' | 'error' | 'schema' | 'fields' | 'headers' | 'page' | 'claims'

/** How a probe authenticates: a client-credentials token, the test user's, none, garbage, or a tampered JWT. */
export type AuthMode = 'client' | 'user' | 'none' | 'garbage' | 'tampered'

/** Which Agent-Id a probe sends: the caller's, none, or one not bound to the caller. */
export type AgentMode = 'own' | 'none' | 'other'

/** A change to a generated valid body: one field set to a breaking value, or removed. */
export interface Mutation {
  path: string
  set?: unknown
  remove?: true
}

/** The generated valid bodies of the create operations. */
export type BodyKind = 'account' | 'beneficiary' | 'customer' | 'message'

export interface Probe {
  /** Stable across runs and releases: declared divergences and CI histories name it. */
  id: string
  /** The spec section and operation, e.g. "4.2 GET /api/accounts". */
  operation: string
  kind: ProbeKind
  title: string
  method: string
  /** A path of the bank API with {placeholders} from the side's context, or "token" for the token endpoint. */
  path: string
  query?: Record<string, string>
  auth?: AuthMode
  agent?: AgentMode
  /** A generated valid body of this kind, with `mutations` applied (one rule broken at a time). */
  body?: BodyKind
  mutations?: Mutation[]
  /** A body sent as it is (wrong content type, malformed JSON). */
  raw?: { contentType: string, text: string }
  /** Token endpoint probes: the form fields, {placeholders} from the side's credentials. */
  form?: Record<string, string>
  /** Token endpoint probes: client authentication by HTTP Basic (client_secret_basic). */
  basic?: 'right' | 'wrong-secret' | 'unknown-client'
  /** The context values it needs; a side without them skips it (e.g. a target with no beneficiaries). */
  needs?: string[]
  compare: Aspect[]
}

export interface SentRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string
}

export interface Answer {
  status: number
  statusText: string
  headers: Record<string, string>
  body: string
  json?: unknown
  ms: number
}

export interface Exchange {
  side: 'target' | 'reference'
  /** The probe's id, or "walk:..." for the requests that gather ids before the probes. */
  label: string
  started: string
  request: SentRequest
  answer?: Answer
  /** Why no answer came (connection refused, timeout). */
  failure?: string
}

export interface Difference {
  probe: string
  operation: string
  aspect: Aspect
  /** One line a reader acts on, e.g. "accounts[].balance.amount: number on the reference, string on the target". */
  detail: string
  reference?: unknown
  target?: unknown
  /** Set when a declared divergence covers it; `expired` when its date has passed (then it counts again). */
  declared?: { reason: string, expires: string, expired: boolean }
}

export interface ProbeOutcome {
  probe: Probe
  /** 'skipped' when a side lacked what the probe needs, or --read-only left a write out. */
  state: 'same' | 'different' | 'skipped'
  skipped?: string
  reference?: Exchange
  target?: Exchange
  differences: Difference[]
}
