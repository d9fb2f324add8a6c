import { randomBytes } from 'node:crypto'
import { SandboxError } from '../../errors.js'
import type { Partner } from '../partner.js'
import type { Guarantee, PartnerSnapshot } from '../records.js'
import { NO_METRICS, type Metrics } from '../../instruments/recorder.js'
import { cardOf, type Change, type PartnerCard, type StateBackend, type World } from '../world.js'
import { NO_GUARD, asStoreError, type RedisClient, type WriteGuard } from './connection.js'
import type { RedisKeys } from './keys.js'
import { PartnerReplica } from './replica.js'
import { NO_SPANS, type Spans } from '../../instruments/spans.js'

/*
 * The partners' state shared by replicas through Redis (SANDBOX_REDIS_URL; design.md "Many replicas, one
 * sandbox"). Per partner a snapshot and a log of the changes since (store/changes.ts); every replica holds
 * the partners it serves in its World and applies the log's changes in the log's order before it answers
 * (replica.ts). A read costs one round trip, shared by the requests of one turn; a write the same round trip.
 * The sandbox-wide indexes (which partner owns a client id, a number, a hand-picked guarantee id) are
 * hashes of their own.
 */

// A new snapshot is written once the log holds more than the snapshot and more than this: small partners do
// not rewrite theirs every few writes (a default partner's snapshot is about 100-300 KB), a replica that
// starts reads at most about twice the snapshot, and an idle partner keeps at most this much log in Redis.
const COMPACT_BYTES = 256 * 1024
// How long a replica may take to write a snapshot before another may try (a replica that dies meanwhile).
const COMPACT_LEASE_MS = 60_000

/** The partner number an assigned guarantee id starts with (store/guarantees.ts guaranteeIdOf). */
function numberOfGuarantee (id: string): string | undefined {
  return /^[1-9][0-9]*$/.test(id) && id.length > 9 ? id.slice(0, -9) : undefined
}

/** A partner's card as the cards hash keeps it (its id is the field). */
const cardText = (p: { name: string, registered: boolean }): Omit<PartnerCard, 'id'> => ({ name: p.name, registered: p.registered })

export class RedisBackend implements StateBackend {
  private readonly replicas = new Map<string, PartnerReplica>()
  private readonly compacting = new Set<string>()
  private readonly replicaId = randomBytes(8).toString('hex')

  constructor (
    readonly client: RedisClient,
    readonly keys: RedisKeys,
    private readonly log: { error: (obj: object, msg: string) => void, debug: (obj: object, msg: string) => void },
    private readonly metrics: Metrics = NO_METRICS,
    private readonly spans: Spans = NO_SPANS,
    /** Refuses a write while Redis is nearly full (memory-guard.ts); deleting is always let through. */
    private readonly guard: WriteGuard = NO_GUARD
  ) {}

  partnersHeld (): number {
    return this.replicas.size
  }

  private replica (world: World, partnerId: string): PartnerReplica {
    let r = this.replicas.get(partnerId)
    if (r === undefined) {
      r = new PartnerReplica(partnerId, world, {
        client: this.client,
        keys: this.keys,
        metrics: this.metrics,
        spans: this.spans,
        grown: (replica, logBytes, snapBytes) => this.grown(replica, logBytes, snapBytes),
        report: (message, err) => this.log.debug({ err }, message),
        gone: (replica) => { if (this.replicas.get(replica.partnerId) === replica) this.replicas.delete(replica.partnerId) }
      })
      this.replicas.set(partnerId, r)
    }
    return r
  }

  async sync (world: World, partnerId: string): Promise<void> {
    await this.replica(world, partnerId).round()
  }

  async perform (world: World, change: Change): Promise<unknown> {
    this.guard.check()
    return await this.replica(world, change.partnerId).round(change)
  }

  async putPartner (world: World, snapshot: PartnerSnapshot, mode: 'new' | 'if-absent'): Promise<Partner> {
    const id = snapshot.id
    const clients = [id, ...(snapshot.publicClients ?? []).map((c) => c.clientId)]
    this.guard.check()
    try {
      const taken = await this.client.sandboxClaim(this.keys.clients, id, ...clients)
      if (taken !== null) throw new SandboxError('SANDBOX_ERR_CONFLICT', `Client id ${taken} is taken`)
      await this.claimGuarantees(world, id, snapshot.guarantees.map((g) => g.guaranteeId))
      const created = await this.client.sandboxCreate(this.keys.head(id), this.keys.log(id), this.keys.snap(id), randomBytes(8).toString('hex'), JSON.stringify(snapshot))
      if (created === 0 && mode === 'new') throw new SandboxError('SANDBOX_ERR_CONFLICT', `Client id ${id} is taken`)
      await this.client.multi().hset(this.keys.partners, id, String(snapshot.number)).hset(this.keys.numbers, String(snapshot.number), id)
        .hset(this.keys.cards, id, JSON.stringify(cardText(snapshot))).exec()
    } catch (err) {
      throw asStoreError(err)
    }
    await this.sync(world, id)
    const partner = world.partner(id)
    if (partner === undefined) throw new SandboxError('SANDBOX_ERR_CONFLICT', `Partner ${id} was removed meanwhile`)
    return partner
  }

