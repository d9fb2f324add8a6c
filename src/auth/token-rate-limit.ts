import type { FastifyRequest } from 'fastify'
import { SandboxError } from '../errors.js'
import { MemoryWindowCounter, type WindowCount, type WindowCounter } from '../store/counters.js'
import type { World } from '../store/world.js'
import { NO_METRICS, type Metrics } from '../instruments/recorder.js'
import { basicCredentials, confidentialClient, type BasicCredentials } from './clients.js'

const WINDOW_MS = 1000

/**
 * Token requests per second per client for a hosted sandbox (SANDBOX_TOKEN_RATE_LIMIT). An access token
 * costs the sandbox about twenty API requests (an RSA signature), so a client that fetches one per call can
 * take a core on its own. Counted in fixed one-second windows (in this process, or in Redis for all replicas
 * together), checked before the provider reads the body: the key is the client of a right Basic header, else
 * the client address (client_secret_post, a wrong secret; so a stranger cannot spend a partner's budget by
 * naming it). Off when perSecond is 0.
 */
export class TokenRateLimit {
  constructor (readonly perSecond: number, private readonly world: World, private readonly counter: WindowCounter = new MemoryWindowCounter(), private readonly metrics: Metrics = NO_METRICS) {}

  /** A 429 for a token request over its client's budget (counted either way), else undefined. */
  check (request: FastifyRequest): SandboxError | undefined | Promise<SandboxError | undefined> {
    // with replicas a partner may not be held here yet (registered on another replica; every registered partner
    // after a deploy): brought here first, or its first token request would count against its address
    const credentials = basicCredentials(request.headers.authorization)
    const bringing = credentials === undefined || this.world.partner(credentials.id) !== undefined ? undefined : this.world.findClient(credentials.id)
    return bringing instanceof Promise ? bringing.then(() => this.count(request, credentials)) : this.count(request, credentials)
  }

  private count (request: FastifyRequest, credentials: BasicCredentials | undefined): SandboxError | undefined | Promise<SandboxError | undefined> {
    const client = confidentialClient(this.world, credentials?.id, credentials?.secret)
    const counted = this.counter.hit(client === undefined ? `ip:${request.ip}` : `partner:${client}`, 'token-requests', WINDOW_MS)
    return counted instanceof Promise ? counted.then((c) => this.refusal(c, client)) : this.refusal(counted, client)
  }

  private refusal ({ count }: WindowCount, client: string | undefined): SandboxError | undefined {
    if (count <= this.perSecond) return undefined
    this.metrics.rateLimited('token')
    const who = client === undefined ? 'this address' : `client '${client}'`
    return new SandboxError('SANDBOX_ERR_RATE_LIMITED', `Too many token requests: ${who} may ask for ${this.perSecond} tokens per second; retry after 1 second (and reuse a token until it expires)`, [], {
      'retry-after': '1',
      'ratelimit-limit': String(this.perSecond),
      'ratelimit-remaining': '0',
      'ratelimit-reset': '1'
    })
  }
}
