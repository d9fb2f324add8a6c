import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses, ref } from '../../schemas/common.js'
import { FaultIdParam, FaultRule, FaultRuleList, FaultRuleRequest } from '../../schemas/sandbox-controls.js'
import { MAX_FAULT_RULES } from '../../store/sandbox-state.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'

const RULE_NOTE = 'A rule applies to the partner\'s own requests to the bank\'s API (/api and /{version}/api) that match it: method, path (globs * and **), ' +
  'route template and Agent-Id, each optional. Rules are tried in the order they were made; the first that fires applies (a Sandbox-Fault or Prefer ' +
  'header, or a magic value, comes first). The answer carries Sandbox-Fault-Applied: <fault>; source=rule; rule=<id>. ' +
  `At most ${MAX_FAULT_RULES} rules per partner; a partner reset removes them; with a data dir they survive a restart.`

/** Fault rules of a partner (issue 11), for clients whose code cannot add a Sandbox-Fault header. */
export default async function faultControl (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.sandboxState
  const config = { partnerOnly: true }

  app.get('/faults', {
    schema: { tags: ['sandbox faults'], operationId: 'listFaultRules', summary: "List the partner's fault rules", description: `With how often each matched and fired. ${RULE_NOTE}`, security: PARTNER_SECURITY, response: { 200: ref(FaultRuleList), ...errorResponses(401) } },
    config
  }, async (request) => ({ faults: repo.rules(partnerOf(request)) }))

  app.post('/faults', {
    schema: {
      tags: ['sandbox faults'],
      operationId: 'createFaultRule',
      summary: 'Make a fault rule',
      description: 'probability (0 to 1, default 1) is the chance that a matching request gets the fault; times makes the rule fire that often and then expire; ' +
        `seed makes its draws the same in every run. ${RULE_NOTE}`,
      security: PARTNER_SECURITY,
      body: ref(FaultRuleRequest),
      response: { 200: ref(FaultRule), ...errorResponses(400, 401, 403, 413, 415) }
    },
    config
  }, async (request) => await repo.addRule(partnerOf(request), request.body))

  app.delete('/faults/:faultId', {
    schema: { tags: ['sandbox faults'], operationId: 'deleteFaultRule', summary: 'Delete a fault rule', description: 'The rule stops applying at once; an unknown id is a 404.', security: PARTNER_SECURITY, params: FaultIdParam, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(400, 401, 404) } },
    config
  }, async (request, reply) => {
    await repo.removeRule(partnerOf(request), request.params.faultId)
    return reply.code(204).send(null)
  })

  app.delete('/faults', {
    schema: { tags: ['sandbox faults'], operationId: 'deleteFaultRules', summary: "Delete all the partner's fault rules", description: 'Active and expired ones; other partners\' rules are untouched.', security: PARTNER_SECURITY, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401) } },
    config
  }, async (request, reply) => {
    await repo.clearRules(partnerOf(request))
    return reply.code(204).send(null)
  })
}
