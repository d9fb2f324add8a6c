import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

const NO_CACHE = 'no-cache, no-store, max-age=0, must-revalidate'

/**
 * The headers Spring Security writes on every answer by default (HeadersConfigurer: cache control,
 * content type options, frame options, XSS protection): the real service sends them, so a partner's proxy
 * treats our answers as it will treat the bank's (customer data is never cached). HSTS is added only when the
 * sandbox is reached over HTTPS (its PUBLIC_URL) and SANDBOX_HSTS asks for it, as Spring Security writes it
 * only on secure requests (its default: max-age one year, includeSubDomains).
 */
export const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  ['cache-control', NO_CACHE],
  ['pragma', 'no-cache'],
  ['expires', '0'],
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['x-xss-protection', '0']
]

/** The same headers as raw header lines, for answers written straight to the socket (HTTP parser errors). */
export const SECURITY_HEADER_LINES = SECURITY_HEADERS.map(([name, value]) => `${name}: ${value}\r\n`).join('')

async function securityHeaders (fastify: FastifyInstance, opts: { hstsSeconds: number }): Promise<void> {
  const headers = opts.hstsSeconds > 0
    ? [...SECURITY_HEADERS, ['strict-transport-security', `max-age=${opts.hstsSeconds} ; includeSubDomains`] as [string, string]]
    : SECURITY_HEADERS
  fastify.addHook('onRequest', (_request, reply, done) => {
    // on the reply; an answer written past Fastify gets them from headersToRaw (raw-headers.ts)
    for (const [name, value] of headers) reply.header(name, value)
    done()
  })
  fastify.addHook('onSend', (_request, reply, _payload, done) => {
    // Spring Security writes none of its three cache headers when the answer set its own caching: the docs
    // page's static files keep theirs (revalidated with ETag / Last-Modified on every use)
    if (reply.getHeader('cache-control') !== NO_CACHE) {
      reply.removeHeader('pragma')
      reply.removeHeader('expires')
    }
    done()
  })
}

export default fp(securityHeaders, { name: 'sandbox-security-headers' })
