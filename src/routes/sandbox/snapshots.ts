import type { ValidateFunction } from 'ajv'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { validationFailed } from '../../errors.js'
import { errorResponses, ref } from '../../schemas/common.js'
import { PartnerSummary } from '../../schemas/sandbox.js'
import { SaveSnapshotRequest, SnapshotDocument, SnapshotInfo, SnapshotList, SnapshotNameParam } from '../../schemas/snapshots.js'
import { lazyValidator } from '../../plugins/lazy-compilers.js'
import { fieldErrorsFromAjv } from '../../schemas/validation.js'
import { documentOf, partnerFromDocument } from '../../seed/snapshot.js'
import type { PartnerSummary as Summary } from '../../seed/summaries.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'

// snapshots are checked as they are, without the API's scalar coercion (fastify.dataValidator, which checks
// scenario files too): a number where an id string belongs is a damaged snapshot, not something to convert
const checkerOf = (fastify: FastifyInstance): ValidateFunction => fastify.dataValidator.getSchema('SandboxSnapshot')!

/** Returns the partner to a named snapshot (POST /__sandbox/reset {"snapshot"}). */
export async function restoreNamed (fastify: FastifyInstance, partnerId: string, name: string): Promise<Summary> {
  const doc = JSON.parse(await fastify.snapshots.read(partnerId, name)) as unknown
  // a file of the data dir may have been edited by hand: it gets the checks of PUT /__sandbox/snapshot
  const checkDocument = checkerOf(fastify)
  if (checkDocument(doc) !== true) throw validationFailed('snapshot', fieldErrorsFromAjv(checkDocument.errors ?? []))
  return await restore(fastify, partnerId, doc as SnapshotDocument)
}

async function restore (fastify: FastifyInstance, partnerId: string, doc: SnapshotDocument): Promise<Summary> {
  const ctx = { reference: fastify.reference, scenarios: fastify.scenarios.names() }
  return await fastify.control.replacePartner(partnerId, (partner) => partnerFromDocument(doc, partner, fastify.world, ctx))
}

/** A partner's whole state as one document, and named snapshots to return to. */
export default async function snapshotControl (fastify: FastifyInstance, opts: { snapshotLimit: number }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { world, snapshots } = fastify
  const config = { partnerOnly: true }
  // a snapshot carries a partner's every record: far more than an API body, yet held whole in memory while it
  // is parsed and checked, so capped (SANDBOX_SNAPSHOT_LIMIT) well below what would crowd other partners out
  const { snapshotLimit } = opts
  const tags = ['sandbox snapshots']
  const current = (partnerId: string): string => JSON.stringify(documentOf(world.partner(partnerId)!))

  app.get('/snapshot', {
    schema: {
      tags,
      operationId: 'getSnapshot',
      summary: "The partner's whole state as one document",
      description: 'Every agent with its records, guarantees, fault rules and clock, with a format version (snapshotFormat). PUT it back, to this partner, to return to it.',
      security: PARTNER_SECURITY,
      response: { 200: ref(SnapshotDocument), ...errorResponses(401) }
    },
    config
  }, async (request, reply) => {
    // already JSON: sent as it is (a large partner's document is not worth a second serialisation)
    await reply.type('application/json; charset=utf-8').send(current(partnerOf(request)) as never)
    return reply
  })

  app.put('/snapshot', {
    schema: {
      tags,
      operationId: 'putSnapshot',
      summary: "Replace the partner's state with a snapshot",
      description: 'A document of GET /__sandbox/snapshot (of this partner) replaces every agent, guarantee, fault rule and the clock. A document that does not pass the schemas ' +
        'scenario data passes (records as the API serves them, ids in the sandbox\'s scheme, owners that exist, the partner\'s limits) is refused with 400 naming each field and rule, and nothing changes. ' +
        `At most SANDBOX_SNAPSHOT_LIMIT bytes (here ${snapshotLimit}; 413 above).`,
      security: PARTNER_SECURITY,
      body: ref(SnapshotDocument),
      response: { 200: ref(PartnerSummary), ...errorResponses(400, 401, 413, 415) }
    },
    bodyLimit: snapshotLimit,
    validatorCompiler: () => lazyValidator(() => checkerOf(fastify)),
    config
  }, async (request) => await restore(fastify, partnerOf(request), request.body))

  app.get('/snapshots', {
    schema: {
      tags,
      operationId: 'listSnapshots',
      summary: "The partner's named snapshots",
      description: 'Oldest first. With a data dir they survive a restart.',
      security: PARTNER_SECURITY,
      response: { 200: ref(SnapshotList), ...errorResponses(401) }
    },
    config
  }, async (request) => ({ snapshots: await snapshots.list(partnerOf(request)) }))

  app.post('/snapshots', {
    schema: {
      tags,
      operationId: 'saveSnapshot',
      summary: 'Save the current state under a name',
      description: 'Saves what GET /__sandbox/snapshot answers now; an existing snapshot of that name is replaced. POST /__sandbox/reset {"snapshot": "<name>"} returns to it. At most 20 per partner.',
      security: PARTNER_SECURITY,
      body: SaveSnapshotRequest,
      response: { 200: ref(SnapshotInfo), ...errorResponses(400, 401, 403, 413, 415) }
    },
    config
  }, async (request) => {
    const partnerId = partnerOf(request)
    return await snapshots.save(partnerId, request.body.name, current(partnerId))
  })

  app.delete('/snapshots/:name', {
    schema: {
      tags,
      operationId: 'deleteSnapshot',
      summary: 'Delete a named snapshot',
      description: 'Removes a named snapshot of the partner (its file too, with a data dir).',
      security: PARTNER_SECURITY,
      params: SnapshotNameParam,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(400, 401, 404) }
    },
    config
  }, async (request, reply) => {
    await snapshots.remove(partnerOf(request), request.params.name)
    return reply.code(204).send(null)
  })
}
