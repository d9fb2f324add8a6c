import type { Answer, Exchange, SentRequest } from './types.js'

/*
 * The kit's one way to the network: every request of a run, the walk and the probes, goes through send(),
 * which keeps what was sent and answered for the HAR and the comparison. No redirect is followed (a
 * redirect is an answer to compare), and each request has a deadline.
 */

const TIMEOUT_MS = 30_000

export class Traffic {
  readonly exchanges: Exchange[] = []
  /** Methods the bank API received, by method (the read-only test counts them on the target). */
  readonly methods = new Map<string, number>()

  constructor (readonly side: Exchange['side']) {}

  /** `timeoutMs`: longer for a first request, which may wait for a cold service to load (a fresh sandbox's identity provider). */
  async send (label: string, request: SentRequest, timeoutMs = TIMEOUT_MS): Promise<Exchange> {
    const exchange: Exchange = { side: this.side, label, started: new Date().toISOString(), request }
    this.exchanges.push(exchange)
    this.methods.set(request.method, (this.methods.get(request.method) ?? 0) + 1)
    const start = performance.now()
    try {
      const res = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs)
      })
      const body = await res.text()
      const answer: Answer = {
        status: res.status,
        statusText: res.statusText,
        headers: Object.fromEntries(res.headers),
        body,
        ms: Math.round(performance.now() - start)
      }
      if ((answer.headers['content-type'] ?? '').includes('json')) {
        try { answer.json = JSON.parse(body) } catch {}
      }
      exchange.answer = answer
    } catch (err) {
      const cause = (err as { cause?: { code?: string, message?: string } }).cause
      exchange.failure = cause?.code ?? cause?.message ?? (err as Error).message
    }
    return exchange
  }
}
