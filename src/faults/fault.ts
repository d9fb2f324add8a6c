/*
 * The fault grammar of the Sandbox-Fault header, of fault rules and of magic values: a comma-separated
 * list of status=<400-599>, latency=<0-60000>, reset, timeout and after. One parser for all three, so a
 * fault means the same wherever it comes from.
 */

export interface Fault {
  /** Run the operation first, then apply the rest. */
  after: boolean
  status?: number
  latencyMs?: number
  /** Close the connection without an answer. */
  reset: boolean
  /** Never answer: hold the connection until the client gives up (bounded by the server). */
  timeout: boolean
}

export const MAX_LATENCY_MS = 60_000

/** A fault that cannot be parsed, with what is wrong with it (it becomes a 400 naming the header or field). */
export class FaultSyntaxError extends Error {}

function integer (key: string, value: string, min: number, max: number): number {
  if (!/^[0-9]{1,6}$/.test(value)) throw new FaultSyntaxError(`${key} must be an integer from ${min} to ${max}, got '${value}'`)
  const n = Number(value)
  if (n < min || n > max) throw new FaultSyntaxError(`${key} must be from ${min} to ${max}, got ${n}`)
  return n
}

/** Parses a fault; throws FaultSyntaxError saying what is wrong. Keys are case-insensitive, spaces ignored. */
export function parseFault (text: string): Fault {
  const fault: Fault = { after: false, reset: false, timeout: false }
  const seen = new Set<string>()
  if (text.trim() === '') throw new FaultSyntaxError('is empty; expected e.g. status=503 or latency=2000 or after, status=502')
  for (const raw of text.split(',')) {
    const item = raw.trim()
    const eq = item.indexOf('=')
    const key = (eq === -1 ? item : item.slice(0, eq)).trim().toLowerCase()
    const value = eq === -1 ? undefined : item.slice(eq + 1).trim()
    if (key === '') throw new FaultSyntaxError('has an empty item (two commas, or a comma at an end)')
    if (seen.has(key)) throw new FaultSyntaxError(`names ${key} twice`)
    seen.add(key)
    const flag = (): true => {
      if (value !== undefined) throw new FaultSyntaxError(`${key} takes no value`)
      return true
    }
    const needed = (): string => {
      if (value === undefined || value === '') throw new FaultSyntaxError(`${key} needs a value (${key}=...)`)
      return value
    }
    switch (key) {
      case 'status': fault.status = integer('status', needed(), 400, 599); break
      case 'latency': fault.latencyMs = integer('latency', needed(), 0, MAX_LATENCY_MS); break
      case 'reset': fault.reset = flag(); break
      case 'timeout': fault.timeout = flag(); break
      case 'after': fault.after = flag(); break
      default: throw new FaultSyntaxError(`has an unknown item '${item.slice(0, 40)}'; expected status=<400-599>, latency=<ms>, reset, timeout or after`)
    }
  }
  const endings = [fault.status !== undefined && 'status', fault.reset && 'reset', fault.timeout && 'timeout'].filter(Boolean)
  if (endings.length > 1) throw new FaultSyntaxError(`combines ${endings.join(' and ')}; a request can end in only one of status, reset and timeout`)
  if (fault.after && endings.length === 0 && fault.latencyMs === undefined) {
    throw new FaultSyntaxError('has after with nothing to apply after the operation; add status, latency, reset or timeout')
  }
  return fault
}

const RETRY_AFTER_SECONDS = '5'

/** The headers an injected error status carries beside Sandbox-Fault-Applied, as a real one of that status would. */
export function injectedErrorHeaders (status: number): Record<string, string> {
  if (status === 429 || status === 503) return { 'retry-after': RETRY_AFTER_SECONDS }
  if (status === 401) return { 'www-authenticate': 'Bearer realm="sandbox"' }
  return {}
}

/** The canonical text of a fault (the form Sandbox-Fault-Applied and the rules list show). */
export function formatFault (f: Fault): string {
  const parts: string[] = []
  if (f.after) parts.push('after')
  if (f.latencyMs !== undefined) parts.push(`latency=${f.latencyMs}`)
  if (f.status !== undefined) parts.push(`status=${f.status}`)
  if (f.reset) parts.push('reset')
  if (f.timeout) parts.push('timeout')
  return parts.join(', ')
}

/**
 * Prism's convention, Prefer: code=<status> (RFC 7240 preferences, comma or semicolon separated). Other
 * preferences are ignored, as RFC 7240 asks; code=2xx asks for the operation's own answer (no fault).
 * Returns undefined when the header asks for no fault.
 */
export function faultFromPrefer (prefer: string): Fault | undefined {
  for (const part of prefer.split(/[,;]/)) {
    const m = /^\s*code\s*=\s*"?([^"\s]*)"?\s*$/i.exec(part)
    if (m === null) continue
    if (/^2[0-9]{2}$/.test(m[1])) return undefined
    return { after: false, reset: false, timeout: false, status: integer('code', m[1], 400, 599) }
  }
  return undefined
}
