import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { Advisor } from '../../advisor/index.js'
import { findingsOf, type AdviceState } from '../../advisor/advice.js'
import { errorResponses, ref } from '../../schemas/common.js'
import { Advice } from '../../schemas/advice.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'

/** A partner's advice as GET /__sandbox/advice answers it (the partner's own route and the operator's). */
export async function adviceOf (advisor: Pick<Advisor, 'store' | 'thresholds'>, partnerId: string, observing: boolean): Promise<Static<typeof Advice>> {
  const state = (await advisor.store.read(partnerId)).advice as AdviceState
  return { observing, requests: state.requests, findings: findingsOf(state, advisor.thresholds) }
}

/** The integration advisor's findings about the partner's own traffic (issue 29; docs/advisor.md). */
export default async function adviceControl (fastify: FastifyInstance, opts: { observing: boolean }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { store } = fastify.advisor
  const tags = ['sandbox advice']
  const config = { partnerOnly: true }

  app.get('/advice', {
    schema: {
      tags,
      operationId: 'getAdvice',
      summary: "What the partner's client does wrong",
      description: "Findings about the partner's requests (its tokens', its clients' at the token endpoint), judged as each is journaled, on every replica: " +
        'a code (a contract: docs/advisor.md), severity, title, how many requests showed it and when, up to 5 of their request ids, and what to change. ' +
        'Counted since the advice was last cleared (DELETE, or a reset), beyond the journal\'s bound. A client that does nothing wrong gets none. ' +
        'Thresholds: SANDBOX_ADVICE_* (docs/advisor.md). Requests to /__sandbox are not judged.',
      security: PARTNER_SECURITY,
      response: { 200: ref(Advice), ...errorResponses(401) }
    },
    config
  }, async (request) => await adviceOf(fastify.advisor, partnerOf(request), opts.observing))

  app.delete('/advice', {
    schema: {
      tags,
      operationId: 'clearAdvice',
      summary: 'Clear the findings and the readiness checklist',
      description: 'The advisor starts afresh for the partner (its findings, its readiness checklist and the windows behind them), as after a reset: for a run that should be judged on its own.',
      security: PARTNER_SECURITY,
      response: { 204: Type.Null({ description: 'Cleared' }), ...errorResponses(401) }
    },
    config
  }, async (request, reply) => {
    await store.clear(partnerOf(request), ['advice', 'readiness'])
    return reply.code(204).send(null)
  })
}
