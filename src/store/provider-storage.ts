import type { Adapter, AdapterPayload } from 'oidc-provider'
import type { RevokedToken } from './tokens.js'

/*
 * The identity provider's (oidc-provider's) storage, one interface with two backends like the rest of the
 * store: in this process (createAdapterFactory below) or in Redis with replicas (store/redis/oidc-adapter.ts).
 * The provider itself is wired in auth/provider.ts.
 */

export interface AdapterHooks {
  /** The OAuth client metadata of a partner, or undefined. */
  client: (clientId: string) => Promise<AdapterPayload | undefined>
  /** Revokes access tokens of a partner that a grant's end takes with it (once it resolves, every replica refuses them). */
  revokeAccessTokens: (partnerId: string, tokens: RevokedToken[]) => Promise<void>
}

/** A JWT access token issued from a grant: whose it is (the partner) and until when it is valid. */
export interface IssuedToken extends RevokedToken { partnerId: string }

/**
 * Where the identity provider keeps its state: the adapter factory oidc-provider takes (Client derived
 * from the partners, the other models stored), and the JWT access tokens of each grant.
 */
export interface ProviderStorage {
  factory: (name: string) => Adapter
  /**
   * A JWT access token issued from a grant. Such tokens are never stored (they verify by signature): their
   * ids are kept with the grant, so that ending the grant (refresh token revoked, code replayed) revokes them.
   */
  accessTokenIssued: (grantId: string, token: IssuedToken) => void | Promise<void>
  close: () => void
}

/** Makes the provider's storage (memory here, Redis in store/redis/oidc-adapter.ts): chosen where the app is wired. */
export type ProviderStorageFactory = (hooks: AdapterHooks) => ProviderStorage

interface Entry {
  payload: AdapterPayload
  expiresAt: number
}

const SWEEP_MS = 60_000

/** The adapter of the Client model: clients are the sandbox's partners (a registered partner can get tokens at once). */
export function clientAdapter (hooks: AdapterHooks): Adapter {
  return {
    find: async (id: string) => await hooks.client(id),
    upsert: async () => {},
    findByUid: async () => undefined,
    findByUserCode: async () => undefined,
    consume: async () => {},
    destroy: async () => {},
    revokeByGrantId: async () => {}
  }
}

/** The access tokens of a grant, revoked by partner (a grant has one client, so one partner). */
export async function revokeIssued (hooks: AdapterHooks, tokens: Iterable<IssuedToken>): Promise<void> {
  const byPartner = new Map<string, RevokedToken[]>()
  for (const { partnerId, jti, exp } of tokens) {
    let list = byPartner.get(partnerId)
    if (list === undefined) byPartner.set(partnerId, list = [])
    list.push({ jti, exp })
  }
  for (const [partnerId, list] of byPartner) await hooks.revokeAccessTokens(partnerId, list)
}

/**
 * The provider's storage in this process: clients come from the sandbox's partners; grants, codes, sessions
 * and tokens live in memory until they expire. A restart ends sessions and refresh tokens; access tokens
 * keep verifying (the signing key persists), and stay revoked (their partner keeps the revocation).
 */
export function createAdapterFactory (hooks: AdapterHooks): ProviderStorage {
  const models = new Map<string, Map<string, Entry>>()
  const issued = new Map<string, Map<string, IssuedToken>>()
  const store = (name: string): Map<string, Entry> => {
    let m = models.get(name)
    if (m === undefined) models.set(name, m = new Map())
    return m
  }
  const live = (e: Entry | undefined): AdapterPayload | undefined =>
    e !== undefined && e.expiresAt > Date.now() ? e.payload : undefined

  const sweep = setInterval(() => {
    const now = Date.now()
    for (const m of models.values()) for (const [id, e] of m) if (e.expiresAt <= now) m.delete(id)
    for (const [grantId, tokens] of issued) {
      for (const [jti, t] of tokens) if (t.exp * 1000 <= now) tokens.delete(jti)
      if (tokens.size === 0) issued.delete(grantId)
    }
  }, SWEEP_MS)
  sweep.unref()

  function factory (name: string): Adapter {
    if (name === 'Client') return clientAdapter(hooks)
    const m = store(name)
    return {
      async upsert (id, payload, expiresIn) {
        m.set(id, { payload, expiresAt: expiresIn === undefined ? Number.MAX_SAFE_INTEGER : Date.now() + expiresIn * 1000 })
      },
      async find (id) {
        return live(m.get(id))
      },
      async findByUid (uid) {
        for (const e of m.values()) if (e.payload.uid === uid) return live(e)
        return undefined
      },
      async findByUserCode (userCode) {
        for (const e of m.values()) if (e.payload.userCode === userCode) return live(e)
        return undefined
      },
      async consume (id) {
        const e = m.get(id)
        if (e !== undefined) e.payload.consumed = Math.floor(Date.now() / 1000)
      },
      async destroy (id) {
        m.delete(id)
      },
      async revokeByGrantId (grantId) {
        const tokens = issued.get(grantId)
        issued.delete(grantId)
        for (const entries of models.values()) {
          for (const [id, e] of entries) if (e.payload.grantId === grantId) entries.delete(id)
        }
        if (tokens !== undefined) await revokeIssued(hooks, tokens.values())
      }
    }
  }
  const accessTokenIssued = (grantId: string, token: IssuedToken): void => {
    let tokens = issued.get(grantId)
    if (tokens === undefined) issued.set(grantId, tokens = new Map())
    tokens.set(token.jti, token)
  }
  return { factory, close: () => clearInterval(sweep), accessTokenIssued }
}
