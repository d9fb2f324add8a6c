import type { FastifyReply } from 'fastify'

/**
 * For an answer written past Fastify (the identity provider's, a hijacked reply): the headers set on the
 * reply so far (the security headers, X-Request-Id), put on the raw response. Every other answer gets them from Fastify,
 * which hands them to Node in one object: a response with no header set on it directly takes Node's short
 * way through writeHead (a setHeader call per header cost about a microsecond and a half a request).
 */
export function headersToRaw (reply: FastifyReply): void {
  const headers = reply.getHeaders()
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined) reply.raw.setHeader(name, value)
  }
}
