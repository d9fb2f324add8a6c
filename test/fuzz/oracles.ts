import { CATALOGUE } from '../../src/errors.js'

/*
 * What every answer must be, whatever was asked: no 5xx, nothing internal, every error in the one shape
 * with its X-Sandbox-Error, and no success for a request the fuzzer knows is invalid.
 */

export interface Answer {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

// traces of the inside: Fastify's codes, stack frames, source paths, JavaScript error names, Node internals
const INTERNALS = /FST_[A-Z_]+|\bat [\w$.<>]+ \(|\(?file:\/\/|node_modules|\/src\/[\w/-]+\.[jt]s|\.[jt]s:\d+:\d+|Maximum call stack|(?:Type|Reference|Range)Error\b|(?<!SANDBOX_)ERR_[A-Z_]{4,}|ECONN[A-Z]+|\/work\/|\/home\/|\/usr\/|Cannot read propert/

const ERROR_KEYS = ['error', 'errors', 'message', 'path', 'status', 'timestamp'].join()

/** The answer's body with the fuzzer's own inputs taken out (an error may rightly echo a rejected value or a path). */
function withoutInputs (body: string, inputs: string[]): string {
  let out = body
  for (const s of inputs.filter((s) => s.length >= 3).sort((a, b) => b.length - a.length)) {
    for (const form of [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)]) out = out.split(form).join('')
  }
  return out
}

/** Every way the answer breaks the rules (empty when it keeps them all). */
export function violations (answer: Answer, c: { invalid: string | null, inputs: string[], method: string }): string[] {
  const out: string[] = []
  if (answer.status >= 500) out.push(`a ${answer.status}`)
  if (answer.status === 0) out.push('no answer')
  const leak = INTERNALS.exec(withoutInputs(answer.body, c.inputs))
  if (leak !== null) out.push(`internals in the body: ${leak[0]}`)
  if (c.invalid !== null && answer.status >= 200 && answer.status < 300) out.push(`${answer.status} for an invalid request (${c.invalid})`)
  if (answer.status >= 400) {
    const code = String(answer.headers['x-sandbox-error'] ?? '')
    const entry = (CATALOGUE as Record<string, { status: number }>)[code]
    if (entry === undefined) out.push(`X-Sandbox-Error '${code}' is not in the catalogue`)
    else if (entry.status !== answer.status) out.push(`${code} with status ${answer.status}`)
    if (c.method === 'HEAD') {
      if (answer.body !== '') out.push('a body to HEAD')
    } else {
      if (!/^application\/json/.test(String(answer.headers['content-type'] ?? ''))) out.push(`an error of type ${String(answer.headers['content-type'])}`)
      try {
        const body = JSON.parse(answer.body)
        if (Object.keys(body).sort().join() !== ERROR_KEYS) out.push(`an error body with keys ${Object.keys(body).join()}`)
        else if (body.status !== answer.status || !Array.isArray(body.errors) || typeof body.message !== 'string' || typeof body.path !== 'string') out.push('an error body off its shape')
      } catch {
        out.push('an error body that is not JSON')
      }
    }
  }
  return out
}
