import type { FastifyInstance } from 'fastify'
import admin from './admin.js'
import guarantees from './guarantees.js'
import partner from './partner.js'

/** The sandbox's control API under /__sandbox (documented apart from the bank's API). */
export default async function sandbox (fastify: FastifyInstance, opts: { adminToken?: string, tokenUrl: string }): Promise<void> {
  fastify.removeContentTypeParser('text/plain')
  await fastify.register(partner)
  await fastify.register(guarantees)
  await fastify.register(admin, { prefix: '/admin', ...opts })
}
