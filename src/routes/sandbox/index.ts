import type { FastifyInstance } from 'fastify'
import { readBodyLikeJackson } from '../../plugins/json-body.js'
import { addRouteHook, type RouteHook } from '../../plugins/route-hooks.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A control route whose body may be left out (none, an empty one or a JSON null: treated as {}). */
    optionalBody?: boolean
  }
}
import admin, { type AdminOptions } from './admin.js'
import advice from './advice.js'
import readiness from './readiness.js'
import clock from './clock.js'
import faults from './faults.js'
import guarantees from './guarantees.js'
import magic from './magic.js'
import partner from './partner.js'
import state from './state.js'
import requests from './requests.js'
import snapshots from './snapshots.js'
import tokens from './tokens.js'

/** The sandbox's control API under /__sandbox (documented apart from the bank's API). */
export default async function sandbox (fastify: FastifyInstance, opts: { adminToken?: string, snapshotLimit: number, tokenUrl: string, publicUrl: string, version: string, observing: boolean, operatorSession?: AdminOptions['operatorSession'], operatorGuard: AdminOptions['operatorGuard'] }): Promise<void> {
  fastify.removeContentTypeParser('text/plain')
  // control requests may come without a body (POST /reset means "as it was"), even when labelled JSON
  const json = fastify.getDefaultJsonParser('error', 'error')
  fastify.removeContentTypeParser('application/json')
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string
    if (body === '') done(null, undefined)
    else json(request, body as string, done)
  })
  // a JSON null is no body too, as Jackson reads an optional @RequestBody
  const emptyBody: RouteHook = (request, _reply, done) => {
    if (request.body === undefined || request.body === null) request.body = {}
    done()
  }
  fastify.addHook('onRoute', (route) => { if (route.config?.optionalBody === true && route.schema?.body !== undefined) addRouteHook(route, 'preValidation', emptyBody) })
  // the same reading of bodies as the bank's API: nulls absent, nesting deeper than Jackson's limit a 400
  fastify.addHook('onRoute', readBodyLikeJackson)
  // the partner console drives every control route with its session
  fastify.addHook('onRoute', (route) => { route.config = { ...route.config, consoleSession: true } })
  await fastify.register(partner)
  await fastify.register(guarantees)
  await fastify.register(faults)
  await fastify.register(magic)
  await fastify.register(clock)
  await fastify.register(state)
  await fastify.register(requests, { publicUrl: opts.publicUrl, version: opts.version })
  await fastify.register(snapshots, { snapshotLimit: opts.snapshotLimit })
  await fastify.register(tokens)
  await fastify.register(advice, { observing: opts.observing })
  await fastify.register(readiness, { observing: opts.observing })
  await fastify.register(admin, { prefix: '/admin', adminToken: opts.adminToken, tokenUrl: opts.tokenUrl, observing: opts.observing, operatorSession: opts.operatorSession, operatorGuard: opts.operatorGuard })
}
