/*
 * The bank API document's one mention of fault injection (issue 11): besides the introduction's paragraph,
 * every operation declares a default response, the injected error, so that a client generated from the
 * document knows the shape of an answer with any status.
 */

import { errorBody } from '../errors.js'

type Json = Record<string, any>

const EXAMPLE_TIME = Date.parse('2026-01-15T08:00:00.000Z')

const DESCRIPTION = 'Any other status: an error injected on purpose (sandbox extension: the Sandbox-Fault or Prefer header, a fault rule or a magic value), ' +
  'in the ErrorBody shape; Sandbox-Fault-Applied names the fault and its source.'

const APPLIED = 'The injected fault and its source, e.g. `after, status=502; source=header` or `status=503; source=rule; rule=rule-1`.'

/** Adds the injected error as the default response of every operation (OpenAPI 3 or Swagger 2.0). */
export function withInjectedErrors (doc: Json, swagger2: boolean): Json {
  const ref = swagger2 ? '#/definitions/ErrorBody' : '#/components/schemas/ErrorBody'
  const headers = swagger2
    ? { 'Sandbox-Fault-Applied': { description: APPLIED, type: 'string' }, 'X-Sandbox-Error': { description: 'SANDBOX_ERR_FAULT_INJECTED', type: 'string', enum: ['SANDBOX_ERR_FAULT_INJECTED'] } }
    : { 'Sandbox-Fault-Applied': { description: APPLIED, schema: { type: 'string' } }, 'X-Sandbox-Error': { description: 'SANDBOX_ERR_FAULT_INJECTED', schema: { type: 'string', enum: ['SANDBOX_ERR_FAULT_INJECTED'] } } }
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    const example = errorBody(503, 'Injected by the sandbox: status=503; source=header', path, [], EXAMPLE_TIME)
    const answer = swagger2
      ? { description: DESCRIPTION, schema: { $ref: ref }, headers, examples: { 'application/json': example } }
      : { description: DESCRIPTION, headers, content: { 'application/json': { schema: { $ref: ref }, examples: { injected: { summary: 'Sandbox-Fault: status=503', value: example } } } } }
    for (const op of Object.values(item as Json)) {
      if (typeof op === 'object' && op !== null && op.responses !== undefined) op.responses.default = answer
    }
  }
  return doc
}
