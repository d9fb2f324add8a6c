import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { notFound } from '../../errors.js'
import { overviewOf } from '../../overview.js'
import { errorResponses, ref } from '../../schemas/common.js'
import { Advice, ReadinessQuery } from '../../schemas/advice.js'
import { Overview, OverviewQuery } from '../../schemas/overview.js'
import { ClientIdParam } from '../../schemas/sandbox.js'
import { adviceOf } from './advice.js'
import { READINESS_ANSWER, sendReadiness } from './readiness.js'
import { ADMIN_SECURITY } from './shared.js'

/**
 * The operator's view of partners (issue 45): how far each is from go-live, and each one's readiness and advice
 * as the partner reads its own. Registered inside the operator endpoints (admin.ts): their token check applies.
 */
export default async function operatorOverview (fastify: FastifyInstance, opts: { observing: boolean }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { world, advisor, activity } = fastify
  const tags = ['sandbox operator']
  // the operator is no partner: never rate limited
  const config = { public: true, rateLimit: false as const }

  /** The partner of the path (not one of its public clients): 404 when there is none. */
  const partnerOf = async (clientId: string): Promise<string> => {
    if (await world.findClient(clientId) !== clientId) throw notFound('Partner', clientId)
    return clientId
  }

  app.get('/overview', {
    schema: {
      tags,
      operationId: 'getOverview',
      summary: 'Every partner: how far from go-live',
      description: 'Each partner (of the scenario and registered; deleted ones are gone) with its latest request, its requests and the 5xx answers the sandbox did not inject ' +
        'over the last 24 hours (the current hour, UTC, and the 23 before it), its findings and its readiness counts, as its own advice and readiness read them. ' +
        'Read from what the sandbox keeps per partner (no journal is scanned): every replica answers the same. Filter, sort and page with the query; the totals ' +
        'count every partner. docs/control-api.md "The operator\'s overview" defines each field.',
      security: ADMIN_SECURITY,
      querystring: OverviewQuery,
      response: { 200: ref(Overview), ...errorResponses(400, 401, 403) }
    },
    config
  }, async (request) => {
    const now = Date.now()
    const cards = await world.partnerCards()
    const ids = cards.map((c) => c.id)
    const [counts, summaries] = await Promise.all([activity.read(ids, now), advisor.summaries(ids)])
    return overviewOf({ cards, activity: counts, summaries, observing: opts.observing, now }, request.query)
  })

  app.get('/partners/:clientId/readiness', {
    schema: {
      tags,
      operationId: 'getPartnerReadiness',
      summary: "A partner's go-live readiness checklist",
      description: 'What GET /__sandbox/readiness answers the partner itself: each case passed, failed or not tried; JUnit XML with Accept: application/xml or ?format=junit.',
      security: ADMIN_SECURITY,
      params: ClientIdParam,
      querystring: ReadinessQuery,
      response: { 200: READINESS_ANSWER, ...errorResponses(400, 401, 403, 404) }
    },
    config
  }, async (request, reply) => await sendReadiness(request, reply, advisor.store, await partnerOf(request.params.clientId), opts.observing))

  app.get('/partners/:clientId/advice', {
    schema: {
      tags,
      operationId: 'getPartnerAdvice',
      summary: "A partner's findings",
      description: 'What GET /__sandbox/advice answers the partner itself: what its client does wrong, with counts, example request ids and what to change.',
      security: ADMIN_SECURITY,
      params: ClientIdParam,
      response: { 200: ref(Advice), ...errorResponses(401, 403, 404) }
    },
    config
  }, async (request) => await adviceOf(advisor, await partnerOf(request.params.clientId), opts.observing))
}
