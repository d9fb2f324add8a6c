import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { KNOWN_VERSION_PATH, VERSIONS } from '../api-versions.js'

type VersionedRequest = IncomingMessage & { sandboxApiVersion?: string }

/**
 * spec 9: /{version}/api/... serves the same operations as /api/... . The version is taken off the URL
 * before routing (one set of routes for every version) and remembered on the request for the headers.
 */
export function rewriteVersionedUrl (req: IncomingMessage): string {
  const url = req.url ?? '/'
  const m = KNOWN_VERSION_PATH.exec(url)
  if (m === null) return url
  ;(req as VersionedRequest).sandboxApiVersion = m[1]
  return url.slice(m[1].length + 1)
}

/** The version named in the request's path (spec 9), undefined for the unversioned /api/... . */
export function pathVersionOf (req: IncomingMessage): string | undefined {
  return (req as VersionedRequest).sandboxApiVersion
}

/** Deprecated versions answer with Deprecation (RFC 9745, a date) and a Link to their documentation. */
async function versionsPlugin (fastify: FastifyInstance, opts: { deprecationDate: string, publicUrl: string }): Promise<void> {
  const deprecation = `@${Math.floor(Date.parse(`${opts.deprecationDate}T00:00:00Z`) / 1000)}`
  fastify.addHook('onRequest', (request, reply, done) => {
    const version = pathVersionOf(request.raw)
    if (version !== undefined && VERSIONS[version] === 'deprecated') {
      reply.header('deprecation', deprecation)
      reply.header('link', `<${opts.publicUrl}/${version}/api/docs/apidocs>; rel="deprecation"; type="text/html"`)
    }
    done()
  })
}

export default fp(versionsPlugin, { name: 'sandbox-versions' })
