import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { errorResponses, ref } from '../../schemas/common.js'
import { GuaranteeParams, GuaranteeState } from '../../schemas/guarantees.js'
import { MAGIC_GUARANTEE_PREFIXES } from '../../faults/magic.js'

export default async function guarantees (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.guarantees

  app.get('/guarantees/:guaranteeID/state', {
    schema: {
      tags: ['guarantees'],
      operationId: 'getGuaranteeState',
      summary: 'Read the state of a loan guarantee',
      description: 'spec 4.13: public, no token and no Agent-Id (a token, if sent, is never refused; a valid one files the read in its partner\'s journal and counts it for the partner\'s rate limit and fault rules). The sandbox answers for the guarantees of its scenarios and ' +
        `of POST /__sandbox/guarantees, and for these ids without any set-up: ${Object.keys(MAGIC_GUARANTEE_PREFIXES).join('..., ')}... ` +
        '(VALID, INVALID, no state, 404).',
      security: [],
      params: GuaranteeParams,
      response: { 200: ref(GuaranteeState), ...errorResponses(400, 404, 406) }
    },
    config: { public: true }
  }, (request) => repo.state(request.params.guaranteeID))
}
