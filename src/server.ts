import net from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import app, { serverOptions } from './app.js'
import type { Config } from './config.js'
import { boundOldGeneration, capYoungGeneration, keepCodeWhenIdle, releaseDroppedRecords, servingHeap, settleHttpObjectLayouts, skipMaglev } from './heap.js'

/** Builds the app on a new Fastify instance (also what the tests do, adding their own hooks first). */
export async function buildServer (config: Config, prepare: (fastify: FastifyInstance) => void = () => {}): Promise<FastifyInstance> {
  const fastify = Fastify(serverOptions(config))
  prepare(fastify)
  await fastify.register(fp(app), { config })
  await fastify.ready()
  return fastify
}

/**
 * How long a connection that is idle when a stop begins stays open for a request that is already on its way
 * (a keep-alive client sends its next request the moment it has read an answer). Such a request is answered,
 * with Connection: close; a connection that brings none within this time is closed.
 */
const IDLE_GRACE_MS = 250

/**
 * Starts the sandbox and stops it gracefully on SIGTERM/SIGINT: not ready any more, serving on for the drain
 * time (SANDBOX_SHUTDOWN_DRAIN: a load balancer sees /ready fail and sends no more), then stop accepting, let
 * in-flight requests finish, flush the store, exit 0 (or 1 if that takes longer than the shutdown timeout).
 */
export async function start (config: Config, banner: (fastify: FastifyInstance) => void = () => {}): Promise<FastifyInstance> {
  // before the data are loaded: the load's records survive as a run of creates' do
  capYoungGeneration()
  skipMaglev()
  keepCodeWhenIdle()
  settleHttpObjectLayouts()
  const fastify = await buildServer(config)
  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    fastify.log.info({ signal, drainMs: config.shutdownDrain }, 'stopping')
    // every answer from now on carries Connection: close (the operations plugin), the identity provider's too,
    // and /ready answers 503: a load balancer's health check takes the sandbox out of rotation meanwhile
    fastify.readiness.ready = false
    setTimeout(() => close(), config.shutdownDrain)
  }
  const close = (): void => {
    const timer = setTimeout(() => {
      fastify.log.error({ timeoutMs: config.shutdownTimeout }, 'stop took too long; exiting')
      process.exit(1)
    }, config.shutdownTimeout)
    timer.unref()
    // no new connections from now on; net.Server's close, because http.Server's would also destroy at once
    // every connection that is idle at this instant, resetting the requests clients have already written
    // on them (under load most connections are "idle" only because their next request is still on its way)
    net.Server.prototype.close.call(fastify.server)
    setTimeout(() => {
      // what came in meanwhile has been answered with Connection: close and those connections have closed;
      // the ones still idle had nothing on its way: closed now, and any that turns idle later (its answer
      // began before the stop, without Connection: close) as soon as it does
      fastify.server.closeIdleConnections()
      const reaper = setInterval(() => fastify.server.closeIdleConnections(), 20)
      reaper.unref()
      fastify.close().then(() => {
        fastify.log.info('stopped')
        process.exit(0)
      }, (err: unknown) => {
        fastify.log.error({ err }, 'error while stopping')
        process.exit(1)
      })
    }, Math.min(IDLE_GRACE_MS, Math.floor(config.shutdownTimeout / 4)))
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
  await fastify.listen({ port: config.port, host: config.host })
  // the management port (metrics): a port in use stops the start, naming the option
  await fastify.management.start()
  servingHeap()
  boundOldGeneration()
  fastify.world.recordsDropped = releaseDroppedRecords()
  banner(fastify)
  return fastify
}
