import net, { createServer } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import app, { serverOptions, type LogSink } from './app.js'
import type { Config } from './config.js'
import type { Tracing } from './observe/tracing.js'

/*
 * Building, listening and stopping one sandbox: what every way of running it shares, the command (main.ts) and
 * the library (library.ts). Nothing here touches the process: no signal handler, no exit, no V8 flag; those
 * belong to the command alone.
 */

// tracing for the command (the SDK from the OTEL_* variables) and for a sandbox in a host's process
export { hostTracing, startTracing } from './observe/request-spans.js'

export interface BuildOptions {
  /** Where the log lines go (app.ts's default: standard output). */
  log?: LogSink
  /** Traces of its requests (observe/tracing.ts); none by default. */
  tracing?: Tracing
}

/** Builds the app on a new Fastify instance (also what the tests do, adding their own hooks first). */
export async function buildServer (config: Config, prepare: (fastify: FastifyInstance) => void = () => {}, options: BuildOptions = {}): Promise<FastifyInstance> {
  const fastify = Fastify(serverOptions(config, options.log))
  prepare(fastify)
  await fastify.register(fp(app), { config, tracing: options.tracing })
  await fastify.ready()
  return fastify
}

/**
 * Port 0: the issuer and the docs links need the real port before the app is built, so a free port is chosen
 * first (and becomes the default public URL's port). Another process can take it in between: listenSandbox
 * tries again then.
 */
async function freePort (host: string): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, host, () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

/** Tries of a free port that another process took between the probe and the listen. */
const PORT_TRIES = 5

export interface ListenOptions extends BuildOptions {
  /** The public URL for the port picked when config.port is 0; by default localhost's, unless config.publicUrl was given. */
  publicUrlOf?: (port: number) => string
}

/** Builds the sandbox and listens on config.port (a free port for 0, whose number the config then holds). */
export async function listenSandbox (config: Config, options: ListenOptions = {}): Promise<FastifyInstance> {
  const pick = config.port === 0
  const publicUrlOf = options.publicUrlOf ??
    (config.publicUrl === `http://localhost:${config.port}` ? (port: number) => `http://localhost:${port}` : undefined)
  for (let attempt = 1; ; attempt++) {
    if (pick) {
      config.port = await freePort(config.host)
      if (publicUrlOf !== undefined) config.publicUrl = publicUrlOf(config.port)
    }
    const fastify = await buildServer(config, undefined, options)
    try {
      await fastify.listen({ port: config.port, host: config.host })
    } catch (err) {
      await fastify.close()
      if (!pick || attempt >= PORT_TRIES || (err as { code?: string }).code !== 'EADDRINUSE') throw err
      continue
    }
    try {
      // the management port (metrics): a port in use stops the start, naming the option
      await fastify.management.start()
      return fastify
    } catch (err) {
      await fastify.close()
      throw err
    }
  }
}

/**
 * How long a connection that is idle when a stop begins stays open for a request that is already on its way
 * (a keep-alive client sends its next request the moment it has read an answer). Such a request is answered,
 * with Connection: close; a connection that brings none within this time is closed.
 */
const IDLE_GRACE_MS = 250

/**
 * Stops a listening sandbox gracefully: not ready any more, serving on for the drain time (a load balancer sees
 * /ready fail and sends no more), then no new connections, the requests in flight finished, the store flushed.
 * Resolves true once closed; false when that took longer than the shutdown timeout, after every connection
 * still open was destroyed and the close finished without them.
 */
export async function stopSandbox (fastify: FastifyInstance, config: Pick<Config, 'shutdownDrain' | 'shutdownTimeout'>): Promise<boolean> {
  // every answer from now on carries Connection: close (the operations plugin), the identity provider's too,
  // and /ready answers 503: a load balancer's health check takes the sandbox out of rotation meanwhile
  fastify.readiness.ready = false
  if (config.shutdownDrain > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDrain))
  // no new connections from now on; net.Server's close, because http.Server's would also destroy at once
  // every connection that is idle at this instant, resetting the requests clients have already written
  // on them (under load most connections are "idle" only because their next request is still on its way)
  net.Server.prototype.close.call(fastify.server)
  await new Promise((resolve) => setTimeout(resolve, Math.min(IDLE_GRACE_MS, Math.floor(config.shutdownTimeout / 4))))
  // what came in meanwhile has been answered with Connection: close and those connections have closed; the
  // ones still idle had nothing on its way: closed now, and any that turns idle later (its answer began
  // before the stop, without Connection: close) as soon as it does
  fastify.server.closeIdleConnections()
  const reaper = setInterval(() => fastify.server.closeIdleConnections(), 20)
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), config.shutdownTimeout) })
  const closing = fastify.close().then(() => true)
  try {
    if (await Promise.race([closing, late])) return true
    fastify.server.closeAllConnections()
    await closing
    return false
  } finally {
    clearInterval(reaper)
    clearTimeout(timer)
  }
}
