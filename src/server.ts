import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import app, { serverOptions } from './app.js'
import type { Config } from './config.js'

/** Builds the app on a new Fastify instance (also what the tests do, adding their own hooks first). */
export async function buildServer (config: Config, prepare: (fastify: FastifyInstance) => void = () => {}): Promise<FastifyInstance> {
  const fastify = Fastify(serverOptions(config))
  prepare(fastify)
  await fastify.register(fp(app), { config })
  await fastify.ready()
  return fastify
}

/**
 * Starts the sandbox and stops it gracefully on SIGTERM/SIGINT: stop accepting, let in-flight requests
 * finish, flush the store, exit 0 (or 1 if that takes longer than the shutdown timeout).
 */
export async function start (config: Config, banner: (fastify: FastifyInstance) => void = () => {}): Promise<FastifyInstance> {
  const fastify = await buildServer(config)
  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    fastify.log.info({ signal }, 'stopping')
    const timer = setTimeout(() => {
      fastify.log.error({ timeoutMs: config.shutdownTimeout }, 'stop took too long; exiting')
      process.exit(1)
    }, config.shutdownTimeout)
    timer.unref()
    // server.close() ends only the connections idle at that moment; a keep-alive connection whose
    // request finishes later would hold the stop until its keep-alive timeout (72 s)
    const reaper = setInterval(() => fastify.server.closeIdleConnections(), 50)
    reaper.unref()
    fastify.close().then(() => {
      fastify.log.info('stopped')
      process.exit(0)
    }, (err: unknown) => {
      fastify.log.error({ err }, 'error while stopping')
      process.exit(1)
    })
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
  await fastify.listen({ port: config.port, host: config.host })
  banner(fastify)
  return fastify
}
