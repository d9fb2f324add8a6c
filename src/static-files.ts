import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** A file sent as it is: its media type, and where it is. */
export interface StaticFile {
  type: string
  path: string
}

interface Loaded {
  body: Buffer
  etag: string
}

/** Whether an If-None-Match value names this ETag (a list, weak or not, or `*`). */
function matches (ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

/**
 * Sends files of a fixed list by name: a name from the request only picks an entry, so nothing outside the
 * list can be reached (an unknown name, or one that climbs out with `..`, is the 404 of any unknown path).
 * A file is read at its first request and kept, so a start reads none of them (most runs, a CI pipeline's,
 * never load a page); it goes with a strong ETag (its content's hash) and the Cache-Control given, and a
 * request that names the ETag in If-None-Match gets 304 without a body.
 */
export function staticFiles (files: Record<string, StaticFile>, cacheControl: string) {
  const loaded = new Map<string, Loaded>()
  const load = (name: string, file: StaticFile): Loaded => {
    let found = loaded.get(name)
    if (found === undefined) {
      const body = readFileSync(file.path)
      found = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
      loaded.set(name, found)
    }
    return found
  }
  return async (name: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const file = Object.hasOwn(files, name) ? files[name] : undefined
    if (file === undefined) {
      reply.callNotFound()
      return reply
    }
    const { body, etag } = load(name, file)
    reply.header('cache-control', cacheControl).header('etag', etag)
    if (matches(request.headers['if-none-match'], etag)) return await reply.code(304).send()
    return await reply.type(file.type).send(body)
  }
}
