import { Type, type Static } from '@sinclair/typebox'

/* Requests and answers of "Is my integration ready?" (issue 29): the advisor's findings, the token controls its checklist needs. */

/** The advisor's finding codes (src/advisor/advice.ts judges them): a contract, partners assert on them. */
export const ADVICE_CODES = ['TOKEN_PER_REQUEST', 'RETRY_WITHOUT_BACKOFF', 'RETRY_AFTER_IGNORED', 'DUPLICATE_CREATE', 'REJECTED_TOKEN_REUSED', 'DEPRECATED_VERSION', 'POLLING_TOO_FAST', 'REPEATED_CLIENT_ERROR'] as const
export type AdviceCode = typeof ADVICE_CODES[number]

/** The readiness checklist's cases (src/advisor/readiness.ts judges them): a contract too. */
export const READINESS_CASES = ['RETRIES_SERVER_ERROR', 'HONOURS_RETRY_AFTER', 'NO_DUPLICATE_AFTER_TIMEOUT', 'REFRESHES_EXPIRED_TOKEN',
  'SURVIVES_TOKEN_ENDPOINT_OUTAGE', 'HANDLES_VALIDATION_ERROR', 'PAGES_TO_THE_END', 'USES_CURRENT_VERSION'] as const
export type ReadinessCase = typeof READINESS_CASES[number]

const TOKEN_PATH = '/**/protocol/openid-connect/token'

/** What each case is, and how a partner provokes it (the fault header, magic value or control, concretely). */
export const CASES: Record<ReadinessCase, { title: string, howTo: string }> = {
  RETRIES_SERVER_ERROR: {
    title: 'Retries a read that failed with 500, 502 or 503, after a pause',
    howTo: 'Make one read fail: send it with the header "Sandbox-Fault: status=503", or add the rule {"match":{"method":"GET","path":"/api/banks"},"fault":"status=500","times":1} (POST /__sandbox/faults). Your client should send the same read again after a pause and get a 2xx.'
  },
  HONOURS_RETRY_AFTER: {
    title: 'Waits for Retry-After after a 429 or 503, then succeeds',
    howTo: 'Add the rule {"match":{"path":"/api/banks"},"fault":"status=503","times":1} (POST /__sandbox/faults): the 503 carries Retry-After: 5. Your client should send nothing to the API for those 5 seconds, then succeed.'
  },
  NO_DUPLICATE_AFTER_TIMEOUT: {
    title: 'Makes no second record after a create whose answer was lost',
    howTo: 'Create a record with the header "Sandbox-Fault: after, timeout" (or "after, status=502", or the magic value SANDBOX-AFTER-502 in customerReference, productCode, beneficiaryReference or message): the record is made, the answer lost. Your client should look it up before creating it again (or not repeat), then carry on.'
  },
  REFRESHES_EXPIRED_TOKEN: {
    title: 'Gets a new token after a 401 invalid_token, and the call succeeds',
    howTo: 'POST /__sandbox/tokens/expire: every token your client holds is refused from then on with 401 invalid_token. Your client should get a new token (or refresh) once and call again with it.'
  },
  SURVIVES_TOKEN_ENDPOINT_OUTAGE: {
    title: 'Gets a token after a failed token request (5xx, timeout)',
    howTo: `Add the rule {"match":{"method":"POST","path":"${TOKEN_PATH}"},"fault":"status=503","times":1} (POST /__sandbox/faults), then POST /__sandbox/tokens/expire so that your client needs a new token. Its token request fails; it should ask again after a pause and get one.`
  },
  HANDLES_VALIDATION_ERROR: {
    title: 'Does not send a refused create again unchanged, and later makes a valid one',
    howTo: 'Send a create the API refuses with 400 (POST /api/customers with "mobilePhoneNumber": "123"): the answer\'s errors[] names the field. Your client should not send it again unchanged, and later make a valid create.'
  },
  PAGES_TO_THE_END: {
    title: 'Walks a list page by page to the last page',
    howTo: 'Read a list of more than one page from page=0 on, one page after the other, until the answer\'s page.last is true (GET /api/customers?page=0, then page=1, ...: four pages of the default size, 10, in the default scenario).'
  },
  USES_CURRENT_VERSION: {
    title: 'Calls the current API version only',
    howTo: 'Call the bank\'s API at /api/... (the current version). A call under a deprecated version prefix (/4.0/api/..., answered with a Deprecation header) fails this case.'
  }
}

export const TokenExpiryRequest = Type.Object({
  refresh: Type.Optional(Type.Boolean({ default: false, description: 'Expire the refresh tokens issued so far too: the client must sign in again (a new grant) instead of refreshing', examples: [true] }))
}, { $id: 'SandboxTokenExpiryRequest', title: 'SandboxTokenExpiryRequest', additionalProperties: false })
export type TokenExpiryRequest = Static<typeof TokenExpiryRequest>

export const TokenExpiry = Type.Object({
  issuedBefore: Type.String({ format: 'date-time', description: 'Access tokens (and with refresh, refresh tokens) of the partner issued before this instant are refused as expired' }),
  refresh: Type.Boolean({ description: 'Refresh tokens are expired too' })
}, { $id: 'SandboxTokenExpiry', title: 'SandboxTokenExpiry' })

const EXAMPLE_FINDING = {
  code: 'RETRY_AFTER_IGNORED',
  severity: 'error',
  title: 'Requests sent before Retry-After had passed',
  count: 3,
  firstSeen: '2026-03-02T10:15:04.120Z',
  lastSeen: '2026-03-02T10:15:06.480Z',
  examples: ['7d9a4c1e-5b2f-4e08-9c61-3f0a2b8d4e11', 'req-42'],
  advice: 'After a 429 or 503 with Retry-After, send nothing to that endpoint before the seconds (or the date) it gives have passed; the bank refuses those requests anyway and may lengthen the wait.',
  docs: 'docs/advisor.md#retry_after_ignored'
}

