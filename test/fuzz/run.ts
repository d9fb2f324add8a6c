import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { publishedOperations } from './documents.js'
import { violations } from './oracles.js'
import { rawCase, rawViolations } from './raw.js'
import { mutatedCase, type Credentials, type FuzzCase } from './requests.js'

export interface FuzzOptions {
  seed: number
  /** requests made from the documents' operations (in process) */
  requests: number
  /** malformed requests written to a socket */
  raw: number
  /** the app listens here for the raw requests */
  port: number
  credentials: Credentials
}

export interface FuzzReport {
  requests: number
  raw: number
  operations: number
  byStatus: Record<string, number>
  /** the first failing case (shrunk by fast-check) and what it broke, when one failed */
  failure?: string
}

/** One fuzz run over both published documents, then over raw HTTP; reproducible from its seed. */
export async function fuzz (app: FastifyInstance, opts: FuzzOptions): Promise<FuzzReport> {
  const operations = await publishedOperations(app)
  const methodsOf = new Map<string, string[]>()
  for (const op of operations) methodsOf.set(op.path, [...(methodsOf.get(op.path) ?? []), op.method])
  const report: FuzzReport = { requests: 0, raw: 0, operations: operations.length, byStatus: {} }
  const anyCase = fc.integer({ min: 0, max: operations.length - 1 })
    .chain((i) => mutatedCase(operations[i], methodsOf.get(operations[i].path)!, opts.credentials))

  const send = async (c: FuzzCase): Promise<string[]> => {
    const res = await app.inject({ method: c.method as 'GET', url: c.url, headers: c.headers, ...(c.payload === undefined ? {} : { payload: c.payload }) })
    report.requests++
    report.byStatus[res.statusCode] = (report.byStatus[res.statusCode] ?? 0) + 1
    return violations({ status: res.statusCode, headers: res.headers, body: res.body }, c)
  }
  const http = await fc.check(fc.asyncProperty(anyCase, async (c) => {
    const broken = await send(c)
    if (broken.length > 0) throw new Error(`${broken.join('; ')}\n  ${c.method} ${c.url.slice(0, 300)} (${c.key}, ${c.mutation})\n  body: ${(c.payload ?? '').slice(0, 300)}`)
  }), { seed: opts.seed, numRuns: opts.requests, endOnFailure: false })
  if (http.failed) return { ...report, failure: failureOf(http) }

  const raw = await fc.check(fc.asyncProperty(rawCase(opts.credentials.partner), async (c) => {
    report.raw++
    const broken = await rawViolations(opts.port, c)
    if (broken.length > 0) throw new Error(`${broken.join('; ')}\n  raw (${c.mutation}): ${JSON.stringify(c.bytes.slice(0, 300))}`)
  }), { seed: opts.seed, numRuns: opts.raw })
  if (raw.failed) return { ...report, failure: failureOf(raw) }
  return report
}

/** What broke and on which (shrunk) case, without the tokens. */
function failureOf (result: { seed: number, numRuns: number, numShrinks: number, errorInstance: unknown }): string {
  const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)
  return `seed ${result.seed}, after ${result.numRuns} runs (shrunk ${result.numShrinks} times): ${error}`.replace(/Bearer [\w.-]+/g, 'Bearer <token>')
}
