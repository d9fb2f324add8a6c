import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { TokenExpiry, TokenExpiryRequest } from '../../schemas/advice.js'
import { errorResponses, ref } from '../../schemas/common.js'
import { PARTNER_SECURITY, partnerOf } from './shared.js'

/** Token controls (issue 29): what a client does when its tokens expire, without waiting for them to. */
export default async function tokenControl (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { world } = fastify

  app.post('/tokens/expire', {
    schema: {
      tags: ['sandbox advice'],
      operationId: 'expireTokens',
      summary: "Expire the partner's tokens issued so far",
      description: 'Every access token issued to the partner until now (its clients\' and its test users\') is refused from now on, on every replica, with ' +
        '401 invalid_token "the access token expired", as an expired one is; tokens issued after the answer work. With {"refresh": true} its refresh ' +
        'tokens too (the token endpoint answers invalid_grant "Token is not active"), so a client must sign in again. Tokens carry their issue time in ' +
        'whole seconds: the answer comes once the second of the cut-off has begun (up to a second later). Resets keep the cut-off. The partner\'s console sessions end too (a console must sign in again).',
      security: PARTNER_SECURITY,
      body: ref(TokenExpiryRequest),
      response: { 200: ref(TokenExpiry), ...errorResponses(400, 401, 413, 415) }
    },
    config: { partnerOnly: true, optionalBody: true }
  }, async (request) => {
    const refresh = request.body?.refresh ?? false
    // iat has whole seconds: the cut-off is the next second, so that every token issued until now is before it
    const before = Math.floor(Date.now() / 1000) + 1
    await world.perform(partnerOf(request), 'tokens.expire', { before, refresh })
    // (the console's sessions too: whoever signed in before must sign in again)
    await fastify.control.signOut(partnerOf(request))
    // and no token issued after the answer is: the answer waits until that second has begun
    const wait = before * 1000 - Date.now()
    if (wait > 0) await sleep(wait)
    return { issuedBefore: new Date(before * 1000).toISOString(), refresh }
  })
}
