import type { Result } from 'ioredis'
import { notFound, SandboxError } from '../../errors.js'
import type { SnapshotInfo } from '../../schemas/snapshots.js'
import { MAX_SNAPSHOTS, type NamedSnapshotStore } from '../snapshots.js'
import { NO_GUARD, asStoreError, type RedisClient, type WriteGuard } from './connection.js'
import type { RedisKeys } from './keys.js'

/** Saves a snapshot unless the partner keeps MAX already (another name). KEYS: documents, infos. ARGV: name, document, info, max. */
const SAVE = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
  return redis.call('HLEN', KEYS[1])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return -1
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    sandboxSaveSnapshot: (documents: string, infos: string, name: string, document: string, info: string, max: number) => Result<number, Context>
  }
}

/** Named snapshots in Redis (two hashes per partner): every replica lists, restores and deletes the same ones. */
export class RedisNamedSnapshots implements NamedSnapshotStore {
  constructor (private readonly client: RedisClient, private readonly keys: RedisKeys, private readonly guard: WriteGuard = NO_GUARD) {
    client.defineCommand('sandboxSaveSnapshot', { numberOfKeys: 2, lua: SAVE })
  }

  async list (partnerId: string): Promise<SnapshotInfo[]> {
    const infos = await this.client.hvals(this.keys.namedSnapshotInfo(partnerId)).catch((err: unknown) => { throw asStoreError(err) })
    return infos.map((i) => JSON.parse(i) as SnapshotInfo).sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async save (partnerId: string, name: string, text: string): Promise<SnapshotInfo> {
    this.guard.check()
    const info: SnapshotInfo = { name, createdAt: new Date().toISOString(), bytes: Buffer.byteLength(text) }
    const kept = await this.client.sandboxSaveSnapshot(this.keys.namedSnapshots(partnerId), this.keys.namedSnapshotInfo(partnerId), name, text, JSON.stringify(info), MAX_SNAPSHOTS)
      .catch((err: unknown) => { throw asStoreError(err) })
    if (kept >= 0) {
      throw new SandboxError('SANDBOX_ERR_LIMIT', `Partner '${partnerId}' keeps ${kept} snapshots; the limit is ${MAX_SNAPSHOTS}. Delete one first (DELETE /__sandbox/snapshots/{name}).`)
    }
    return info
  }

  async read (partnerId: string, name: string): Promise<string> {
    const text = await this.client.hget(this.keys.namedSnapshots(partnerId), name).catch((err: unknown) => { throw asStoreError(err) })
    if (text === null) throw notFound('Snapshot', name)
    return text
  }

  async forget (): Promise<void> {
    // the partner's keys went with it (RedisBackend.removePartner)
  }

  async remove (partnerId: string, name: string): Promise<void> {
    const [[, removed]] = await this.client.multi().hdel(this.keys.namedSnapshots(partnerId), name).hdel(this.keys.namedSnapshotInfo(partnerId), name).exec()
      .catch((err: unknown) => { throw asStoreError(err) }) as Array<[Error | null, number]>
    if (removed === 0) throw notFound('Snapshot', name)
  }
}
