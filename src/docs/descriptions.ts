import { REALM_PATH } from '../auth/realm.js'
import { LATEST_VERSION, VERSIONS } from '../api-versions.js'
import { DOCS_PATH, POSTMAN_ENVIRONMENT_PATH, POSTMAN_PATH, SANDBOX_DOCS_PATH } from './paths.js'

/*
 * The prose of the published documents: what a reader of the API docs learns before any operation.
 */

/** design.md "Decisions where the spec is silent", as the documents state them. */
const DECISIONS = [
  'Authentication (spec 5 "not shown"): access tokens are sent as `Authorization: Bearer <access token>`. They are RS256 JWTs of the embedded identity provider, which follows Keycloak\'s layout ' +
    `(issuer {server}${REALM_PATH}, discovery at ${REALM_PATH}/.well-known/openid-configuration). Grants: client_credentials (scope=openid accepted), authorization_code with PKCE for test users, ` +
    'password (Keycloak\'s direct access grant), refresh_token.',
  'Tenancy: a partner is an OAuth client owning agents; the Agent-Id header must name one of them (one of the user\'s agents for a user token). A record of another agent or partner is a 404, exactly like one that does not exist.',
  'Errors (spec 7 "not shown"): Spring Boot\'s default error body (ErrorBody) with message and errors[] in Hibernate Validator\'s wording; the X-Sandbox-Error header names the cause. ' +
    '400 invalid input or missing Agent-Id, 401 missing or invalid token, 403 Agent-Id not bound to the token, 404 unknown or not yours, 405 wrong method, 406 an Accept header without JSON, ' +
    '408 a request too slow to arrive, 413 body too large, 415 not JSON, 431 headers too large, 503 overloaded. A JSON null counts as absent.',
  'Rate limit (the sandbox\'s, for a shared hosted sandbox; off unless the operator sets SANDBOX_RATE_LIMIT): each partner may make that many requests per second to /api and /__sandbox together ' +
    '(a request without a token, spec 4.13, counts against its address); above it any operation answers 429 (X-Sandbox-Error SANDBOX_ERR_RATE_LIMITED) with Retry-After, when the partner\'s one-second window ends, ' +
    'and every answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (draft-ietf-httpapi-ratelimit-headers). ' +
    'The token endpoint has a limit of its own (SANDBOX_TOKEN_RATE_LIMIT, token requests per second per client; off unless set): above it a 429 of the same form with Retry-After: 1. Reuse a token until it expires.',
  'Validation follows Bean Validation: rules of optional fields apply only when present; digit counts (@Digits) parse the value as a decimal number; sizes count characters; unknown body properties are ignored. ' +
    'Rules JSON Schema cannot say (South African ID number, company registration number, name2 of individuals, known bank, product and investment type, default customer not repeated) are checked too and reported the same way.',
  'Paging (spec 2.1): page >= 0, size 1 to 2000 (the maximum is the sandbox\'s), read as Spring reads an Integer parameter (whitespace ignored, sign or hex allowed, empty means the default, a repeated parameter its first value; 1.0 or 1e3 is a 400 typeMismatch); every list carries page and sortResponses: [] besides its named array, even where the spec\'s samples show only the array.',
  'Creates answer 200 with the stored record (spec 7). Dates and times are South African Standard Time, on the partner\'s sandbox clock (real time unless the partner set it).',
  'Products (spec 4.16 shows no path) are served at GET /api/products and GET /api/products/{productCode}.',
  'Guarantees: creating one is "not shown"; they come from the scenarios and the sandbox control API, and ids starting VALID-, INVALID-, NOSTATE- and NOTFOUND- answer without any set-up.'
]

const deprecatedVersions = Object.entries(VERSIONS).filter(([, s]) => s === 'deprecated').map(([v]) => `/${v}`)

