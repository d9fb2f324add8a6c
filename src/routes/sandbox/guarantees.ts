import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { errorResponses, ref } from '../../schemas/common.js'
import { Guarantee, GuaranteeIdParam, GuaranteeList, GuaranteeRequest, GuaranteeStateRequest } from '../../schemas/sandbox.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'

/** Creating a guarantee is "not shown" in the spec: the sandbox lets partners create them and set their state. */
export default async function guaranteeControl (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.guarantees
  const config = { partnerOnly: true }

  app.get('/guarantees', {
    schema: { tags: ['sandbox'], operationId: 'listGuarantees', summary: "List the partner's guarantees", description: 'The guarantees of the scenario and those created with POST /__sandbox/guarantees, with their state.', security: PARTNER_SECURITY, response: { 200: ref(GuaranteeList), ...errorResponses(401) } },
    config
  }, async (request) => ({ guarantees: repo.listOf(partnerOf(request)) }))

  app.post('/guarantees', {
    schema: {
      tags: ['sandbox'],
      operationId: 'createGuarantee',
      summary: 'Create a guarantee',
      description: 'A guarantee that GET /api/guarantees/{guaranteeID}/state then answers for (id assigned when absent; ids are unique sandbox-wide).',
      security: PARTNER_SECURITY,
      body: GuaranteeRequest,
      response: { 200: ref(Guarantee), ...errorResponses(400, 401, 403, 409, 413, 415) }
    },
    config
  }, async (request) => await repo.put(partnerOf(request), request.body.state, request.body.guaranteeId))

  app.put('/guarantees/:guaranteeId', {
    schema: {
      tags: ['sandbox'],
      operationId: 'setGuaranteeState',
      summary: 'Set the state of a guarantee',
      description: 'Sets (or creates) a guarantee of the partner with this id.',
      security: PARTNER_SECURITY,
      params: GuaranteeIdParam,
      body: GuaranteeStateRequest,
      response: { 200: ref(Guarantee), ...errorResponses(400, 401, 403, 409, 413, 415) }
    },
    config
  }, async (request) => await repo.put(partnerOf(request), request.body.state, request.params.guaranteeId))
}
