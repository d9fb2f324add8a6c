import { buildMessage } from '../../store/messages.js'
import type { ExampleContext } from './context.js'
import { pageReply } from '../../store/paging.js'
import { paged } from './responses.js'
import type { OperationsExamples } from './types.js'

/** Examples of spec 4.12: a customer's messages and a new message. */
export function messageExamples (c: ExampleContext): OperationsExamples {
  const { kit, repos, tenant, customerId, customerUrl, message, otherAgent, foreignCustomer } = c
  const url = `${customerUrl}/messages`
  const foreign = `/api/customers/${foreignCustomer}/messages`
  const request = { message: message.message, fromDepartment: message.fromDepartment, fromPerson: message.fromPerson }
  const { fromPerson: _p, ...withoutPerson } = request
  const created = buildMessage(c.freshAgent(), customerId, request, `${c.today}T10:00:00.000`)
  return {
    'POST /api/customers/{customerId}/messages': {
      params: { customerId },
      bodies: [{ name: 'message', summary: `A message to customer ${customerId}`, value: request }],
      responses: [
        { ...kit.ok(url, 'CustomerMessage', created, 'The message with its id and creation time (the time of the call)'), request: { method: 'POST', url, body: request }, volatile: ['dateCreated'] },
        kit.bodyError(url, 'customerMessage', withoutPerson, [{ field: 'fromPerson', rejectedValue: null, defaultMessage: 'must not be null', code: 'NotNull' }], 'No fromPerson'),
        kit.notFoundError(foreign, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`, 'POST', request),
        ...kit.common(url, 'POST', request),
        ...kit.bodyProblems(url, request)
      ]
    },
    'GET /api/customers/{customerId}/messages': {
      params: { customerId },
      responses: [
        kit.ok(url, 'MessagePage', pageReply('messages', repos.messages.list(tenant, customerId, paged(''))), `The messages of customer ${customerId}`),
        kit.sizeError(url),
        kit.notFoundError(foreign, 'Customer', foreignCustomer, `Customer ${foreignCustomer} belongs to agent ${otherAgent.id}`),
        ...kit.common(url)
      ]
    }
  }
}
