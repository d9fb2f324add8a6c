import fc from 'fast-check'
import { rawExchange } from '../raw-http.js'
import { violations } from './oracles.js'

/*
 * Malformed HTTP/1.1 written straight to a socket: what no client library would send. Every answer the
 * server writes must keep the rules of oracles.ts; a server that waits for the rest of a request is fine,
 * one that drops the connection without a word is not.
 */

export interface RawCase { mutation: string, bytes: string, head: boolean }

function request (token: string, method: string, target: string, extra = '', body = ''): string {
  const length = body === '' ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
  return `${method} ${target} HTTP/1.1\r\nHost: sandbox\r\nAuthorization: Bearer ${token}\r\nAgent-Id: 1001\r\nConnection: close\r\n${length}${extra}\r\n${body}`
}

const TARGETS = ['/api/banks', '/api/customers/1001100000001', '/api/accounts?customerId=1001100000001&page=0&size=2', '/__sandbox/state', '/api/guarantees/VALID-1/state', '/nowhere', '/api/docs/apidocs/openapi.json']
const MESSAGE = JSON.stringify({ message: 'RAW', fromDepartment: 'FUZZ', fromPerson: 'RAW' })

export function rawCase (token: string): fc.Arbitrary<RawCase> {
  const target = fc.constantFrom(...TARGETS)
  const get = (mutation: string, bytes: string, head = false): RawCase => ({ mutation, bytes, head })
  return fc.oneof(
    fc.tuple(target, fc.nat(400), fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([t, at, junk]) => {
      const r = request(token, 'GET', t)
      const i = at % r.length
      return get('bytes inserted', r.slice(0, i) + Buffer.from(junk).toString('latin1') + r.slice(i))
    }),
    target.map((t) => get('bare LF', request(token, 'GET', t).replace(/\r\n/g, '\n'))),
    target.map((t) => get('NUL in a header', request(token, 'GET', t, 'X-Test: a\0b\r\n'))),
    target.map((t) => get('header without a colon', request(token, 'GET', t, 'NoColonHere\r\n'))),
    target.map((t) => get('folded header', request(token, 'GET', t, 'X-Test: a\r\n folded\r\n'))),
    fc.integer({ min: 16_500, max: 40_000 }).chain((n) => target.map((t) => get('headers over 16 KB', request(token, 'GET', t, `X-Big: ${'a'.repeat(n)}\r\n`)))),
    fc.constantFrom('HTTP/9.9', 'HTTP/1.1x', 'HTTP/', 'HTTPS/1.1', '').map((v) => get('bad version', `GET /api/banks ${v}\r\nHost: sandbox\r\nConnection: close\r\n\r\n`)),
    fc.constantFrom('G@T', 'GET GET', 'FOO', 'get', 'CONNECT', 'TRACE', 'PRI').map((m) => get(`method ${m}`, request(token, m, '/api/banks'))),
    fc.constantFrom('http://evil.example/api/banks', '*', 'api/banks', '/api/ banks', '/api/banks#frag', '//api//banks', '/api/%zz', `/api/customers/${'9'.repeat(9000)}`).map((t) => get('odd request target', request(token, 'GET', t))),
    fc.constantFrom('Content-Length: 5\r\nContent-Length: 6\r\n', 'Content-Length: -1\r\n', 'Content-Length: abc\r\n', 'Content-Length: 1e3\r\n',
      'Transfer-Encoding: chunked\r\nContent-Length: 3\r\n', 'Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n', 'Transfer-Encoding: gzip, chunked\r\n', 'Transfer-Encoding: xchunked\r\n')
      .map((h) => get('framing headers', `POST /api/customers/1001100000001/messages HTTP/1.1\r\nHost: sandbox\r\nAuthorization: Bearer ${token}\r\nAgent-Id: 1001\r\nConnection: close\r\nContent-Type: application/json\r\n${h}\r\n0\r\n\r\n`)),
    fc.constantFrom('zz\r\n{}\r\n0\r\n\r\n', '5\r\n{}\r\n0\r\n\r\n', `${MESSAGE.length.toString(16)}\r\n${MESSAGE}\r\nq\r\n`, '-1\r\n\r\n', 'ffffffffffffffff\r\n{}\r\n').map((chunks) =>
      get('bad chunks', `POST /api/customers/1001100000001/messages HTTP/1.1\r\nHost: sandbox\r\nAuthorization: Bearer ${token}\r\nAgent-Id: 1001\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`)),
    target.map((t) => get('no Host', `GET ${t} HTTP/1.1\r\nAuthorization: Bearer ${token}\r\nAgent-Id: 1001\r\nConnection: close\r\n\r\n`)),
    fc.tuple(target, fc.constantFrom('X-Test: a\0b\r\n', `X-Big: ${'a'.repeat(20_000)}\r\n`, '')).map(([t, h]) => get('HEAD', request(token, 'HEAD', t, h), true)),
    fc.string({ unit: 'binary', maxLength: 200 }).map((s) => get('random text', `${s}\r\n\r\n`))
  )
}

/** Sends the case and checks every answer the server wrote before closing. */
export async function rawViolations (port: number, c: RawCase): Promise<string[]> {
  const res = await rawExchange(port, Buffer.from(c.bytes, 'latin1'), 1500, true)
  if (res.ended === 'reset') return ['the connection was reset']
  const answers = res.text.split(/(?=HTTP\/1\.1 \d{3} )/).filter((a) => a !== '')
  if (answers.length === 0) return res.ended === 'closed' ? ['closed without an answer'] : []
  const out: string[] = []
  const target = /^\S+ (\S+)/.exec(c.bytes)?.[1] ?? ''
  for (const a of answers) {
    const head = a.indexOf('\r\n\r\n')
    const lines = a.slice(0, head === -1 ? a.length : head).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim()
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0])?.[1] ?? 0)
    // a 100 Continue or an answer that a HEAD left bodiless has no error shape to check
    if (status === 100) continue
    out.push(...violations({ status, headers, body: head === -1 ? '' : a.slice(head + 4) }, { invalid: null, inputs: [target, decodeURI(target.replace(/%(?![0-9a-f]{2})/gi, '%25'))], method: c.head ? 'HEAD' : 'GET' }))
  }
  return out
}
