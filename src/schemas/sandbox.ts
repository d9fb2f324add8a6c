import { Type, type Static } from '@sinclair/typebox'
import { ref } from './common.js'
import { SnapshotName } from './snapshots.js'

/* The sandbox's own control API (/__sandbox): not part of the bank's API. */

const ScenarioName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', examples: ['default'], description: 'A scenario of GET /__sandbox/scenarios' })
const Seed = Type.Integer({ minimum: 0, maximum: 2147483647, examples: [42], description: "Seed of the generated data; default the scenario's (or, with no scenario given, the current one)" })

/** A public OAuth client of a partner (scenario files and the operator API). */
export const PublicClientDef = Type.Object({
  clientId: Type.String({ pattern: '^[a-z][a-z0-9-]{2,63}$', description: 'OAuth client id of a public client (no secret, PKCE) for browser apps' }),
  redirectUris: Type.Array(Type.String({ pattern: '^https?://[^\\s]+$' }), { minItems: 1, maxItems: 20, description: 'A trailing * is a prefix; http://localhost and http://127.0.0.1 match any port' })
}, { additionalProperties: false })

const GuaranteeState = Type.Union([Type.Literal('VALID'), Type.Literal('INVALID')], { examples: ['VALID'] })

export const ResetRequest = Type.Object({
  scenario: Type.Optional(ScenarioName),
  seed: Type.Optional(Seed)
}, { $id: 'SandboxResetRequest', title: 'SandboxResetRequest' })
export type ResetRequest = Static<typeof ResetRequest>

export const PartnerResetRequest = Type.Object({
  scenario: Type.Optional(ScenarioName),
  seed: Type.Optional(Seed),
  // typed as SnapshotName (a spread TString's type names TypeBox's symbols, which a declaration cannot)
  snapshot: Type.Optional<typeof SnapshotName>({ ...SnapshotName, description: 'A named snapshot of the partner (POST /__sandbox/snapshots) to return to; not together with scenario or seed' })
}, {
  $id: 'SandboxPartnerResetRequest',
  title: 'SandboxPartnerResetRequest',
  // snapshot goes alone: the example of the whole body is a scenario and seed
  examples: [{ scenario: 'default', seed: 42 }]
})

export const AgentRequest = Type.Object({
  scenario: Type.Optional(ScenarioName),
  seed: Type.Optional(Seed),
  like: Type.Optional(Type.String({ pattern: '^[0-9]{4,7}$', examples: ['1001'], description: "One of the partner's own scenario agents to copy (its generated data and fixed records, ids re-prefixed with the new agent's id); default the partner's first scenario agent. Another partner's agent is a 404, like an unknown one" })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, examples: ['CI RUN 42'] }))
}, { $id: 'SandboxAgentRequest', title: 'SandboxAgentRequest' })
export type AgentRequest = Static<typeof AgentRequest>

export const AgentIdParam = Type.Object({ agentId: Type.String({ pattern: '^[0-9]{4,7}$', examples: ['1003'] }) })

export const AgentSummary = Type.Object({
  agentId: Type.String(),
  name: Type.String(),
  fresh: Type.Boolean({ description: 'Created with POST /__sandbox/agents (deletable)' }),
  like: Type.String({ description: 'The scenario agent whose data it was built as' }),
  scenario: Type.String(),
  seed: Type.Integer(),
  customers: Type.Integer(),
  accounts: Type.Integer(),
  beneficiaries: Type.Integer(),
  messages: Type.Integer()
}, { $id: 'SandboxAgentSummary', title: 'SandboxAgentSummary' })

export const PartnerSummary = Type.Object({
  partnerId: Type.String(),
  name: Type.String(),
  scenario: Type.String(),
  seed: Type.Integer(),
  agents: Type.Array(ref(AgentSummary)),
  users: Type.Array(Type.String()),
  publicClients: Type.Array(Type.Object({ clientId: Type.String(), redirectUris: Type.Array(Type.String()) }), { description: 'Public clients (no secret, PKCE) for browser apps' }),
  guarantees: Type.Integer()
}, { $id: 'SandboxPartnerSummary', title: 'SandboxPartnerSummary' })

export const ScenarioSummary = Type.Object({
  name: Type.String(),
  description: Type.String(),
  seed: Type.Integer(),
  partners: Type.Array(Type.Object({ id: Type.String(), agents: Type.Array(Type.String()), users: Type.Array(Type.String()) }))
}, { $id: 'SandboxScenario', title: 'SandboxScenario' })

export const ScenarioList = Type.Object({ scenarios: Type.Array(ref(ScenarioSummary)) }, { $id: 'SandboxScenarioList', title: 'SandboxScenarioList' })

