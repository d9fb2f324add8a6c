import { hash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AccessClaims } from '../auth/verify.js'
import type { Recorded } from '../store/journal.js'

/*
 * The observer hook of the request journal (issue 29): plugins/journal.ts hands every entry it files, with the
 * context the entry alone does not keep, to each observer app.ts gave it. The integration advisor is one
 * (advisor/index.ts: each observation becomes a Digest, folded into the partner's state); the go-live
 * readiness checklist plugs in beside it. Observers run on the hot path, after the answer: they must be
 * cheap, synchronous and never throw.
 */

/** A request as journaled, with what an observer needs to judge the client that sent it. */
export interface Observation {
  /** The partner whose journal holds the entry. */
  partnerId: string
  /**
   * The entry as filed (read it, never change it). Its id is the store's and may not be known here (with
   * Redis the script gives it): name a request by entry.requestId, which the journal's lookup accepts too.
   */
  entry: Recorded
  /** When the answer was handed over (epoch ms): the earliest the client could act on it. */
  answeredAt: number
  /** The verified access token the request carried; null at the token endpoint and for a refused token. */
  token: AccessClaims | null
  /**
   * A token of this sandbox refused with 401 invalid_token (expired, revoked, expired by the partner's
   * control): a digest of it, the same for the same token (the token itself is never kept); else null.
   */
  refusedToken: string | null
  /** A create (createCustomer, createAccount, createBeneficiary, createMessage). */
  create: boolean
  /** The operation ran and answered 2xx, whatever the client got (an `after` fault replaces or drops that answer): for a create, its record was made. */
  succeeded: boolean
  /** An `after` fault replaced, delayed or dropped the operation's answer. */
  afterFault: boolean
  /** The answer's Retry-After in milliseconds (seconds or an HTTP date), else null. */
  retryAfterMs: number | null
  /** The answer carried Deprecation: a deprecated API version was called. */
  deprecated: boolean
  /** The answer's X-Sandbox-Error (the error catalogue's code), else null. */
  errorCode: string | null
}

export type Observer = (observation: Observation) => void

declare module 'fastify' {
  interface FastifyRequest {
    /** The status the operation answered before an `after` fault replaced it (plugins/faults.ts); 0 when none did. */
    operationStatus: number
  }
}

/** The creating operations, as the router names their routes (POST). */
const CREATE_ROUTES = new Set(['/api/customers', '/api/accounts', '/api/customers/:customerId/beneficiaries', '/api/customers/:customerId/messages'])

const header = (reply: FastifyReply, name: string): string | undefined => {
  const v = reply.getHeader(name)
  return v === undefined ? undefined : String(v)
}

function retryAfterMs (value: string | undefined, now: number): number | null {
  if (value === undefined) return null
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/** Same token, same digest; the token cannot be had back from it. */
const tokenDigest = (token: string): string => hash('sha256', token, 'base64url').slice(0, 22)

/**
 * When the answer was handed over, taken 1 ms early (never before the arrival): arrival times are Date.now()'s
 * whole milliseconds less a finer elapsed time, so two requests' times can be up to 1 ms off, and a request
 * sent just after an answer (a resend, a token request after a 401) must count as after it.
 */
function answeredAt (entry: Recorded, answeredMs: number): number {
  return entry.at + Math.max(0, (answeredMs >= 0 ? answeredMs : entry.durationMs) - 1)
}

/** What the journal plugin knows of a request it just filed, for the observers. */
export function observationOf (partnerId: string, entry: Recorded, request: FastifyRequest, reply: FastifyReply): Observation {
  const { status } = entry
  const errorCode = status >= 400 ? header(reply, 'x-sandbox-error') ?? null : null
  const bearer = status === 401 && errorCode === 'SANDBOX_ERR_TOKEN_INVALID' ? /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] : undefined
  const afterFault = request.operationStatus !== 0
  const operationStatus = afterFault ? request.operationStatus : status
  return {
    partnerId,
    entry,
    answeredAt: answeredAt(entry, request.answeredMs),
    token: request.token ?? null,
    refusedToken: bearer === undefined ? null : tokenDigest(bearer),
    create: entry.method === 'POST' && entry.route !== null && CREATE_ROUTES.has(entry.route),
    succeeded: operationStatus >= 200 && operationStatus < 300,
    afterFault,
    retryAfterMs: status === 429 || status === 503 ? retryAfterMs(header(reply, 'retry-after'), entry.at + entry.durationMs) : null,
    deprecated: reply.hasHeader('deprecation'),
    errorCode
  }
}
