import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Paging } from '../../schemas/common.js'
import { pageReply, type PageInfo } from '../../store/paging.js'

/**
 * A bearer token (spec 5), or one of the embedded provider's OAuth 2.0 flows. bearerAuth comes first:
 * converters (Postman, newman) and client generators use the first requirement only.
 */
export const SECURED: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { sandboxOAuth: ['openid'] }]

export const LIST_NOTE = 'Paged on the server (spec 2.1): page is 0-indexed, size 1 to 2000 (the maximum is the sandbox\'s decision); ' +
  'totalPages = ceil(totalElements / size), an empty list has totalPages 0 with first and last true, a page past the end is empty.'

const STATIC_PAGES_KEPT = 256

/**
 * The pages of a fixture list (banks, investment types, products, public accounts: the same for every
 * agent and never changed) are serialised once, by the route's own response serialiser, and sent
 * as they are afterwards.
 */
export function staticPages<K extends string, T> (name: K, list: (paging: Paging) => { page: PageInfo, items: T[] }) {
  const pages = new Map<string, string>()
  return (request: FastifyRequest<{ Querystring: Paging }>, reply: FastifyReply): void => {
    const { page, size } = request.query
    const key = `${page}:${size}`
    let body = pages.get(key)
    if (body === undefined) {
      body = reply.serialize(pageReply(name, list(request.query))) as string
      if (pages.size < STATIC_PAGES_KEPT) pages.set(key, body)
    }
    reply.type('application/json; charset=utf-8').send(body)
  }
}
