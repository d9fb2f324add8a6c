import type { Adapter, AdapterPayload } from 'oidc-provider'

interface Entry {
  payload: AdapterPayload
  expiresAt: number
}

export interface AdapterHooks {
  /** The OAuth client metadata of a partner, or undefined. */
  client: (clientId: string) => Promise<AdapterPayload | undefined>
  /** Called for each access token that a grant revocation takes with it. */
  onAccessTokenRevoked: (jti: string, exp: number) => void
}

const SWEEP_MS = 60_000

/**
 * The provider's storage: clients come from the sandbox's partners (so a registered partner can get
 * tokens at once); grants, codes, sessions and tokens live in memory until they expire. A restart
 * ends sessions and refresh tokens; access tokens keep verifying (the signing key persists).
 */
export function createAdapterFactory (hooks: AdapterHooks): { factory: (name: string) => Adapter, close: () => void, accessTokenIssued: (grantId: string, jti: string, exp: number) => void } {
  const models = new Map<string, Map<string, Entry>>()
  // JWT access tokens are never stored (they verify by signature): their ids are kept per grant so
  // that ending a grant (refresh token revoked, code replayed) also revokes them
  const issued = new Map<string, Map<string, number>>()
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
    for (const [grantId, jtis] of issued) {
      for (const [jti, exp] of jtis) if (exp * 1000 <= now) jtis.delete(jti)
      if (jtis.size === 0) issued.delete(grantId)
    }
  }, SWEEP_MS)
  sweep.unref()

  function factory (name: string): Adapter {
    if (name === 'Client') {
      return {
        find: async (id: string) => hooks.client(id),
        upsert: async () => {},
        findByUid: async () => undefined,
        findByUserCode: async () => undefined,
        consume: async () => {},
        destroy: async () => {},
        revokeByGrantId: async () => {}
      }
    }
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
        for (const [jti, exp] of issued.get(grantId) ?? []) hooks.onAccessTokenRevoked(jti, exp)
        issued.delete(grantId)
        for (const [modelName, entries] of models) {
          for (const [id, e] of entries) {
            if (e.payload.grantId !== grantId) continue
            if (modelName === 'AccessToken') hooks.onAccessTokenRevoked(id, Number(e.payload.exp))
            entries.delete(id)
          }
        }
      }
    }
  }
  const accessTokenIssued = (grantId: string, jti: string, exp: number): void => {
    let jtis = issued.get(grantId)
    if (jtis === undefined) issued.set(grantId, jtis = new Map())
    jtis.set(jti, exp)
  }
  return { factory, close: () => clearInterval(sweep), accessTokenIssued }
}
