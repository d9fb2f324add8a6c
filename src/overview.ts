import type { AdvisorSummary } from './advisor/summary.js'
import { NO_ACTIVITY, windowStart, type Activity } from './store/activity.js'
import type { PartnerCard } from './store/world.js'
import type { Overview, OverviewQuery, OverviewSort, PartnerOverview } from './schemas/overview.js'

/*
 * The operator's overview (GET /__sandbox/admin/overview, issue 45): each partner's card, activity and advisor
 * summary made into one row, then filtered, sorted and cut into a page. Every row is made for every partner
 * (the totals and any order need them all); what each costs is what its stores keep, a few numbers each.
 */

const NO_SUMMARY: AdvisorSummary = { findings: [], readiness: { passed: 0, failed: 0, notTried: 0 } }

function rowOf (card: PartnerCard, activity: Activity, summary: AdvisorSummary): PartnerOverview {
  const { readiness, findings } = summary
  const serverErrors24h = activity.serverErrors
  return {
    clientId: card.id,
    name: card.name,
    registered: card.registered,
    lastRequestAt: activity.lastRequestAt === null ? null : new Date(activity.lastRequestAt).toISOString(),
    requests24h: activity.requests,
    serverErrors24h,
    findings,
    readiness,
    active: activity.requests > 0,
    ready: readiness.failed === 0 && readiness.notTried === 0,
    attention: serverErrors24h > 0 || findings.length > 0 || readiness.failed > 0
  }
}

type Compare = (a: PartnerOverview, b: PartnerOverview) => number

const byNumber = (key: (p: PartnerOverview) => number): Compare => (a, b) => key(a) - key(b)
const byText = (key: (p: PartnerOverview) => string): Compare => (a, b) => key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0

// made once: localeCompare with options makes a collator at every call (a sort of 5,000 names took 300 ms)
const NAMES = new Intl.Collator('en', { sensitivity: 'base' })

/** Each sort property's ascending order. */
const ORDERS: Record<OverviewSort, Compare> = {
  clientId: byText((p) => p.clientId),
  name: (a, b) => NAMES.compare(a.name, b.name),
  registered: byNumber((p) => Number(p.registered)),
  // (ISO times of one format compare as text; never is the oldest)
  lastRequestAt: byText((p) => p.lastRequestAt ?? ''),
  requests24h: byNumber((p) => p.requests24h),
  serverErrors24h: byNumber((p) => p.serverErrors24h),
  findings: byNumber((p) => p.findings.length),
  // more cases passed is further on; of as many passed, fewer failed
  readiness: (a, b) => a.readiness.passed - b.readiness.passed || b.readiness.failed - a.readiness.failed
}

/** sort=property[,direction] read (the schema checked its form). */
export function sortOf (sort: string): { property: OverviewSort, descending: boolean } {
  const [property, direction] = sort.split(',')
  return { property: property as OverviewSort, descending: direction?.toLowerCase() === 'desc' }
}

function passes (p: PartnerOverview, q: OverviewQuery): boolean {
  if (q.active !== undefined && p.active !== q.active) return false
  if (q.ready !== undefined && p.ready !== q.ready) return false
  if (q.attention !== undefined && p.attention !== q.attention) return false
  if (q.q === undefined) return true
  const text = q.q.toLowerCase()
  return p.clientId.toLowerCase().includes(text) || p.name.toLowerCase().includes(text)
}

export interface OverviewSources {
  cards: PartnerCard[]
  activity: Map<string, Activity>
  summaries: Map<string, AdvisorSummary>
  observing: boolean
  now: number
}

export function overviewOf (s: OverviewSources, q: OverviewQuery): Overview {
  const rows = s.cards.map((c) => rowOf(c, s.activity.get(c.id) ?? NO_ACTIVITY, s.summaries.get(c.id) ?? NO_SUMMARY))
  const { property, descending } = sortOf(q.sort)
  const order = ORDERS[property]
  const shown = rows.filter((p) => passes(p, q))
    .sort((a, b) => (descending ? order(b, a) : order(a, b)) || ORDERS.clientId(a, b))
  const from = q.page * q.size
  const partners = shown.slice(from, from + q.size)
  const totalPages = Math.ceil(shown.length / q.size)
  return {
    observing: s.observing,
    window: { from: new Date(windowStart(s.now)).toISOString(), to: new Date(s.now).toISOString() },
    totals: {
      partners: rows.length,
      active: rows.filter((p) => p.active).length,
      attention: rows.filter((p) => p.attention).length,
      ready: rows.filter((p) => p.ready).length
    },
    page: { page: q.page, pageSize: q.size, numberOfElements: partners.length, totalElements: shown.length, totalPages, first: q.page === 0, last: q.page >= totalPages - 1 },
    sortResponses: [{ property, direction: descending ? 'DESC' : 'ASC' }],
    partners
  }
}