export const GuaranteeRequest = Type.Object({
  guaranteeId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, examples: ['GTE-CI-0001'], description: 'Assigned when absent' })),
  state: GuaranteeState
}, { $id: 'SandboxGuaranteeRequest', title: 'SandboxGuaranteeRequest' })
export type GuaranteeRequest = Static<typeof GuaranteeRequest>

export const GuaranteeStateRequest = Type.Object({
  state: GuaranteeState
}, { $id: 'SandboxGuaranteeStateRequest', title: 'SandboxGuaranteeStateRequest' })

export const Guarantee = Type.Object({
  guaranteeId: Type.String(),
  state: Type.String()
}, { $id: 'SandboxGuarantee', title: 'SandboxGuarantee' })

export const GuaranteeList = Type.Object({ guarantees: Type.Array(ref(Guarantee)) }, { $id: 'SandboxGuaranteeList', title: 'SandboxGuaranteeList' })

export const GuaranteeIdParam = Type.Object({ guaranteeId: Type.String({ minLength: 1, maxLength: 255, examples: ['GTE-CI-0001'] }) })

export const RegisterPartnerRequest = Type.Object({
  clientId: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9-]{2,63}$', examples: ['acme-conveyancing'], description: 'Client id to register; generated when absent' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, examples: ['ACME Conveyancing'] })),
  agents: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 1, examples: [2], description: 'How many agents the partner gets' })),
  redirectUris: Type.Optional(Type.Array(Type.String({ pattern: '^https?://[^\\s]+$' }), { maxItems: 20, examples: [['https://app.acme.example/callback']] })),
  publicClients: Type.Optional(Type.Array(PublicClientDef, { maxItems: 10, examples: [[{ clientId: 'acme-conveyancing-web', redirectUris: ['http://localhost/*'] }]], description: 'Public clients (no secret, PKCE) for browser apps, e.g. keycloak-js' })),
  scenario: Type.Optional(ScenarioName),
  seed: Type.Optional(Seed)
}, { $id: 'SandboxRegisterPartnerRequest', title: 'SandboxRegisterPartnerRequest' })
export type RegisterPartnerRequest = Static<typeof RegisterPartnerRequest>

export const RegisteredPartner = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.String({ description: 'Shown once; keep it' }),
  agentIds: Type.Array(Type.String()),
  tokenUrl: Type.String(),
  summary: ref(PartnerSummary)
}, { $id: 'SandboxRegisteredPartner', title: 'SandboxRegisteredPartner' })

export const ClientIdParam = Type.Object({ clientId: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$', examples: ['acme-conveyancing'] }) })

export const PartnerList = Type.Object({ partners: Type.Array(ref(PartnerSummary)) }, { $id: 'SandboxPartnerList', title: 'SandboxPartnerList' })

export const RotateSecretRequest = Type.Object({
  overlapSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604800, default: 0, examples: [3600], description: 'Seconds during which the secret it replaces still works (a rolling change of the partner\'s systems); 0: it stops at once. At most 7 days' })),
  clientSecret: Type.Optional(Type.String({ minLength: 16, maxLength: 128, pattern: '^[!-~]+$', examples: ['n3w-s3cret-of-the-operator-0123'], description: 'The new secret, when the operator chooses it (16 to 128 printable ASCII characters, no spaces); generated (192 random bits) when absent' }))
}, { $id: 'SandboxRotateSecretRequest', title: 'SandboxRotateSecretRequest' })

export const RotatedSecret = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.String({ description: 'Shown once; keep it (the sandbox keeps only its hash)' }),
  previousSecretValidUntil: Type.Optional(Type.String({ format: 'date-time', description: 'Until when the secret it replaced still works (with overlapSeconds)' })),
  tokenUrl: Type.String()
}, { $id: 'SandboxRotatedSecret', title: 'SandboxRotatedSecret' })

export const PartnerStanding = Type.Object({
  clientId: Type.String(),
  suspended: Type.Boolean({ description: 'Suspended: its token requests, tokens and console are refused; its data is kept' })
}, { $id: 'SandboxPartnerStanding', title: 'SandboxPartnerStanding' })

export const SANDBOX_SCHEMAS = [ResetRequest, PartnerResetRequest, AgentRequest, AgentSummary, PartnerSummary, ScenarioSummary, ScenarioList,
  GuaranteeRequest, GuaranteeStateRequest, Guarantee, GuaranteeList, RegisterPartnerRequest, RegisteredPartner, PartnerList,
  RotateSecretRequest, RotatedSecret, PartnerStanding]