/** The introduction of the bank's API document (OpenAPI 3 and Swagger 2.0). */
export function apiDescription (publicUrl: string): string {
  return 'The Banking Agent REST Service, release 4.1.0, as served by the Banking Agent Sandbox: the same paths, fields, validation and OAuth 2.0 / OpenID Connect flows ' +
    'as the bank, over seeded test data. Every operation cites its section of the specification.\n\n' +
    `Versions (spec 9): /api/... and /${LATEST_VERSION}/api/... are the latest; ${deprecatedVersions.join(', ')} serve the same operations with a Deprecation header ` +
    '(RFC 9745) and a Link rel="deprecation" to their documentation; /1.3 serves them without. Each version has its documents at /{version}/api/docs/apidocs.\n\n' +
    'Try it: Authorize with the client credentials of partner-a (partner-a / partner-a-secret) or as test user alice (alice-password), then send Agent-Id 1001. ' +
    'The examples are the default data set (scenario default): customer 1001100000001, its accounts, beneficiaries and messages.\n\n' +
    'Where the spec is silent, the sandbox decided:\n' + DECISIONS.map((d) => `- ${d}`).join('\n') + '\n\n' +
    'Sandbox extension, not part of the bank\'s API: a request to any operation may carry the header `Sandbox-Fault` to make the sandbox fail on purpose: ' +
    'a comma-separated list of `status=<400-599>` (that error instead of the operation, in the error body above; 429 and 503 with Retry-After), ' +
    '`latency=<0-60000>` (milliseconds to wait first), `reset` (the connection closed without an answer), `timeout` (no answer until the client gives up) ' +
    'and `after` (run the operation first, then apply the rest: `after, status=502` creates the record and still answers 502). Prism\'s `Prefer: code=<status>` works too. ' +
    'A malformed value is a 400 naming the header; every answer with an injected fault carries `Sandbox-Fault-Applied` (the fault and its source). ' +
    'Fault rules, magic values, state controls and the partner\'s clock are in the control API.\n\n' +
    `The sandbox's own control API (resets, fresh agents, guarantees, faults, state, clock) has its own document: ${publicUrl}${SANDBOX_DOCS_PATH}/openapi.json.\n\n` +
    `Postman: import ${publicUrl}${POSTMAN_PATH} (this document as a collection, with OAuth 2.0 client credentials set on the collection) ` +
    `and the environment ${publicUrl}${POSTMAN_ENVIRONMENT_PATH}; newman runs it as it is.`
}

/** The bank's API grouped by resource, each group naming its sections of the spec. */
export const API_TAGS = [
  ['accounts', 'spec 4.1 to 4.3'], ['banks', 'spec 4.4'], ['beneficiaries', 'spec 4.5 to 4.7'], ['customers', 'spec 4.8 to 4.11'], ['messages', 'spec 4.12'],
  ['guarantees', 'spec 4.13 (no authentication)'], ['investment types', 'spec 4.14'], ['public accounts', 'spec 4.15'], ['products', 'spec 4.16 (path assumed by the sandbox)']
].map(([name, description]) => ({ name, description }))

/** The introduction of the sandbox control API's document. */
export function sandboxDescription (publicUrl: string): string {
  return 'Resets, scenarios, fresh agents, guarantees, fault rules, magic values, state controls, the partner\'s clock, the request journal, snapshots and operator endpoints ' +
    `of the Banking Agent Sandbox. Not part of the bank's API (documented at ${publicUrl}${DOCS_PATH}). Partner endpoints take any access token of the partner and no Agent-Id, except the state ` +
    'controls (accounts, customers), which act as one agent and take the Agent-Id header like the bank\'s API; operator endpoints under /__sandbox/admin ' +
    'take the operator token and are off unless SANDBOX_ADMIN_TOKEN is set. Errors use the same ErrorBody as the bank\'s API. ' +
    'With SANDBOX_RATE_LIMIT set, partner endpoints count against the partner\'s requests per second like the bank\'s API (429 with Retry-After above it); operator endpoints are never limited.'
}

export const SANDBOX_TAGS = [{ name: 'sandbox', description: 'What a partner does to its own data' },
  { name: 'sandbox faults', description: 'Make the bank fail on purpose: fault rules and magic values (the Sandbox-Fault header is described in the bank API document)' },
  { name: 'sandbox state', description: 'Move the partner\'s data into hard-to-reach states: closed accounts, balances, KYC, the partner\'s clock' },
  { name: 'sandbox journal', description: 'The requests the partner sent and what the sandbox answered' },
  { name: 'sandbox snapshots', description: "The partner's whole state as a document, and named snapshots to return to" },
  { name: 'sandbox advice', description: 'Is my integration ready? Findings about what the partner\'s client does wrong, the go-live checklist of what it handles, and the token controls the checklist needs' },
  { name: 'sandbox operator', description: 'Operator endpoints (SANDBOX_ADMIN_TOKEN)' }]
