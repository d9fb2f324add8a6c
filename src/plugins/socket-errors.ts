import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { STATUS_CODES } from '../node-http.js'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { errorBody, type ErrorCode } from '../errors.js'
import { SECURITY_HEADER_LINES } from './security-headers.js'

/*
 * Answers written straight to a socket, for what never becomes a request Fastify routes: what the HTTP
 * parser refuses (serverOptions.clientErrorHandler) and CONNECT (the server's 'connect' event).
 */

interface SocketAnswer { status: number, code: ErrorCode, message: string, path: string, head: boolean }

// the request line of what the parser refused, when it got that far: "METHOD target HTTP/1.x"
const REQUEST_LINE = /^([A-Z]{1,20}) (\/[\x21-\x7e]{0,8191}) HTTP\/\d\.\d\r?\n/

const CLIENT_ERRORS: Record<string, { status: number, code: ErrorCode, message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'SANDBOX_ERR_TIMEOUT', message: 'The request did not arrive within the request timeout' },
  HPE_HEADER_OVERFLOW: { status: 431, code: 'SANDBOX_ERR_HEADERS_TOO_LARGE', message: 'The request headers are larger than the limit of 16 KB' }
}
const MALFORMED = { status: 400, code: 'SANDBOX_ERR_MALFORMED_HTTP' as ErrorCode, message: 'The request is not valid HTTP/1.1' }

/**
 * Errors of the HTTP layer, before there is a request (request timeout, malformed request, headers
 * too large): the error body, X-Sandbox-Error and a request id like every other answer (the path when
 * the request line could be read; no body to a HEAD), then the connection closes.
 */
export function clientError (this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const { status, code, message } = CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED
  const raw = (err as { rawPacket?: unknown }).rawPacket
  const line = Buffer.isBuffer(raw) ? REQUEST_LINE.exec(raw.subarray(0, 8300).toString('latin1')) : null
  const id = randomUUID()
  this.log.info({ reqId: id, status, code: err.code }, message)
  answerOnSocket(socket, id, { status, code, message, path: line === null ? '' : line[2].split('?')[0], head: line?.[1] === 'HEAD' })
}

/**
 * An error answer written straight to the socket, for what never becomes a request Fastify routes: the
 * error body, X-Sandbox-Error, a request id and the security headers like every other answer (no body to
 * a HEAD), then the connection closes.
 */
function answerOnSocket (socket: Duplex, id: string, { status, code, message, path, head }: SocketAnswer): void {
  const body = JSON.stringify(errorBody(status, message, path))
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nx-request-id: ${id}\r\nx-sandbox-error: ${code}\r\n${SECURITY_HEADER_LINES}` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n` +
      (head ? '' : body))
  }
  // without the error: the identity provider (Koa) would print it to stderr as if it were its own
  socket.destroy()
}

/** CONNECT (a proxy tunnel) is no method of this server: Node would drop the connection without a word. */
export function refuseConnect (request: IncomingMessage, socket: Duplex): void {
  const path = (request.url ?? '').split('?')[0]
  answerOnSocket(socket, randomUUID(), { status: 405, code: 'SANDBOX_ERR_METHOD_NOT_ALLOWED', message: "Request method 'CONNECT' is not supported", path: path.startsWith('/') ? path : '', head: false })
}
