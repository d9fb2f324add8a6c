import { MAX_SESSIONS_PER_PARTNER, type ConsoleSessionStore, type Session } from '../console-sessions.js'
import { asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'

/**
 * Console sessions in Redis, each a key that expires with the session: a sign-in on one replica holds on every
 * other. The partner console's and the operator's under keys of their own (kind). Each partner's sessions are
 * also listed in a sorted set of its own (by expiry), so that its oldest ends when it signs in past its cap and
 * all of them end at once when the operator says so. (Separate commands, not a script: a session's key and its
 * partner's list are in different slots of a cluster.)
 */
export class RedisConsoleSessions implements ConsoleSessionStore {
  private readonly key: (id: string) => string
  private readonly list: (partnerId: string) => string

  constructor (private readonly client: RedisClient, keys: RedisKeys, kind: 'partner' | 'operator' = 'partner', private readonly maxPerPartner = MAX_SESSIONS_PER_PARTNER) {
    this.key = kind === 'partner' ? (id) => keys.consoleSession(id) : (id) => keys.operatorSession(id)
    this.list = (partnerId) => keys.consoleSessionList(partnerId, kind)
  }

  async put (id: string, session: Session): Promise<void> {
    const list = this.list(session.partnerId)
    const ttl = Math.max(1, session.expires - Date.now())
    const c = this.client
    try {
      await c.zremrangebyscore(list, '-inf', Date.now())
      const excess = await c.zcard(list) - this.maxPerPartner + 1
      if (excess > 0) {
        const oldest = await c.zpopmin(list, excess)
        // [id, score, id, score...]
        await Promise.all(oldest.filter((_v, i) => i % 2 === 0).map(async (old) => await c.del(this.key(old))))
      }
      await c.set(this.key(id), JSON.stringify(session), 'PX', ttl)
      await c.zadd(list, session.expires, id)
      await c.pexpire(list, ttl)
    } catch (err) {
      throw asStoreError(err)
    }
  }

  async get (id: string): Promise<Session | undefined> {
    const text = await this.client.get(this.key(id)).catch((err: unknown) => { throw asStoreError(err) })
    return text === null ? undefined : JSON.parse(text) as Session
  }

  async end (id: string): Promise<void> {
    const session = await this.get(id)
    await this.client.del(this.key(id)).catch((err: unknown) => { throw asStoreError(err) })
    if (session !== undefined) await this.client.zrem(this.list(session.partnerId), id).catch((err: unknown) => { throw asStoreError(err) })
  }

  async endAll (partnerId: string): Promise<void> {
    const c = this.client
    try {
      const ids = await c.zrange(this.list(partnerId), 0, -1)
      await Promise.all(ids.map(async (id) => await c.del(this.key(id))))
      await c.del(this.list(partnerId))
    } catch (err) {
      throw asStoreError(err)
    }
  }
}
