import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/*
 * A test implementation of the bank API: a proxy in front of a sandbox that answers as the sandbox does, except
 * where a test's rewrites say otherwise (its planted divergences). It counts the methods the bank API received.
 */

export interface Seen { method: string, path: string, query: URLSearchParams, headers: IncomingMessage['headers'], body: string }
export interface Answer { status: number, headers: Record<string, string>, body: string }
export interface Rewrite {
  /** When it applies: the request, and the sandbox's answer to it. */
  when: (req: Seen, answer: Answer) => boolean
  rewrite: (answer: Answer, req: Seen) => Answer
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date'])

export interface Proxy { url: string, apiMethods: Map<string, number>, tokens: Set<string>, close: () => Promise<void> }

export async function startProxy (upstream: string, rewrites: Rewrite[]): Promise<Proxy> {
  const apiMethods = new Map<string, number>()
  const tokens = new Set<string>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      (async () => {
        const url = new URL(req.url ?? '/', 'http://proxy')
        const seen: Seen = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString() }
        if (url.pathname.startsWith('/api')) apiMethods.set(seen.method, (apiMethods.get(seen.method) ?? 0) + 1)
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k) && k !== 'host').map(([k, v]) => [k, String(v)]))
        const up = await fetch(`${upstream}${req.url ?? '/'}`, { method: seen.method, headers, body: ['GET', 'HEAD'].includes(seen.method) ? undefined : seen.body, redirect: 'manual' })
        let answer: Answer = { status: up.status, headers: Object.fromEntries([...up.headers].filter(([k]) => !HOP.has(k))), body: await up.text() }
        if (url.pathname.endsWith('/token')) {
          try {
            const json = JSON.parse(answer.body) as Record<string, unknown>
            for (const k of ['access_token', 'refresh_token', 'id_token']) if (typeof json[k] === 'string') tokens.add(json[k])
          } catch {}
        }
        for (const r of rewrites) if (r.when(seen, answer)) answer = r.rewrite(answer, seen)
        res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) })
        res.end(answer.body)
      })().catch((err: unknown) => {
        res.writeHead(502)
        res.end(String(err))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    apiMethods,
    tokens,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
