import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { errorResponses, ref } from '../../schemas/common.js'
import { Clock, ClockRequest } from '../../schemas/sandbox-controls.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'

const CLOCK_NOTE = "Every date the API writes for this partner's data follows its clock: account openedDate and closedDate, message dateCreated, " +
  'error timestamps. Other partners and tokens (iat, exp) stay on real time. A partner reset returns the clock to real time.'

/** A sandbox clock per partner (issue 11), in the spirit of Stripe's test clocks. */
export default async function clockControl (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.sandboxState
  const config = { partnerOnly: true }

  app.get('/clock', {
    schema: { tags: ['sandbox state'], operationId: 'getClock', summary: "Read the partner's clock", description: CLOCK_NOTE, security: PARTNER_SECURITY, response: { 200: ref(Clock), ...errorResponses(401) } },
    config
  }, async (request) => repo.clock(partnerOf(request)))

  app.put('/clock', {
    schema: {
      tags: ['sandbox state'],
      operationId: 'setClock',
      summary: "Set or advance the partner's clock",
      description: '{"now": "<date-time>"} sets it (it runs on from there, or stays there with "frozen": true); {"advance": "P30D"} moves it forward by an ' +
        `ISO 8601 duration (years and months step the calendar, clamped to the month's end). ${CLOCK_NOTE}`,
      security: PARTNER_SECURITY,
      body: ref(ClockRequest),
      response: { 200: ref(Clock), ...errorResponses(400, 401, 413, 415) }
    },
    config
  }, async (request) => await repo.setClock(partnerOf(request), request.body))

  app.delete('/clock', {
    schema: { tags: ['sandbox state'], operationId: 'resetClock', summary: "Return the partner's clock to real time", description: 'Dates written from now on are real-time dates again; dates already written stay as they are.', security: PARTNER_SECURITY, response: { 200: ref(Clock), ...errorResponses(401) } },
    config
  }, async (request) => await repo.resetClock(partnerOf(request)))
}
