import type { FastifyRequest } from 'fastify'
import { SandboxError } from '../errors.js'
import type { World } from '../store/world.js'
import { basicClient } from './clients.js'

/**
 * Token requests per second per client for a hosted sandbox (SANDBOX_TOKEN_RATE_LIMIT). An access token
 * costs the sandbox about twenty API requests (an RSA signature), so a client that fetches one per call can
 * take a core on its own. Counted in fixed one-second windows, checked before the provider reads the body:
 * the key is the client of a right Basic header, else the client address (client_secret_post, a wrong
 * secret; so a stranger cannot spend a partner's budget by naming it). Off when perSecond is 0.
 */
export class TokenRateLimit {
  private window = 0
  private readonly counts = new Map<string, number>()

  constructor (readonly perSecond: number, private readonly world: World) {}

  /** A 429 for a token request over its client's budget (counted either way), else undefined. */
  check (request: FastifyRequest, now = Date.now()): SandboxError | undefined {
    const second = Math.floor(now / 1000)
    // one map per window: memory bounded by the clients of one second
    if (second !== this.window) {
      this.window = second
      this.counts.clear()
    }
    const client = basicClient(request.headers.authorization, this.world)
    const key = client === undefined ? `ip:${request.ip}` : `client:${client}`
    const count = (this.counts.get(key) ?? 0) + 1
    this.counts.set(key, count)
    if (count <= this.perSecond) return undefined
    const who = client === undefined ? 'this address' : `client '${client}'`
    return new SandboxError('SANDBOX_ERR_RATE_LIMITED', `Too many token requests: ${who} may ask for ${this.perSecond} tokens per second; retry after 1 second (and reuse a token until it expires)`, [], {
      'retry-after': '1',
      'ratelimit-limit': String(this.perSecond),
      'ratelimit-remaining': '0',
      'ratelimit-reset': '1'
    })
  }
}