  async removePartner (world: World, partnerId: string): Promise<void> {
    try {
      const claimed = await this.client.smembers(this.keys.claims(partnerId))
      await this.client.del(...this.keys.allOf(partnerId))
      const number = world.partner(partnerId)?.number ?? await this.client.hget(this.keys.partners, partnerId)
      await this.client.sandboxRelease(this.keys.clients, partnerId, ...await this.clientsOf(partnerId))
      if (claimed.length > 0) await this.client.sandboxRelease(this.keys.guarantees, partnerId, ...claimed)
      if (number !== null && number !== undefined) await this.client.sandboxRelease(this.keys.numbers, partnerId, String(number))
      await this.client.multi().hdel(this.keys.cards, partnerId).hdel(this.keys.partners, partnerId).exec()
    } catch (err) {
      throw asStoreError(err)
    }
    this.replicas.get(partnerId)?.forget()
    this.replicas.delete(partnerId)
  }

  /** The client ids a partner holds in the index (its own and its public clients'). */
  private async clientsOf (partnerId: string): Promise<string[]> {
    const out: string[] = []
    const all = await this.client.hgetall(this.keys.clients)
    for (const [clientId, owner] of Object.entries(all)) if (owner === partnerId) out.push(clientId)
    return out
  }

  async partnerIds (): Promise<string[]> {
    try {
      return (await this.client.hkeys(this.keys.partners)).sort()
    } catch (err) {
      throw asStoreError(err)
    }
  }

  async partnerCards (world: World): Promise<PartnerCard[]> {
    let ids: string[]
    let cards: Record<string, string>
    try {
      // (one pipeline: both in the sandbox-wide slot)
      [ids, cards] = await Promise.all([this.client.hkeys(this.keys.partners), this.client.hgetall(this.keys.cards)])
      ids.sort()
    } catch (err) {
      throw asStoreError(err)
    }
    const out: PartnerCard[] = []
    for (const id of ids) {
      const card = cards[id]
      if (card !== undefined) {
        out.push({ id, ...JSON.parse(card) as Omit<PartnerCard, 'id'> })
        continue
      }
      // a partner made by a version without cards: read once, and its card written for the next time
      await this.sync(world, id)
      const partner = world.partner(id)
      if (partner === undefined) continue
      out.push(cardOf(partner))
      await this.client.hset(this.keys.cards, id, JSON.stringify(cardText(partner))).catch(() => {})
    }
    return out
  }

  async findClient (world: World, clientId: string): Promise<string | undefined> {
    let owner: string | null
    try {
      owner = await this.client.hget(this.keys.clients, clientId)
    } catch (err) {
      throw asStoreError(err)
    }
    if (owner === null) return undefined
    await this.sync(world, owner)
    return world.partner(owner) === undefined ? undefined : owner
  }

  async findGuarantee (world: World, guaranteeId: string): Promise<Guarantee | undefined> {
    let owner: string | null
    try {
      owner = await this.client.hget(this.keys.guarantees, guaranteeId)
      const number = owner === null ? numberOfGuarantee(guaranteeId) : undefined
      if (number !== undefined) owner = await this.client.hget(this.keys.numbers, number)
    } catch (err) {
      throw asStoreError(err)
    }
    if (owner === null) return undefined
    await this.sync(world, owner)
    return world.partner(owner)?.guarantees.get(guaranteeId)
  }

  async claimGuarantees (_world: World, partnerId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return
    let taken: string | null
    try {
      taken = await this.client.sandboxClaim(this.keys.guarantees, partnerId, ...ids)
      if (taken === null) await this.client.sadd(this.keys.claims(partnerId), ...ids)
    } catch (err) {
      throw asStoreError(err)
    }
    if (taken !== null) throw new SandboxError('SANDBOX_ERR_CONFLICT', `Guarantee ${taken} belongs to another partner`)
  }

  async nextPartnerNumber (_world: World, least: number): Promise<number> {
    try {
      return await this.client.sandboxNextNumber(this.keys.lastNumber, least)
    } catch (err) {
      throw asStoreError(err)
    }
  }

  /**
   * After a round: once the log holds more than the snapshot (and COMPACT_BYTES), this replica writes a new
   * snapshot from the state it holds now, if no other replica is writing one (a lease in Redis).
   */
  private grown (replica: PartnerReplica, logBytes: number, snapBytes: number): void {
    const id = replica.partnerId
    if (logBytes <= Math.max(snapBytes, COMPACT_BYTES) || this.compacting.has(id)) return
    this.compacting.add(id)
    this.compact(replica).catch((err: unknown) => {
      this.log.error({ err, partner: id }, 'could not write a snapshot of the partner to Redis; its log grows until a later try succeeds')
    }).finally(() => this.compacting.delete(id))
  }

  private async compact (replica: PartnerReplica): Promise<void> {
    const id = replica.partnerId
    const lease = await this.client.set(this.keys.compacting(id), this.replicaId, 'PX', COMPACT_LEASE_MS, 'NX')
    if (lease === null) return
    const partner = replica.world.partner(id)
    if (partner === undefined) return
    // the state exactly at lastSeen: serialised in this turn, before any other change applies
    const at = replica.lastSeen
    const inc = replica.inc
    const json = JSON.stringify(partner.snapshot())
    await this.client.sandboxCompact(this.keys.head(id), this.keys.log(id), this.keys.snap(id), this.keys.compacting(id), inc, at, json)
  }

  async close (): Promise<void> {
    // the connections are the store plugin's (journal, counters and identity provider use them too)
  }
}
