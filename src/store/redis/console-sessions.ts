import type { ConsoleSessionStore, Session } from '../console-sessions.js'
import { asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'

/**
 * Console sessions in Redis, each a key that expires with the session: a sign-in on one replica holds on every
 * other. The partner console's and the operator's under keys of their own (kind).
 */
export class RedisConsoleSessions implements ConsoleSessionStore {
  private readonly key: (id: string) => string

  constructor (private readonly client: RedisClient, keys: RedisKeys, kind: 'partner' | 'operator' = 'partner') {
    this.key = kind === 'partner' ? (id) => keys.consoleSession(id) : (id) => keys.operatorSession(id)
  }

  async put (id: string, session: Session): Promise<void> {
    await this.client.set(this.key(id), JSON.stringify(session), 'PX', Math.max(1, session.expires - Date.now()))
      .catch((err: unknown) => { throw asStoreError(err) })
  }

  async get (id: string): Promise<Session | undefined> {
    const text = await this.client.get(this.key(id)).catch((err: unknown) => { throw asStoreError(err) })
    return text === null ? undefined : JSON.parse(text) as Session
  }

  async end (id: string): Promise<void> {
    await this.client.del(this.key(id)).catch((err: unknown) => { throw asStoreError(err) })
  }
}
