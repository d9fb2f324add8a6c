import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { checklistOf, junitOf, type ReadinessState } from '../../advisor/readiness.js'
import { errorResponses, ref } from '../../schemas/common.js'
import type { AdvisorStore } from '../../store/advisor.js'
import { Readiness, ReadinessQuery } from '../../schemas/advice.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'

/** Whether the answer is JUnit XML: ?format=junit, or without format an Accept that prefers XML to JSON. */
function wantsJunit (request: FastifyRequest<{ Querystring: { format?: 'json' | 'junit' } }>): boolean {
  const format = request.query.format
  if (format !== undefined) return format === 'junit'
  const accept = request.headers.accept ?? ''
  return /\b(application|text)\/xml\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept)
}

/** The checklist's answer: JSON, or JUnit XML (application/xml) when asked for. */
export const READINESS_ANSWER = {
  description: 'The checklist',
  content: {
    'application/json': { schema: ref(Readiness) },
    'application/xml': { schema: Type.String({ description: 'JUnit XML: <testsuites> with one <testsuite> of one <testcase> per case' }) }
  }
}

/** Answers a partner's checklist as the request asks: JSON, or JUnit XML (the partner's own route and the operator's). */
export async function sendReadiness (request: FastifyRequest<{ Querystring: { format?: 'json' | 'junit' } }>, reply: FastifyReply, store: AdvisorStore, partnerId: string, observing: boolean): Promise<FastifyReply> {
  const checklist = checklistOf((await store.read(partnerId)).readiness as ReadinessState)
  if (!wantsJunit(request)) return await reply.header('vary', 'accept').send({ observing, ...checklist })
  return await reply.header('vary', 'accept').type('application/xml; charset=utf-8').serializer((xml: unknown) => xml as string).send(junitOf(partnerId, checklist, new Date()))
}

/** The go-live readiness checklist (issue 29; docs/advisor.md "Readiness"). */
export default async function readinessControl (fastify: FastifyInstance, opts: { observing: boolean }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { store } = fastify.advisor

  app.get('/readiness', {
    schema: {
      tags: ['sandbox advice'],
      operationId: 'getReadiness',
      summary: "Go-live readiness: which cases the partner's client handles",
      description: 'The checklist the bank wants to see a client handle (docs/advisor.md "Readiness"): each case passed with the request ids that prove it, ' +
        'failed with why, or not-tried with how to provoke it (fault header, magic value or control). Judged as each request is journaled, on every ' +
        'replica, since the partner\'s last reset or DELETE /__sandbox/advice, beyond the journal\'s bound; the control API\'s requests are not judged. ' +
        'As JUnit XML with Accept: application/xml or ?format=junit (one test case per case, not-tried as skipped, failed as failure) for a CI to publish.',
      security: PARTNER_SECURITY,
      querystring: ReadinessQuery,
      response: { 200: READINESS_ANSWER, ...errorResponses(400, 401) }
    },
    config: { partnerOnly: true }
  }, async (request, reply) => await sendReadiness(request, reply, store, partnerOf(request), opts.observing))
}
