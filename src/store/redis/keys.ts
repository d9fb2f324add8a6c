/*
 * Redis key names. A partner's keys carry its id as a Redis Cluster hash tag ({partner-a}), so that one
 * partner's keys share a slot: its scripts touch several of them at once, on one Redis or on a cluster.
 * The sandbox-wide keys (which partner owns a client id, a guarantee, a number) share the tag {sandbox}.
 * Every name starts with the prefix (SANDBOX_REDIS_PREFIX), so several sandboxes can share one Redis.
 */

export class RedisKeys {
  constructor (readonly prefix: string) {}

  private partnerKey (partnerId: string, name: string): string {
    return `${this.prefix}:{${partnerId}}:${name}`
  }

  /** A hash: incarnation, the log entry the snapshot holds, the oldest entry kept, sizes. */
  head (partnerId: string): string { return this.partnerKey(partnerId, 'head') }
  /** The partner's state as JSON, up to the head's snapAt. */
  snap (partnerId: string): string { return this.partnerKey(partnerId, 'snap') }
  /** A stream of the changes since (store/changes.ts), in the order every replica applies them. */
  log (partnerId: string): string { return this.partnerKey(partnerId, 'log') }
  /** Who is writing the partner's next snapshot (a lease). */
  compacting (partnerId: string): string { return this.partnerKey(partnerId, 'compacting') }
  /** Named snapshots: name -> the document, and name -> its info. */
  namedSnapshots (partnerId: string): string { return this.partnerKey(partnerId, 'snapshots') }
  namedSnapshotInfo (partnerId: string): string { return this.partnerKey(partnerId, 'snapshot-info') }
  /** The request journal (a capped stream). */
  journal (partnerId: string): string { return this.partnerKey(partnerId, 'journal') }
  /** A hash: the journal's last entry id (seq, kept when it is emptied) and the bytes it holds. */
  journalHead (partnerId: string): string { return this.partnerKey(partnerId, 'journal-head') }
  /** A list: the size of each entry of the journal, oldest first (trimming by bytes reads no entry). */
  journalSizes (partnerId: string): string { return this.partnerKey(partnerId, 'journal-sizes') }
  /** The guarantee ids the partner took in the sandbox-wide index (removed with it). */
  claims (partnerId: string): string { return this.partnerKey(partnerId, 'claims') }
  /** A list: the digests of the partner's requests not yet folded into its advisor state (store/redis/advisor.ts). */
  advisorDigests (partnerId: string): string { return this.partnerKey(partnerId, 'advisor-digests') }
  /** A hash: the advisor state (its folds' states as JSON) and its version (v, for compare-and-set). */
  advisorState (partnerId: string): string { return this.partnerKey(partnerId, 'advisor-state') }
  /** A hash: the partner's requests and the 5xx the sandbox did not inject, per hourly bucket, and its latest arrival (store/redis/activity.ts). */
  activity (partnerId: string): string { return this.partnerKey(partnerId, 'activity') }
  /** A counter of the partner's own (rate limits, lockouts). */
  counter (partnerId: string, name: string): string { return this.partnerKey(partnerId, `count:${name}`) }

  /** Every key of a partner, for its removal. */
  allOf (partnerId: string): string[] {
    return [this.head(partnerId), this.snap(partnerId), this.log(partnerId), this.compacting(partnerId), this.namedSnapshots(partnerId),
      this.namedSnapshotInfo(partnerId), this.journal(partnerId), this.journalHead(partnerId),
      this.journalSizes(partnerId), this.claims(partnerId), this.advisorDigests(partnerId), this.advisorState(partnerId), this.activity(partnerId)]
  }

  /** A console session (expires with it). */
  consoleSession (id: string): string { return `${this.prefix}:console:${id}` }
  /** An operator's console session (expires with it): never read as a partner's. */
  operatorSession (id: string): string { return `${this.prefix}:operator-console:${id}` }
  /** A sorted set: the ids of a partner's (or the operator's) console sessions by expiry, to cap and end them. */
  consoleSessionList (partnerId: string, kind: 'partner' | 'operator'): string { return this.partnerKey(partnerId, kind === 'partner' ? 'console-sessions' : 'operator-sessions') }
  /** The pepper of client secret hashes, when no option gives it (store/credential-keys.ts). */
  get secretPepper (): string { return `${this.prefix}:secret-pepper` }

  /** A counter of a client address (token requests without a verified client, rate limits without a token). */
  addressCounter (address: string, name: string): string { return `${this.prefix}:{address:${address}}:count:${name}` }

  /** An entry of the identity provider (oidc-provider's models: codes, refresh tokens, sessions, grants...). */
  oidc (model: string, id: string): string { return `${this.prefix}:oidc:${model}:{${id}}` }
  /** The entry key that a uid or a user code names (the provider finds sessions and interactions by these). */
  oidcLookup (kind: 'uid' | 'userCode', value: string): string { return `${this.prefix}:oidc:${kind}:{${value}}` }
  /** The keys of a grant's entries, and its JWT access tokens (jti -> partner and expiry): one tag, taken at once when the grant ends. */
  oidcGrant (grantId: string): string { return `${this.prefix}:oidc:{grant:${grantId}}:entries` }
  oidcIssued (grantId: string): string { return `${this.prefix}:oidc:{grant:${grantId}}:issued` }

  private global (name: string): string { return `${this.prefix}:{sandbox}:${name}` }

  /** partner id -> its number, for every partner. */
  get partners (): string { return this.global('partners') }
  /** partner id -> its card as JSON (name, registered): the operator's overview names partners without loading them. */
  get cards (): string { return this.global('cards') }
  /** client id (partners' and their public clients') -> partner id. */
  get clients (): string { return this.global('clients') }
  /** hand-picked guarantee id -> partner id (an assigned one names its partner by its number). */
  get guarantees (): string { return this.global('guarantees') }
  /** partner number -> partner id. */
  get numbers (): string { return this.global('numbers') }
  /** The last partner number given out. */
  get lastNumber (): string { return this.global('last-number') }
}
