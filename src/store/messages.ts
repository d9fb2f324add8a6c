import { notFound } from '../errors.js'
import type { Paging } from '../schemas/common.js'
import type { CustomerMessageRequest } from '../schemas/messages.js'
import type { AgentStore } from './agent.js'
import { intern } from './intern.js'
import { pageOf } from './paging.js'
import type { StoredMessage } from './records.js'
import { localDateTimeSast } from '../clock.js'
import type { ChangeContext, Tenant, World } from './world.js'

export function buildMessage (agent: AgentStore, customerId: string, req: CustomerMessageRequest, dateCreated: string, id = agent.nextId('message')): StoredMessage {
  return { id, message: req.message, fromDepartment: req.fromDepartment, fromPerson: req.fromPerson, dateCreated, customerId }
}

/**
 * A message request's texts as a created message keeps them: one copy of each text that repeats
 * (store/intern.ts). For creates only, not in buildMessage: a scenario's generated texts seldom repeat, and
 * pooling them would cost the large scenario's start a map insert per text for nothing.
 */
export function messageTexts (req: CustomerMessageRequest): CustomerMessageRequest {
  return { message: intern(req.message), fromDepartment: intern(req.fromDepartment), fromPerson: intern(req.fromPerson) }
}

export const messageChanges = {
  'messages.create' ({ world, partner, now, agent }: ChangeContext, a: { agentId: string, customerId: string, req: CustomerMessageRequest }): StoredMessage {
    const store = agent(a.agentId)
    const customer = store.customer(a.customerId)
    if (customer === undefined) throw notFound('Customer', a.customerId)
    world.ensureRoom(partner, 1)
    // the customer's own id string: the request's is a slice of its URL, which every stored message kept alive
    const message = buildMessage(store, customer.customerId, messageTexts(a.req), localDateTimeSast(now))
    store.addMessage(message)
    return message
  }
}

export function messagesRepo (world: World) {
  return {
    list (tenant: Tenant, customerId: string, paging: Paging) {
      return pageOf(world.resolveCustomer(tenant, customerId).agent.messagesOf(customerId), paging)
    },

    create (tenant: Tenant, customerId: string, req: CustomerMessageRequest) {
      return world.perform<StoredMessage>(tenant.partnerId, 'messages.create', { agentId: tenant.agentId, customerId, req })
    }
  }
}
