import type { Side } from './context.js'
import { mutate, validBody } from './data.js'
import type { Exchange, Probe, SentRequest } from './types.js'

/*
 * Sends one probe to one side: fills its {placeholders} from the side's own context, authenticates as the
 * probe says, and builds its body. A probe whose needs the side lacks is skipped on that side, with the reason.
 */

export const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

const PLACEHOLDER = /\{([\w.-]+)\}/g

/** A template with each {name} replaced from vars, or the first missing name. */
function fill (template: string, vars: Record<string, string>): { value: string, missing?: string } {
  let missing: string | undefined
  const value = template.replace(PLACEHOLDER, (_, name: string) => {
    const v = vars[name]
    if (v === undefined) missing ??= name
    return encodeURIComponent(v ?? '')
  })
  return { value, missing }
}

function authorization (probe: Probe, side: Side): string | undefined {
  switch (probe.auth ?? 'client') {
    case 'client': return `Bearer ${side.token}`
    case 'user': return `Bearer ${side.userToken ?? side.token}`
    case 'garbage': return 'Bearer parity-not-a-jwt'
    case 'tampered': return `Bearer ${side.tamperedToken}`
    case 'none': return undefined
  }
}

function tokenRequest (probe: Probe, side: Side): SentRequest {
  const s = side.settings
  const vars: Record<string, string> = { clientId: s.clientId, clientSecret: s.clientSecret, username: s.user?.username ?? '', password: s.user?.password ?? '' }
  const headers: Record<string, string> = { accept: 'application/json' }
  if (probe.basic === 'right') headers.authorization = side.basic(s.clientId, s.clientSecret)
  if (probe.basic === 'wrong-secret') headers.authorization = side.basic(s.clientId, `${s.clientSecret}-wrong`)
  if (probe.basic === 'unknown-client') headers.authorization = side.basic('parity-no-such-client', 'parity-no-such-secret')
  if (probe.method === 'GET') return { method: 'GET', url: s.tokenUrl, headers }
  const form = Object.fromEntries(Object.entries(probe.form ?? {}).map(([k, v]) => [k, v.replace(PLACEHOLDER, (_, n: string) => vars[n] ?? '')]))
  headers['content-type'] = 'application/x-www-form-urlencoded'
  return { method: 'POST', url: s.tokenUrl, headers, body: new URLSearchParams(form).toString() }
}

/** The request a probe makes of a side, or why it cannot be made there. */
export function requestOf (probe: Probe, side: Side): SentRequest | { skipped: string } {
  const missing = (probe.needs ?? []).find((n) => side.vars[n] === undefined)
  if (missing !== undefined) return { skipped: `no ${missing} on the ${side.name}` }
  if (probe.path === 'token') return tokenRequest(probe, side)
  const path = fill(probe.path, side.vars)
  const query = new URLSearchParams()
  for (const [k, v] of Object.entries(probe.query ?? {})) {
    const filled = fill(v, side.vars)
    if (filled.missing !== undefined) return { skipped: `no ${filled.missing} on the ${side.name}` }
    query.set(k, decodeURIComponent(filled.value))
  }
  if (path.missing !== undefined) return { skipped: `no ${path.missing} on the ${side.name}` }
  const headers: Record<string, string> = { accept: 'application/json' }
  const auth = authorization(probe, side)
  if (auth !== undefined) headers.authorization = auth
  if ((probe.agent ?? 'own') !== 'none') headers['agent-id'] = probe.agent === 'other' ? side.settings.otherAgentId : side.settings.agentId
  let body: string | undefined
  if (probe.raw !== undefined) {
    headers['content-type'] = probe.raw.contentType
    body = probe.raw.text
  } else if (probe.body !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(mutate(validBody(probe.body, side.vars), probe.mutations ?? []))
  }
  const search = query.toString()
  return { method: probe.method, url: `${side.settings.baseUrl}${path.value}${search === '' ? '' : `?${search}`}`, headers, body }
}

export async function runProbe (probe: Probe, side: Side): Promise<Exchange | { skipped: string }> {
  const request = requestOf(probe, side)
  if ('skipped' in request) return request
  const exchange = await side.traffic.send(probe.id, request)
  if (probe.path === 'token') side.keepTokens(exchange.answer?.json as Record<string, unknown> | undefined)
  return exchange
}