export const AdviceFinding = Type.Object({
  code: Type.Union(ADVICE_CODES.map((c) => Type.Literal(c)), { description: 'What the client does wrong; a contract (docs/advisor.md lists them)' }),
  severity: Type.Union([Type.Literal('error'), Type.Literal('warning'), Type.Literal('info')], { description: 'error: breaks or harms in production; warning: works, but costs or will stop working; info: worth knowing' }),
  title: Type.String({ description: 'The finding in a line' }),
  count: Type.Integer({ minimum: 1, description: 'Requests that showed it since the advice was last cleared' }),
  firstSeen: Type.String({ format: 'date-time', description: 'Arrival of the first of them' }),
  lastSeen: Type.String({ format: 'date-time', description: 'Arrival of the latest' }),
  examples: Type.Array(Type.String(), { maxItems: 5, description: 'Request ids (X-Request-Id) of the latest of them, newest first: GET /__sandbox/requests/{id} shows each while the journal holds it' }),
  advice: Type.String({ description: 'What to change' }),
  docs: Type.String({ description: 'Where the finding is explained: a section of docs/advisor.md' })
}, { $id: 'SandboxAdviceFinding', title: 'SandboxAdviceFinding', additionalProperties: false, examples: [EXAMPLE_FINDING] })

export const Advice = Type.Object({
  observing: Type.Boolean({ description: 'false while the request journal is off (SANDBOX_JOURNAL_SIZE=0): the advisor judges the requests it journals, none then' }),
  requests: Type.Integer({ minimum: 0, description: "The partner's requests judged since the advice was last cleared (a reset or DELETE /__sandbox/advice); the control API's are not judged" }),
  findings: Type.Array(Type.Ref(AdviceFinding), { description: 'Errors first, then warnings and infos, each group latest first; empty for a client that does nothing wrong' })
}, { $id: 'SandboxAdvice', title: 'SandboxAdvice', additionalProperties: false, examples: [{ observing: true, requests: 214, findings: [EXAMPLE_FINDING] }] })

const EXAMPLE_CASES = [
  { case: 'RETRIES_SERVER_ERROR', status: 'passed', title: CASES.RETRIES_SERVER_ERROR.title, requestIds: ['req-41', 'req-42'], reason: null, howTo: null, since: '2026-03-02T10:15:04.120Z', docs: 'docs/advisor.md#retries_server_error' },
  { case: 'HONOURS_RETRY_AFTER', status: 'failed', title: CASES.HONOURS_RETRY_AFTER.title, requestIds: ['req-43', 'req-44'], reason: 'a request was sent 0.2 s after the 503 whose Retry-After asked for 5 s', howTo: CASES.HONOURS_RETRY_AFTER.howTo, since: '2026-03-02T10:15:06.480Z', docs: 'docs/advisor.md#honours_retry_after' },
  { case: 'PAGES_TO_THE_END', status: 'not-tried', title: CASES.PAGES_TO_THE_END.title, requestIds: [], reason: null, howTo: CASES.PAGES_TO_THE_END.howTo, since: null, docs: 'docs/advisor.md#pages_to_the_end' }
]

export const ReadinessCaseResult = Type.Object({
  case: Type.Union(READINESS_CASES.map((c) => Type.Literal(c)), { description: 'The case; a contract (docs/advisor.md lists them)' }),
  status: Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('not-tried')], { description: "passed: the partner's requests show the client handles it; failed: they show it does not (reason); not-tried: nothing shows it yet (howTo)" }),
  title: Type.String({ description: 'What the bank wants to see, in a line' }),
  requestIds: Type.Array(Type.String(), { maxItems: 5, description: 'The requests (X-Request-Id) that prove the verdict, in order: GET /__sandbox/requests/{id} shows each while the journal holds it' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the case failed; null otherwise' }),
  howTo: Type.Union([Type.String(), Type.Null()], { description: 'How to provoke the case (the fault header, magic value or control to use), for not-tried and failed; null when passed' }),
  since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Arrival of the request that decided the verdict; null when not tried' }),
  docs: Type.String({ description: 'Where the case is explained: a section of docs/advisor.md' })
}, { $id: 'SandboxReadinessCase', title: 'SandboxReadinessCase', additionalProperties: false, examples: [EXAMPLE_CASES[0]] })

export const Readiness = Type.Object({
  observing: Type.Boolean({ description: 'false while the request journal is off (SANDBOX_JOURNAL_SIZE=0): the checklist is judged from the requests journaled, none then' }),
  ready: Type.Boolean({ description: 'Every case passed' }),
  passed: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
  notTried: Type.Integer({ minimum: 0 }),
  cases: Type.Array(Type.Ref(ReadinessCaseResult), { description: 'Every case, in the published order' })
}, { $id: 'SandboxReadiness', title: 'SandboxReadiness', additionalProperties: false, examples: [{ observing: true, ready: false, passed: 1, failed: 1, notTried: 1, cases: EXAMPLE_CASES }] })

export const ReadinessQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('junit')], { description: 'junit: the checklist as JUnit XML (as Accept: application/xml asks); json (the default) wins over Accept', examples: ['junit'] }))
}, { additionalProperties: false })

export const ADVICE_SCHEMAS = [TokenExpiryRequest, TokenExpiry, AdviceFinding, Advice, ReadinessCaseResult, Readiness]
