import type { Paging } from '../schemas/common.js'
import type { CustomerMessageRequest } from '../schemas/messages.js'
import type { AgentStore } from './agent.js'
import { pageOf } from './paging.js'
import type { StoredMessage } from './records.js'
import { localDateTimeSast } from '../clock.js'
import type { Tenant, World } from './world.js'

export function buildMessage (agent: AgentStore, customerId: string, req: CustomerMessageRequest, dateCreated: string, id = agent.nextId('message')): StoredMessage {
  return { id, message: req.message, fromDepartment: req.fromDepartment, fromPerson: req.fromPerson, dateCreated, customerId }
}

export function messagesRepo (world: World) {
  return {
    list (tenant: Tenant, customerId: string, paging: Paging) {
      return pageOf(world.resolveCustomer(tenant, customerId).agent.messagesOf(customerId), paging)
    },

    create (tenant: Tenant, customerId: string, req: CustomerMessageRequest): StoredMessage | Promise<StoredMessage> {
      const { partner, agent } = world.resolveCustomer(tenant, customerId)
      world.ensureRoom(partner, 1)
      const message = buildMessage(agent, customerId, req, localDateTimeSast(partner.now()))
      agent.addMessage(message)
      return world.committed(partner, message)
    }
  }
}
