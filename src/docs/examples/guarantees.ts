import type { ExampleContext } from './context.js'
import type { ExampleRequest, OperationsExamples, ResponseExample } from './types.js'

/** Examples of spec 4.13, the one public operation: no token, no Agent-Id. */
export function guaranteeExamples (c: ExampleContext): OperationsExamples {
  const { kit, repos, guarantees } = c
  const publicGet = (url: string): ExampleRequest => ({ method: 'GET', url, auth: 'none', agent: null })
  const stateUrl = (id: string): string => `/api/guarantees/${id}/state`
  const longId = 'G'.repeat(256)
  return {
    'GET /api/guarantees/{guaranteeID}/state': {
      params: { guaranteeID: guarantees[0].guaranteeId },
      responses: [
        ...guarantees.map((g, i): ResponseExample => ({
          ...kit.ok(stateUrl(g.guaranteeId), 'GuaranteeState', repos.guarantees.state(g.guaranteeId), `Guarantee ${g.guaranteeId}`),
          name: i === 0 ? 'ok' : `ok${i + 1}`,
          request: publicGet(stateUrl(g.guaranteeId))
        })),
        { ...kit.ok(stateUrl('NOSTATE-1'), 'GuaranteeState', repos.guarantees.state('NOSTATE-1'), 'Any id starting NOSTATE-: no state'), name: 'noState', request: publicGet(stateUrl('NOSTATE-1')) },
        { ...kit.notFoundError(stateUrl('NOTFOUND-1'), 'Guarantee', 'NOTFOUND-1', 'Any id starting NOTFOUND-, or an unknown id'), request: publicGet(stateUrl('NOTFOUND-1')) },
        kit.notAcceptable(publicGet(stateUrl(guarantees[0].guaranteeId))),
        {
          status: 400,
          name: 'invalidParameter',
          summary: 'An id of 256 characters',
          request: publicGet(stateUrl(longId)),
          value: kit.error(400, 'guaranteeID: size must be between 1 and 255', stateUrl(longId), [{ field: 'guaranteeID', rejectedValue: longId, defaultMessage: 'size must be between 1 and 255', code: 'Size' }])
        }
      ]
    }
  }
}
