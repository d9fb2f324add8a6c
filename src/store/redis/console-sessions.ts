import type { ConsoleSessionStore, Session } from '../console-sessions.js'
import { asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'

/** Console sessions in Redis, each a key that expires with the session: a sign-in on one replica holds on every other. */
export class RedisConsoleSessions implements ConsoleSessionStore {
  constructor (private readonly client: RedisClient, private readonly keys: RedisKeys) {}

  async put (id: string, session: Session): Promise<void> {
    await this.client.set(this.keys.consoleSession(id), JSON.stringify(session), 'PX', Math.max(1, session.expires - Date.now()))
      .catch((err: unknown) => { throw asStoreError(err) })
  }

  async get (id: string): Promise<Session | undefined> {
    const text = await this.client.get(this.keys.consoleSession(id)).catch((err: unknown) => { throw asStoreError(err) })
    return text === null ? undefined : JSON.parse(text) as Session
  }

  async end (id: string): Promise<void> {
    await this.client.del(this.keys.consoleSession(id)).catch((err: unknown) => { throw asStoreError(err) })
  }
}
