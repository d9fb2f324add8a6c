import { randomBytes } from 'node:crypto'
import type { FastifyRequest } from 'fastify'

/*
 * The partner console's sign-ins (routes/console.ts): a random id per session, naming a partner, with the
 * CSRF value its page sends back. Kept in this process, or in Redis (store/redis/console-sessions.ts). The
 * operator's console (routes/operator-console.ts) keeps its sign-ins apart: a store and a cookie of their own.
 */

export const SESSION_COOKIE = 'sandbox_console'
export const OPERATOR_COOKIE = 'sandbox_operator'
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000
/**
 * The live sessions a partner (or the operator) may have: a sign-in past it ends that partner's oldest one,
 * never another partner's (issue 50: one partner must not sign everyone out). A team signs in from a few
 * browsers; what is kept is bounded by the number of partners, which only the operator makes.
 */
export const MAX_SESSIONS_PER_PARTNER = 50

export interface Session {
  /** The partner it stands for; an operator's session: the fingerprint of the operator token it was opened with. */
  partnerId: string
  csrf: string
  expires: number
}

/** Where console sessions are kept: in this process, or in Redis so that every replica knows them. */
export interface ConsoleSessionStore {
  /** Keeps a new session, ending the partner's oldest past MAX_SESSIONS_PER_PARTNER. */
  put: (id: string, session: Session) => void | Promise<void>
  get: (id: string) => Session | undefined | Promise<Session | undefined>
  end: (id: string) => void | Promise<void>
  /** Ends every session of the partner (its secret rotated, it was suspended or deleted, its tokens expired). */
  endAll: (partnerId: string) => void | Promise<void>
}

export class MemoryConsoleSessions implements ConsoleSessionStore {
  private readonly sessions = new Map<string, Session>()
  /** Each partner's session ids, oldest first. */
  private readonly byPartner = new Map<string, Set<string>>()

  constructor (private readonly maxPerPartner = MAX_SESSIONS_PER_PARTNER) {}

  put (id: string, session: Session): void {
    let ids = this.byPartner.get(session.partnerId)
    if (ids === undefined) this.byPartner.set(session.partnerId, ids = new Set())
    const now = Date.now()
    for (const old of ids) if ((this.sessions.get(old)?.expires ?? 0) <= now) this.end(old)
    while (ids.size >= this.maxPerPartner) this.end(ids.values().next().value!)
    this.sessions.set(id, session)
    ids.add(id)
    this.byPartner.set(session.partnerId, ids)
  }

  get (id: string): Session | undefined {
    const session = this.sessions.get(id)
    if (session !== undefined && session.expires <= Date.now()) {
      this.end(id)
      return undefined
    }
    return session
  }

  end (id: string): void {
    const session = this.sessions.get(id)
    if (session === undefined) return
    this.sessions.delete(id)
    const ids = this.byPartner.get(session.partnerId)
    ids?.delete(id)
    if (ids?.size === 0) this.byPartner.delete(session.partnerId)
  }

  endAll (partnerId: string): void {
    for (const id of this.byPartner.get(partnerId) ?? []) this.sessions.delete(id)
    this.byPartner.delete(partnerId)
  }
}

/** Console sign-ins: a random id per session, kept in a store (ConsoleSessionStore), sent in a cookie of this name. */
export class ConsoleSessions {
  private readonly pattern: RegExp

  constructor (private readonly store: ConsoleSessionStore = new MemoryConsoleSessions(), readonly cookie = SESSION_COOKIE) {
    this.pattern = new RegExp(`(?:^|;\\s*)${cookie}=([A-Za-z0-9_-]{43})(?:;|$)`)
  }

  async create (partnerId: string): Promise<{ id: string, session: Session }> {
    const id = randomBytes(32).toString('base64url')
    const session = { partnerId, csrf: randomBytes(24).toString('base64url'), expires: Date.now() + SESSION_TTL_MS }
    await this.store.put(id, session)
    return { id, session }
  }

  /** The live session of a request's cookie, if any. */
  of (request: FastifyRequest): { id: string, session: Session } | undefined | Promise<{ id: string, session: Session } | undefined> {
    const cookie = request.headers.cookie
    if (cookie === undefined) return undefined
    const m = this.pattern.exec(cookie)
    if (m === null) return undefined
    const id = m[1]
    const found = (session: Session | undefined) => session === undefined || session.expires <= Date.now() ? undefined : { id, session }
    const session = this.store.get(id)
    return session instanceof Promise ? session.then(found) : found(session)
  }

  async end (id: string): Promise<void> {
    await this.store.end(id)
  }

  /** Signs the partner out of every console it is signed in to. */
  async endAll (partnerId: string): Promise<void> {
    await this.store.endAll(partnerId)
  }
}
