import { Type, type Static } from '@sinclair/typebox'
import { ADVICE_CODES } from './advice.js'
import { PageInfo, SortResponse, ref } from './common.js'

/* The operator's view of partners (GET /__sandbox/admin/overview, issue 45): how far each partner is from go-live. */

/** What the list can be sorted by (Spring Data's sort=property,direction). */
export const OVERVIEW_SORTS = ['clientId', 'name', 'registered', 'lastRequestAt', 'requests24h', 'serverErrors24h', 'findings', 'readiness'] as const
export type OverviewSort = typeof OVERVIEW_SORTS[number]

export const MAX_OVERVIEW_SIZE = 1000

const flag = (description: string): ReturnType<typeof Type.Boolean> => Type.Boolean({ description, examples: [true] })

export const OverviewQuery = Type.Object({
  page: Type.Integer({ minimum: 0, maximum: 2147483647, default: 0, examples: [0], description: '0-indexed page of the list' }),
  size: Type.Integer({ minimum: 1, maximum: MAX_OVERVIEW_SIZE, default: 100, examples: [50], description: `Partners per page, 1 to ${MAX_OVERVIEW_SIZE}` }),
  sort: Type.String({
    pattern: `^(${OVERVIEW_SORTS.join('|')})(,(asc|desc|ASC|DESC))?$`,
    default: 'lastRequestAt,desc',
    examples: ['readiness,desc'],
    description: `A property and an optional direction (asc by default), as Spring Data reads it: ${OVERVIEW_SORTS.join(', ')}. findings sorts by how many, ` +
      'readiness by cases passed (then fewer failed first), lastRequestAt with "never" as the oldest. Ties go by clientId, ascending.'
  }),
  active: Type.Optional(flag('true: only partners with a request in the window; false: only those without')),
  ready: Type.Optional(flag('true: only partners whose readiness checklist passed every case; false: the others')),
  attention: Type.Optional(flag('true: only partners that need attention (a 5xx of the sandbox in the window, a finding, or a failed readiness case); false: the others')),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 128, examples: ['acme'], description: 'Only partners whose client id or name contains this text (any case)' }))
// (a parameter it does not know is ignored, as Spring ignores one)
})
export type OverviewQuery = Static<typeof OverviewQuery>

const Count = Type.Integer({ minimum: 0 })

export const ReadinessCounts = Type.Object({
  passed: Count,
  failed: Count,
  notTried: Count
}, { $id: 'SandboxReadinessCounts', title: 'SandboxReadinessCounts', description: "The partner's readiness checklist (GET /__sandbox/admin/partners/{clientId}/readiness) counted", additionalProperties: false })

const EXAMPLE_PARTNER = {
  clientId: 'acme-conveyancing',
  name: 'ACME Conveyancing',
  registered: true,
  lastRequestAt: '2026-03-02T10:15:06.480Z',
  requests24h: 1834,
  serverErrors24h: 0,
  findings: ['RETRY_AFTER_IGNORED'],
  readiness: { passed: 6, failed: 1, notTried: 1 },
  active: true,
  ready: false,
  attention: true
}

export const PartnerOverview = Type.Object({
  clientId: Type.String({ description: "The partner's client id" }),
  name: Type.String(),
  registered: Type.Boolean({ description: 'Registered through POST /__sandbox/admin/partners; false for a partner of the scenario the sandbox started with' }),
  lastRequestAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Arrival of its latest request, whenever it was; null for none since the sandbox (with replicas: its Redis) has had it' }),
  requests24h: Type.Integer({ minimum: 0, description: 'Its requests in the window: what its journal files (API, control API and token requests made with its tokens or its client credentials), counted whether the journal is on or off' }),
  serverErrors24h: Type.Integer({ minimum: 0, description: 'Of those, the answers with a 5xx status that the sandbox did not inject (no Sandbox-Fault-Applied header): the sandbox failed them' }),
  findings: Type.Array(Type.Union(ADVICE_CODES.map((c) => Type.Literal(c))), { description: "The codes of its advice's findings (GET /__sandbox/advice), errors first" }),
  readiness: ref(ReadinessCounts),
  active: Type.Boolean({ description: 'requests24h > 0' }),
  ready: Type.Boolean({ description: 'Every readiness case passed' }),
  attention: Type.Boolean({ description: 'serverErrors24h > 0, a finding, or a failed readiness case' })
}, { $id: 'SandboxPartnerOverview', title: 'SandboxPartnerOverview', additionalProperties: false, examples: [EXAMPLE_PARTNER] })

export const OverviewTotals = Type.Object({
  partners: Count,
  active: Count,
  attention: Count,
  ready: Count
}, { $id: 'SandboxOverviewTotals', title: 'SandboxOverviewTotals', description: 'Every partner of the sandbox counted, whatever the filters', additionalProperties: false })

export const Overview = Type.Object({
  observing: Type.Boolean({ description: 'false while the request journal is off (SANDBOX_JOURNAL_SIZE=0): findings and readiness are judged from journaled requests, none then; the request counts go on' }),
  window: Type.Object({
    from: Type.String({ format: 'date-time', description: 'Start of the oldest hour counted' }),
    to: Type.String({ format: 'date-time', description: 'Now: when the answer was made' })
  }, { additionalProperties: false, description: 'The window of requests24h and serverErrors24h: the current hour (UTC) and the 23 before it' }),
  totals: ref(OverviewTotals),
  page: ref(PageInfo),
  sortResponses: Type.Array(ref(SortResponse), { description: 'The order applied: the property and ASC or DESC' }),
  partners: Type.Array(ref(PartnerOverview), { description: 'The page of partners that pass the filters, in that order' })
}, {
  $id: 'SandboxOverview',
  title: 'SandboxOverview',
  additionalProperties: false,
  examples: [{
    observing: true,
    window: { from: '2026-03-01T11:00:00.000Z', to: '2026-03-02T10:20:31.042Z' },
    totals: { partners: 1, active: 1, attention: 1, ready: 0 },
    page: { page: 0, pageSize: 100, numberOfElements: 1, totalElements: 1, totalPages: 1, first: true, last: true },
    sortResponses: [{ property: 'lastRequestAt', direction: 'DESC' }],
    partners: [EXAMPLE_PARTNER]
  }]
})
export type Overview = Static<typeof Overview>
export type PartnerOverview = Static<typeof PartnerOverview>

export const OVERVIEW_SCHEMAS = [ReadinessCounts, PartnerOverview, OverviewTotals, Overview]
