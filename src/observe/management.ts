import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from '../node-http.js'
import type { AddressInfo } from 'node:net'
import { errorBody } from '../errors.js'
import { pathOf } from '../path-patterns.js'
import { exposition, wantsOpenMetrics } from './exposition.js'
import type { Family } from './series.js'

/*
 * The management port (SANDBOX_MANAGEMENT_PORT, as Keycloak's management interface on 9000): GET /metrics,
 * GET /health and GET /ready, on a port of its own that partners are not given (metrics name partners, the main
 * port never serves them). A plain node:http server: three fixed answers need no framework, and nothing of the
 * main server's request steps (tokens, journal, faults, metrics) applies to them.
 */

const JSON_TYPE = 'application/json; charset=utf-8'
const UP = JSON.stringify({ status: 'UP' })
const OUT_OF_SERVICE = JSON.stringify({ status: 'OUT_OF_SERVICE' })

export interface ManagementOptions {
  port: number
  host: string
  families: readonly Family[]
  ready: () => Promise<boolean>
  /** A scrape that failed (answered 500): logged by the caller. */
  failed: (err: unknown) => void
}

/** The error body every 4xx of the sandbox has, for the management port's own. */
function refuse (res: ServerResponse, status: number, message: string, path: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, ...headers })
  res.end(JSON.stringify(errorBody(status, message, path)))
}

async function answer (req: IncomingMessage, res: ServerResponse, opts: ManagementOptions): Promise<void> {
  const path = pathOf(req.url ?? '/')
  if (path !== '/metrics' && path !== '/health' && path !== '/ready') {
    return refuse(res, 404, 'The management port serves GET /metrics, /health and /ready', path)
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, `Request method '${req.method ?? ''}' is not supported`, path, { allow: 'GET, HEAD' })
  if (path === '/health') {
    res.writeHead(200, { 'content-type': JSON_TYPE })
    res.end(req.method === 'HEAD' ? undefined : UP)
    return
  }
  if (path === '/ready') {
    const ready = await opts.ready()
    res.writeHead(ready ? 200 : 503, { 'content-type': JSON_TYPE })
    res.end(req.method === 'HEAD' ? undefined : ready ? UP : OUT_OF_SERVICE)
    return
  }
  const { text, contentType } = await exposition(opts.families, wantsOpenMetrics(req.headers.accept))
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' })
  res.end(req.method === 'HEAD' ? undefined : text)
}

export class ManagementServer {
  private server: Server | undefined

  constructor (private readonly opts: ManagementOptions) {}

  /** Listens; a port in use (or refused) fails with a message naming the option. Resolves with the port. */
  async listen (): Promise<number> {
    // Node's process metrics (prom-client) are loaded by the first scrape, not here: loading them right after the
    // main port opened held up the first requests of every start
    const server = createServer((req, res) => {
      answer(req, res, this.opts).catch((err: unknown) => {
        this.opts.failed(err)
        if (res.headersSent) {
          res.destroy()
          return
        }
        refuse(res, 500, 'The metrics could not be collected', pathOf(req.url ?? '/'))
      })
    })
    // a scraper keeps its connection open between scrapes; a stop must not wait for it
    server.keepAliveTimeout = 65_000
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        const why = err.code === 'EADDRINUSE' ? 'is in use' : `cannot be opened (${err.code ?? err.message})`
        reject(new Error(`management port ${this.opts.host}:${this.opts.port} ${why}: choose another with --management-port / SANDBOX_MANAGEMENT_PORT (0: a free port, off: no management port and no metrics)`))
      })
      server.listen(this.opts.port, this.opts.host, () => resolve())
    })
    this.server = server
    return (server.address() as AddressInfo).port
  }

  async close (): Promise<void> {
    const server = this.server
    if (server === undefined) return
    this.server = undefined
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
}
