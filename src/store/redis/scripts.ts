import type { Result } from 'ioredis'
import type { RedisClient } from './connection.js'

/*
 * The Lua scripts of the shared store. Each runs atomically in Redis and touches the keys of one partner
 * (one hash tag) or the sandbox-wide keys only, so the same scripts run on a Redis Cluster. Stream ids
 * ("<ms>-<seq>") are compared as two numbers.
 */

const IDS = `
local function split (id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end
local function before (a, b)
  local am, as = split(a)
  local bm, bs = split(b)
  return am < bm or (am == bm and as < bs)
end
`

/**
 * One round of a replica with a partner: appends the replica's changes (ARGV[3..]) to the log, then answers
 * what the replica lacks before them. KEYS: head, log, snap. ARGV: the incarnation the replica holds ('' for
 * none), the last entry it applied ('' for none), the changes.
 * Answers {'gone'} for a partner that does not exist (nothing appended); {'log', inc, entries, ids, logBytes,
 * snapBytes} when the replica can go on from its last entry; {'snap', inc, snapAt, snapshot, entries, ids,
 * logBytes, snapBytes} when it must start again from the snapshot (another incarnation, or entries it lacks
 * were trimmed). entries: [id, ['c', change]] up to the first of ids, the ids of the appended changes.
 */
const SYNC = `${IDS}
local head = redis.call('HMGET', KEYS[1], 'inc', 'snapAt', 'keepFrom', 'logBytes', 'snapBytes')
local inc = head[1]
if not inc then return {'gone'} end
local ids = {}
local bytes = 0
for i = 3, #ARGV do
  ids[#ids + 1] = redis.call('XADD', KEYS[2], '*', 'c', ARGV[i])
  bytes = bytes + #ARGV[i]
end
local logBytes = tonumber(head[4])
local upto = '+'
if #ids > 0 then
  upto = '(' .. ids[1]
  logBytes = redis.call('HINCRBY', KEYS[1], 'logBytes', bytes)
end
if ARGV[1] ~= inc or ARGV[2] == '' or before(ARGV[2], head[3]) then
  return {'snap', inc, head[2], redis.call('GET', KEYS[3]), redis.call('XRANGE', KEYS[2], '(' .. head[2], upto), ids, logBytes, tonumber(head[5])}
end
return {'log', inc, redis.call('XRANGE', KEYS[2], '(' .. ARGV[2], upto), ids, logBytes, tonumber(head[5])}
`

/**
 * A new partner's state. KEYS: head, log, snap. ARGV: incarnation, snapshot JSON. Answers 1, or 0 when the
 * partner exists (nothing changed).
 */
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[1], 'inc', ARGV[1], 'snapAt', '0-0', 'keepFrom', '0-0', 'logBytes', 0, 'snapBytes', #ARGV[2])
return 1
`

/**
 * A newer snapshot of the partner: its state up to log entry ARGV[2] (of incarnation ARGV[1]), JSON in
 * ARGV[3]. The entries the previous snapshot held go; those after it stay, for replicas that are behind.
 * KEYS: head, log, snap, compacting (the lease, released). Answers 1, or 0 when another snapshot came first.
 */
const COMPACT = `${IDS}
local head = redis.call('HMGET', KEYS[1], 'inc', 'snapAt')
if head[1] ~= ARGV[1] or not before(head[2], ARGV[2]) then return 0 end
redis.call('SET', KEYS[3], ARGV[3])
redis.call('XTRIM', KEYS[2], 'MINID', head[2])
local kept = 0
for _, entry in ipairs(redis.call('XRANGE', KEYS[2], '(' .. ARGV[2], '+')) do kept = kept + #entry[2][2] end
redis.call('HSET', KEYS[1], 'snapAt', ARGV[2], 'keepFrom', head[2], 'logBytes', kept, 'snapBytes', #ARGV[3])
redis.call('DEL', KEYS[4])
return 1
`

/** Claims ids in a sandbox-wide hash (KEYS[1]) for ARGV[1]: all, or none when one is another's (answered). */
const CLAIM = `
for i = 2, #ARGV do
  local owner = redis.call('HGET', KEYS[1], ARGV[i])
  if owner and owner ~= ARGV[1] then return ARGV[i] end
end
for i = 2, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], ARGV[1]) end
return false
`

/** The next partner number, at least ARGV[1]. KEYS: the counter. */
const NEXT_NUMBER = `
local n = redis.call('INCR', KEYS[1])
local least = tonumber(ARGV[1])
if n < least then
  redis.call('SET', KEYS[1], least)
  n = least
end
return n
`

/** Removes the hash fields (ARGV[2..]) of KEYS[1] that still name ARGV[1]. */
const RELEASE = `
for i = 2, #ARGV do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0
`

export type SyncReply =
  | ['gone']
  | ['log', string, Entry[], string[], number, number]
  | ['snap', string, string, string | null, Entry[], string[], number, number]

export type Entry = [string, string[]]

declare module 'ioredis' {
  interface RedisCommander<Context> {
    sandboxSync: (head: string, log: string, snap: string, inc: string, lastSeen: string, ...changes: string[]) => Result<SyncReply, Context>
    sandboxCreate: (head: string, log: string, snap: string, inc: string, snapshot: string) => Result<number, Context>
    sandboxCompact: (head: string, log: string, snap: string, compacting: string, inc: string, at: string, snapshot: string) => Result<number, Context>
    sandboxClaim: (hash: string, owner: string, ...ids: string[]) => Result<string | null, Context>
    sandboxNextNumber: (counter: string, least: number) => Result<number, Context>
    sandboxRelease: (hash: string, owner: string, ...ids: string[]) => Result<number, Context>
  }
}

/** Makes the scripts commands of the client (sent by their SHA, loaded once per connection). */
export function defineScripts (client: RedisClient): void {
  client.defineCommand('sandboxSync', { numberOfKeys: 3, lua: SYNC })
  client.defineCommand('sandboxCreate', { numberOfKeys: 3, lua: CREATE })
  client.defineCommand('sandboxCompact', { numberOfKeys: 4, lua: COMPACT })
  client.defineCommand('sandboxClaim', { numberOfKeys: 1, lua: CLAIM })
  client.defineCommand('sandboxNextNumber', { numberOfKeys: 1, lua: NEXT_NUMBER })
  client.defineCommand('sandboxRelease', { numberOfKeys: 1, lua: RELEASE })
}
