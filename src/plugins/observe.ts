import { totalmem } from 'node:os'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onResponseHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import { pathOf } from '../path-patterns.js'
import { isReady } from './operations.js'
import { connected } from '../store/redis/connection.js'
import { ManagementServer } from '../observe/management.js'
import { Recorder, type Probes, type RouteSeries } from '../observe/metrics.js'
import { NO_METRICS, type Metrics } from '../instruments/recorder.js'
import { PROVIDER_WILDCARD, UNMATCHED, apiOf, providerRoute, routeTemplate } from '../observe/routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** What the other rooms count into (instruments/recorder.ts); NO_METRICS with SANDBOX_MANAGEMENT_PORT=off. */
    metrics: Metrics
    /**
     * The management port (SANDBOX_MANAGEMENT_PORT): opened once the main server listens (start() is that
     * opening, the same promise for every caller), closed with the app. url: its base URL once open.
     */
    management: { start: () => Promise<string | undefined>, url: string | undefined }
  }
}

const FAULT_HEADER = 'sandbox-fault-applied'

/** The partner a request can be counted for: its token's, or the client's of a token request. */
function partnerOf (request: FastifyRequest): string | undefined {
  return request.token?.clientId ?? request.tokenPartner ?? undefined
}

/** What a URL looks like from this machine, for the banner: a wildcard host is localhost. */
function localUrl (host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return `http://${shown}:${port}`
}

/** Memory the process may use: the cgroup's limit (libuv reads it), else the machine's (no limit, or it says none). */
function memoryLimit (): number {
  const total = totalmem()
  const constrained = process.constrainedMemory?.() ?? 0
  return constrained > 0 && constrained < total ? constrained : total
}

export interface ObserveOptions {
  config: Config
  version: string
}

/**
 * Metrics (docs/observability.md): the recorder every room counts into, one request step per route that
 * observes its duration with the route's own series (labels made once per route, no label hashing per request),
 * and the management server. Registered first in app.ts, so that its onRoute step sees every route.
 */
async function observe (fastify: FastifyInstance, opts: ObserveOptions): Promise<void> {
  const { config } = opts
  if (config.managementPort === 'off') {
    fastify.decorate('metrics', NO_METRICS)
    fastify.decorate('management', { start: async () => undefined, url: undefined })
    return
  }
  let scenarioPartners: Set<string> | undefined
  const probes: Probes = {
    // (each scrape: one Redis command with replicas; the scenarios' partner ids are known from the files)
    partners: async () => {
      scenarioPartners ??= new Set(fastify.scenarios.names().flatMap((n) => fastify.scenarios.get(n).scenario.partners.map((p) => p.id)))
      const ids = await fastify.world.backend.partnerIds(fastify.world)
      const registered = ids.filter((id) => !scenarioPartners!.has(id)).length
      return { registered, scenario: ids.length - registered }
    },
    ready: async () => await isReady(fastify.readiness),
    memoryLimit,
    redis: () => {
      const shared = fastify.redis
      return { up: shared !== null && connected(shared.client) && connected(shared.bulk), partnersHeld: fastify.world.backend.partnersHeld?.() ?? 0 }
    }
  }
  const recorder = new Recorder({
    perPartner: config.metricsPartners === 1,
    partnersMax: config.metricsPartnersMax,
    dataDir: config.dataDir !== undefined,
    redis: config.redisUrl !== undefined,
    version: opts.version
  }, probes)
  fastify.decorate('metrics', recorder)

  const record = (series: RouteSeries, request: FastifyRequest, reply: FastifyReply): void => {
    const raw = reply.raw
    const applied = reply.getHeader(FAULT_HEADER)
    // an answer never written: the connection was dropped (an injected reset or timeout)
    recorder.request(series, raw.writableFinished ? raw.statusCode : 0, applied === undefined ? undefined : String(applied), reply.elapsedTime / 1000, partnerOf(request))
  }
  const ours = new WeakSet<onResponseHookHandler>()
  /** The step of one route: its series made now, once (for each method, when it has several). */
  const stepOf = (url: string, methods: string[]): onResponseHookHandler => {
    const template = routeTemplate(url)
    const api = apiOf(template)
    let step: onResponseHookHandler
    if (url === PROVIDER_WILDCARD) {
      // the identity provider's routes (served through middie): the template of the path, from its known routes
      step = (request, reply, done) => {
        record(recorder.route(request.method, providerRoute(pathOf(request.url)), 'identity'), request, reply)
        done()
      }
    } else if (methods.length === 1) {
      const series = recorder.route(methods[0], template, api)
      step = (request, reply, done) => {
        record(series, request, reply)
        done()
      }
    } else {
      const byMethod = new Map(methods.map((m) => [m, recorder.route(m, template, api)]))
      step = (request, reply, done) => {
        record(byMethod.get(request.method) ?? recorder.route(request.method, template, api), request, reply)
        done()
      }
    }
    ours.add(step)
    return step
  }
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const existing = route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]
    // the HEAD route Fastify derives from a GET arrives with the GET's step, which would count it as a GET
    route.onResponse = [...existing.filter((h) => !ours.has(h as onResponseHookHandler)), stepOf(route.url, methods)] as never
  })
  // in flight: up when a request arrives, down when its response closes, however it ends (also abandoned)
  fastify.addHook('onRequest', (_request, reply, done: HookHandlerDoneFunction) => {
    recorder.active++
    reply.raw.on('close', recorder.leave)
    done()
  })
  // requests no route took (routed ones are counted by their route's own step): one route, by part of the sandbox
  fastify.addHook('onResponse', (request, reply, done) => {
    if (request.is404) record(recorder.route(request.method, UNMATCHED, apiOf(pathOf(request.url))), request, reply)
    done()
  })

  const server = new ManagementServer({
    port: config.managementPort,
    host: config.host,
    families: recorder.families,
    ready: probes.ready,
    failed: (err) => fastify.log.error({ err }, 'a scrape of /metrics failed')
  })
  let starting: Promise<string | undefined> | undefined
  const management: FastifyInstance['management'] = {
    url: undefined,
    start: async () => await (starting ??= server.listen().then((port) => {
      // by default a free port (several sandboxes on one machine): the log says which, as the banner does
      management.url = localUrl(config.host, port)
      fastify.log.info({ managementUrl: management.url }, `management port listening at ${management.url}`)
      return management.url
    }))
  }
  fastify.decorate('management', management)
  // a failure is logged here; the command (server.ts) awaits start() too and stops on it
  fastify.addHook('onListen', async () => { await management.start() })
  fastify.addHook('onClose', async () => await server.close())
}

export default fp(observe, { name: 'sandbox-observe' })
