import type { Adapter, AdapterPayload } from 'oidc-provider'
import type { Result } from 'ioredis'
import { clientAdapter, revokeIssued, type AdapterHooks, type IssuedToken, type ProviderStorage, type ProviderStorageFactory } from '../provider-storage.js'
import { asStoreError, type RedisClient } from './connection.js'
import type { RedisKeys } from './keys.js'

/*
 * The identity provider's state in Redis (oidc-provider's adapter, after panva/node-oidc-provider's
 * example/adapters/redis.js), so that any replica goes on with what another began: a code issued by one is
 * redeemed at another, a refresh token works everywhere, a sign-in (Session) made through one is known to all,
 * a PAR request pushed to one is used at another's authorization endpoint.
 *
 * Each entry is a hash (payload: the provider's JSON, consumed: when it was used) that expires with the entry;
 * uid and user code lookups are keys of their own naming the entry; a grant has a set of its entries' keys
 * and a hash of its JWT access tokens, under one hash tag, taken at once when the grant ends. Every script
 * touches one key, or the two keys of one grant: the same code runs on a Redis Cluster.
 */

/** Marks an entry used, once: 1 now, 0 used before (by another replica too), -1 gone. KEYS: the entry. ARGV: epoch seconds. */
const CONSUME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'consumed', ARGV[1])
`

/** The entry (re)written: its payload, no consumed mark, its expiry. KEYS: the entry. ARGV: payload, ms ('' for none). */
const UPSERT = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'payload', ARGV[1])
if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`

/**
 * A member added to a grant's set (SADD) or hash (HSET), which then lives at least as long as it. KEYS: the set
 * or hash. ARGV: ms (0: a member that does not expire), the command, its arguments.
 */
const ADD_TO_GRANT = `
redis.call(ARGV[2], KEYS[1], unpack(ARGV, 3))
local ms = tonumber(ARGV[1])
if ms == 0 then
  redis.call('PERSIST', KEYS[1])
elseif redis.call('PTTL', KEYS[1]) < ms then
  redis.call('PEXPIRE', KEYS[1], ms)
end
return 1
`

/** A grant's entry keys and access tokens, taken (deleted) at once: one replica ends them. KEYS: entries set, issued hash. */
const TAKE_GRANT = `
local entries = redis.call('SMEMBERS', KEYS[1])
local issued = redis.call('HVALS', KEYS[2])
redis.call('DEL', KEYS[1], KEYS[2])
return {entries, issued}
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    sandboxOidcConsume: (entry: string, now: number) => Result<number, Context>
    sandboxOidcUpsert: (entry: string, payload: string, ms: string) => Result<number, Context>
    sandboxOidcAddToGrant: (key: string, ms: number, command: 'SADD' | 'HSET', ...args: string[]) => Result<number, Context>
    sandboxOidcTakeGrant: (entries: string, issued: string) => Result<[string[], string[]], Context>
  }
}

// an entry without a TTL (none of the models the sandbox configures) lives until it is destroyed
const NO_TTL_MS = ''

async function store<T> (command: Promise<T>): Promise<T> {
  try {
    return await command
  } catch (err) {
    throw asStoreError(err)
  }
}

/** The provider's storage on Redis (see above); Client stays derived from the partners. */
export function redisProviderStorage (client: RedisClient, keys: RedisKeys): ProviderStorageFactory {
  client.defineCommand('sandboxOidcConsume', { numberOfKeys: 1, lua: CONSUME })
  client.defineCommand('sandboxOidcUpsert', { numberOfKeys: 1, lua: UPSERT })
  client.defineCommand('sandboxOidcAddToGrant', { numberOfKeys: 1, lua: ADD_TO_GRANT })
  client.defineCommand('sandboxOidcTakeGrant', { numberOfKeys: 2, lua: TAKE_GRANT })

  return (hooks: AdapterHooks): ProviderStorage => {
    async function read (key: string | null): Promise<AdapterPayload | undefined> {
      if (key === null) return undefined
      const [payload, consumed] = await store(client.hmget(key, 'payload', 'consumed'))
      if (payload === null) return undefined
      const out = JSON.parse(payload) as AdapterPayload
      if (consumed !== null) out.consumed = Number(consumed)
      return out
    }

    /** Ends a grant: its entries deleted, its access tokens revoked (by whichever replica takes them first). */
    async function endGrant (grantId: string): Promise<void> {
      const [entries, issued] = await store(client.sandboxOidcTakeGrant(keys.oidcGrant(grantId), keys.oidcIssued(grantId)))
      // one key each: entries of a grant lie in many slots of a cluster
      await store(Promise.all(entries.map(async (key) => await client.del(key))))
      await revokeIssued(hooks, issued.map((text) => JSON.parse(text) as IssuedToken))
    }

    function factory (name: string): Adapter {
      if (name === 'Client') return clientAdapter(hooks)
      const entry = (id: string): string => keys.oidc(name, id)
      return {
        async upsert (id, payload, expiresIn) {
          const ms = expiresIn === undefined ? NO_TTL_MS : String(expiresIn * 1000)
          const key = entry(id)
          // the grant knows the entry before the entry exists: a grant's end never misses one
          if (typeof payload.grantId === 'string') await store(client.sandboxOidcAddToGrant(keys.oidcGrant(payload.grantId), ms === '' ? 0 : Number(ms), 'SADD', key))
          const writes: Array<Promise<unknown>> = [client.sandboxOidcUpsert(key, JSON.stringify(payload), ms)]
          for (const kind of ['uid', 'userCode'] as const) {
            const value = payload[kind]
            if (typeof value !== 'string') continue
            writes.push(ms === '' ? client.set(keys.oidcLookup(kind, value), key) : client.set(keys.oidcLookup(kind, value), key, 'PX', Number(ms)))
          }
          await store(Promise.all(writes))
        },
        async find (id) {
          return await read(entry(id))
        },
        async findByUid (uid) {
          return await read(await store(client.get(keys.oidcLookup('uid', uid))))
        },
        async findByUserCode (userCode) {
          return await read(await store(client.get(keys.oidcLookup('userCode', userCode))))
        },
        async consume (id) {
          const done = await store(client.sandboxOidcConsume(entry(id), Math.floor(Date.now() / 1000)))
          if (done === 1) return
          // another request used it first (on this replica or another) between the provider's find and now:
          // as for a replay found consumed, the grant ends (with what it gave) and the request fails
          const grantId = (await read(entry(id)))?.grantId
          if (typeof grantId === 'string') {
            await store(client.del(keys.oidc('Grant', grantId)))
            await endGrant(grantId)
          }
          const { errors } = await import('oidc-provider')
          throw new errors.InvalidGrant(`${name === 'AuthorizationCode' ? 'authorization code' : name} already consumed`)
        },
        async destroy (id) {
          await store(client.del(entry(id)))
        },
        async revokeByGrantId (grantId) {
          await endGrant(grantId)
        }
      }
    }

    return {
      factory,
      async accessTokenIssued (grantId, token) {
        const ms = Math.max(1, token.exp * 1000 - Date.now())
        await store(client.sandboxOidcAddToGrant(keys.oidcIssued(grantId), ms, 'HSET', token.jti, JSON.stringify(token)))
      },
      close: () => {}
    }
  }
}
