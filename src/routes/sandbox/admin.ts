import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Lockout } from '../../auth/lockout.js'
import { checkOperatorToken } from '../../auth/operator-guard.js'
import { SandboxError } from '../../errors.js'
import { errorResponses, ref } from '../../schemas/common.js'
import { Type } from '@sinclair/typebox'
import { ClientIdParam, PartnerList, PartnerStanding, RegisterPartnerRequest, RegisteredPartner, ResetRequest, RotatedSecret, RotateSecretRequest } from '../../schemas/sandbox.js'
import { partnerSummary } from '../../seed/summaries.js'
import overview from './overview.js'
import { ADMIN_SECURITY, adminDisabled } from './shared.js'

export interface AdminOptions {
  adminToken?: string
  tokenUrl: string
  observing: boolean
  /** Whether the request comes with an operator console session (routes/operator-console.ts) in place of the token. */
  operatorSession?: (request: FastifyRequest) => Promise<boolean>
  /** Wrong operator tokens per source address (auth/operator-guard.ts). */
  operatorGuard: Lockout
}

/**
 * Operator endpoints: the admin token of SANDBOX_ADMIN_TOKEN, compared in constant time, or an operator console
 * session. A request that sends a token counts for its address's guard; one that sends none is only refused.
 */
export default async function adminControl (fastify: FastifyInstance, opts: AdminOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { control } = fastify

  fastify.addHook('onRequest', async (request: FastifyRequest) => {
    if (opts.adminToken === undefined) throw adminDisabled()
    // (a partner's console session is no operator's: only the operator console's cookie is looked at)
    if (opts.operatorSession !== undefined && await opts.operatorSession(request)) return
    const wrong = (): SandboxError => new SandboxError('SANDBOX_ERR_ADMIN_TOKEN', 'Operator endpoints need Authorization: Bearer <SANDBOX_ADMIN_TOKEN>', [], { 'www-authenticate': 'Bearer realm="sandbox-admin"' })
    if (request.headers.authorization === undefined) throw wrong()
    const m = /^Bearer +(\S+) *$/i.exec(request.headers.authorization)
    await checkOperatorToken(opts.operatorGuard, request, opts.adminToken, m?.[1], wrong)
  })
  // the operator is no partner: never rate limited
  const config = { public: true, optionalBody: true, rateLimit: false as const }

  app.post('/reset', {
    schema: {
      tags: ['sandbox operator'],
      operationId: 'resetAllPartners',
      summary: 'Reset every partner',
      description: 'Every partner back to the start of a scenario (the start scenario by default); fresh agents are removed, registered partners keep their credentials.',
      security: ADMIN_SECURITY,
      body: ResetRequest,
      response: { 200: ref(PartnerList), ...errorResponses(400, 401, 403, 413, 415) }
    },
    config
  }, async (request) => ({ partners: await control.resetAll(request.body?.scenario, request.body?.seed) }))

  app.get('/partners', {
    schema: { tags: ['sandbox operator'], operationId: 'listPartners', summary: 'List every partner', description: 'Every partner of the sandbox (scenario and registered) with its agents, record counts, test users and guarantees.', security: ADMIN_SECURITY, response: { 200: ref(PartnerList), ...errorResponses(401, 403) } },
    config
  }, async () => ({ partners: (await control.everyPartner()).map(partnerSummary) }))

  app.post('/partners', {
    schema: {
      tags: ['sandbox operator'],
      operationId: 'registerPartner',
      summary: 'Register a partner',
      description: 'A new OAuth client with its own agents, filled from a scenario. The answer carries the client secret (shown once) and the token URL.',
      security: ADMIN_SECURITY,
      body: RegisterPartnerRequest,
      response: { 200: ref(RegisteredPartner), ...errorResponses(400, 401, 403, 409, 413, 415) }
    },
    config
  }, async (request) => ({ ...await control.registerPartner(request.body ?? {}), tokenUrl: opts.tokenUrl }))

  app.delete('/partners/:clientId', {
    schema: {
      tags: ['sandbox operator'],
      operationId: 'deletePartner',
      summary: 'Delete a registered partner',
      description: 'Removes a partner registered through POST /__sandbox/admin/partners with everything it has: its client (and public clients) stop working at once, ' +
        'its tokens are refused, its records, named snapshots and journal are gone. Partners of a scenario cannot be deleted (409): a reset of everything would bring them back.',
      security: ADMIN_SECURITY,
      params: ClientIdParam,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 403, 404, 409) }
    },
    config
  }, async (request, reply) => {
    await control.deletePartner(request.params.clientId)
    return await reply.code(204).send(null)
  })

  app.post('/partners/:clientId/secret', {
    schema: {
      tags: ['sandbox operator'],
      operationId: 'rotatePartnerSecret',
      summary: "Rotate a partner's client secret",
      description: 'A new client secret for the partner (scenario or registered): generated, or the one given as clientSecret. The answer carries it once: the sandbox keeps ' +
        'only its hash. With overlapSeconds the secret it replaces still works until previousSecretValidUntil, so that the partner can change its systems one by one; ' +
        'without, it stops at once. Tokens already issued stay valid until they expire (as Keycloak\'s do when a client secret is regenerated); the partner\'s console sessions end.',
      security: ADMIN_SECURITY,
      params: ClientIdParam,
      body: RotateSecretRequest,
      response: { 200: ref(RotatedSecret), ...errorResponses(400, 401, 403, 404, 413, 415) }
    },
    config
  }, async (request) => ({
    ...await control.rotateSecret(request.params.clientId, { secret: request.body?.clientSecret, overlapSeconds: request.body?.overlapSeconds }),
    tokenUrl: opts.tokenUrl
  }))

  const standing = (suspended: boolean) => ({
    schema: {
      tags: ['sandbox operator'],
      operationId: suspended ? 'suspendPartner' : 'resumePartner',
      summary: suspended ? 'Suspend a partner' : 'Resume a suspended partner',
      description: suspended
        ? 'The partner (scenario or registered) is refused everywhere at once, on every replica, its data kept: its token requests answer 401 unauthorized_client ' +
          '"Invalid client or Invalid client credentials" (Keycloak\'s answer for a disabled client), its tokens and console sessions 401 "the client of the access token is ' +
          'suspended by the sandbox\'s operator", its browser apps are unknown clients; its console sessions end. Resume undoes it.'
        : 'A suspended partner works again as before, with the same secret and data; tokens issued before the suspension that have not expired work again too.',
      security: ADMIN_SECURITY,
      params: ClientIdParam,
      response: { 200: ref(PartnerStanding), ...errorResponses(401, 403, 404) }
    },
    config
  })
  app.post('/partners/:clientId/suspend', standing(true), async (request) => await control.suspendPartner(request.params.clientId, true))
  app.post('/partners/:clientId/resume', standing(false), async (request) => await control.suspendPartner(request.params.clientId, false))

  await fastify.register(overview, { observing: opts.observing })
}
