import type { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { SandboxError, validationFailed, withStatus } from '../errors.js'
import type { PickedRule } from './rules.js'
import { FaultSyntaxError, faultFromPrefer, formatFault, injectedErrorHeaders, parseFault, type Fault } from './fault.js'

/*
 * What a fault does to a request, wherever it applies: the bank's API (plugins/faults.ts) and the token
 * endpoint of a partner's own clients (auth/token-endpoint-faults.ts) read the same headers and rules and answer,
 * hold and drop the same way.
 */

export interface AppliedFault {
  fault: Fault
  /** The Sandbox-Fault-Applied value: the fault and its source. */
  label: string
  /** The connection was dropped without an answer (reset, timeout). */
  dropped: boolean
}

/** The injected error answer: Spring's body for the status, with the headers a real one carries. */
export function injectedError (status: number, applied: AppliedFault): SandboxError {
  const headers = { 'sandbox-fault-applied': applied.label, ...injectedErrorHeaders(status) }
  return withStatus(new SandboxError('SANDBOX_ERR_FAULT_INJECTED', `Injected by the sandbox: ${applied.label}`, [], headers), status)
}

/** The fault a request asks for in its headers (Sandbox-Fault first, then Prism's Prefer: code=); a 400 for one that cannot be read. */
export function headerFault (request: FastifyRequest): AppliedFault | undefined {
  const header = request.headers['sandbox-fault']
  const name = header !== undefined ? 'Sandbox-Fault' : 'Prefer'
  const text = header ?? request.headers.prefer
  if (text === undefined) return undefined
  try {
    if (Array.isArray(text)) throw new FaultSyntaxError('was sent more than once; send one header with a comma-separated list')
    const fault = header !== undefined ? parseFault(text) : faultFromPrefer(text)
    if (fault === undefined) return undefined
    return { fault, label: `${formatFault(fault)}; source=${header !== undefined ? 'header' : 'prefer'}`, dropped: false }
  } catch (err) {
    if (!(err instanceof FaultSyntaxError)) throw err
    throw validationFailed('request', [{ field: name, rejectedValue: typeof text === 'string' ? text.slice(0, 200) : text, code: 'SandboxFault', defaultMessage: `${name} header ${err.message}` }])
  }
}

export const ruleFault = (rule: PickedRule): AppliedFault =>
  ({ fault: parseFault(rule.fault), label: `${rule.fault}; source=rule; rule=${rule.id}`, dropped: false })

/** The requests a latency or timeout fault holds, so that a stop does not wait for them. */
export class FaultHolds {
  private readonly waits = new Set<() => void>()

  constructor (private readonly holdMs: number) {}

  async wait (ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const end = (): void => { clearTimeout(timer); this.waits.delete(end); resolve() }
      const timer = setTimeout(end, ms)
      this.waits.add(end)
    })
  }

  /** Ends every hold at once (the sandbox stops). */
  release (): void {
    for (const end of [...this.waits]) end()
  }

  /** Ends a request without an answer: an RST at once (reset) or after holding it (timeout). */
  async drop (request: FastifyRequest, reply: FastifyReply, applied: AppliedFault): Promise<void> {
    applied.dropped = true
    reply.raw.setHeader('sandbox-fault-applied', applied.label)
    const socket = request.raw.socket as Socket
    if (applied.fault.timeout) {
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
      await Promise.race([this.wait(this.holdMs), closed])
    }
    if (!socket.destroyed) socket.resetAndDestroy()
    // the partner's journal shows the request as dropped (status 0)
    request.server.journalFile(request, reply, 0)
    // the response never finishes: let the onResponse steps (the log line) see the request all the same
    reply.raw.emit('error', Object.assign(new Error('connection dropped by an injected fault'), { code: 'SANDBOX_FAULT_DROPPED' }))
  }
}
