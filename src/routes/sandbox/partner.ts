import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses, ref } from '../../schemas/common.js'
import { validationFailed } from '../../errors.js'
import { AgentIdParam, AgentRequest, AgentSummary, PartnerResetRequest, PartnerSummary, ResetRequest, ScenarioList } from '../../schemas/sandbox.js'
import { partnerSummary } from '../../seed/summaries.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'
import { restoreNamed } from './snapshots.js'

/** What a partner does to its own data, with its own token: inspect, reset, fresh agents. */
export default async function partnerControl (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { control, scenarios, world } = fastify
  const config = { partnerOnly: true, optionalBody: true }

  app.get('/scenarios', {
    schema: {
      tags: ['sandbox'],
      operationId: 'listScenarios',
      summary: 'List the scenarios',
      description: 'The built-in scenarios a partner can reset to.',
      security: PARTNER_SECURITY,
      response: { 200: ref(ScenarioList), ...errorResponses(401) }
    },
    config
  }, async () => ({ scenarios: scenarios.summaries() }))

  app.get('/state', {
    schema: {
      tags: ['sandbox'],
      operationId: 'getSandboxState',
      summary: "Show the partner's sandbox state",
      description: "The partner's scenario, seed, agents (with record counts), test users and guarantees.",
      security: PARTNER_SECURITY,
      response: { 200: ref(PartnerSummary), ...errorResponses(401) }
    },
    config
  }, async (request) => partnerSummary(world.partner(partnerOf(request))!))

  app.post('/reset', {
    schema: {
      tags: ['sandbox'],
      operationId: 'resetPartner',
      summary: "Reset the partner's data to the start of a scenario",
      description: "Only this partner's scenario agents change; other partners and this partner's fresh agents are untouched. " +
        'Without a body, back to the start of the current scenario and seed. Works while traffic flows: the new data replaces the old at once. ' +
        'A reset that would take the partner past its record limit (SANDBOX_MAX_RECORDS) is refused with 403 and changes nothing. ' +
        'With {"snapshot": "<name>"}, back to a named snapshot (POST /__sandbox/snapshots) instead: the partner\'s whole state, fresh agents, fault rules and clock included.',
      security: PARTNER_SECURITY,
      body: PartnerResetRequest,
      response: { 200: ref(PartnerSummary), ...errorResponses(400, 401, 403, 404, 413, 415) }
    },
    config
  }, async (request) => {
    const { scenario, seed, snapshot } = request.body ?? {}
    if (snapshot === undefined) return await control.resetPartner(partnerOf(request), scenario, seed)
    if (scenario !== undefined || seed !== undefined) {
      throw validationFailed('request', [{ field: 'snapshot', rejectedValue: snapshot, code: 'SnapshotAlone', defaultMessage: 'must not come with scenario or seed: a snapshot holds its own' }])
    }
    return await restoreNamed(fastify, partnerOf(request), snapshot)
  })

  app.post('/agents', {
    schema: {
      tags: ['sandbox'],
      operationId: 'createAgent',
      summary: 'Create a fresh agent',
      description: 'A new agent of the partner, seeded from a scenario, for one CI run: nobody else sees or changes its data. ' +
        'Existing tokens of the partner work for it at once (Agent-Id). Delete it when the run ends.',
      security: PARTNER_SECURITY,
      body: AgentRequest,
      response: { 200: ref(AgentSummary), ...errorResponses(400, 401, 403, 404, 413, 415) }
    },
    config
  }, async (request) => await control.createAgent(partnerOf(request), request.body ?? {}))

  app.post('/agents/:agentId/reset', {
    schema: {
      tags: ['sandbox'],
      operationId: 'resetAgent',
      summary: 'Reset one agent',
      description: "One agent of the partner back to the start of a scenario; the partner's other agents are untouched.",
      security: PARTNER_SECURITY,
      params: AgentIdParam,
      body: ResetRequest,
      response: { 200: ref(AgentSummary), ...errorResponses(400, 401, 403, 404, 413, 415) }
    },
    config
  }, async (request) => await control.resetAgent(partnerOf(request), request.params.agentId, request.body ?? {}))

  app.delete('/agents/:agentId', {
    schema: {
      tags: ['sandbox'],
      operationId: 'deleteAgent',
      summary: 'Delete a fresh agent',
      description: 'Removes a fresh agent and its data. Scenario agents cannot be deleted (409).',
      security: PARTNER_SECURITY,
      params: AgentIdParam,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 404, 409) }
    },
    config
  }, async (request, reply) => {
    await control.deleteAgent(partnerOf(request), request.params.agentId)
    return reply.code(204).send(null)
  })
}
