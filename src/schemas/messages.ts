import { Type, type Static } from '@sinclair/typebox'
import { PageOf, ref } from './common.js'

const fields = {
  message: Type.String({ minLength: 0, maxLength: 256 }),
  fromDepartment: Type.String({ minLength: 0, maxLength: 100 }),
  fromPerson: Type.String({ minLength: 0, maxLength: 100 })
}

export const CustomerMessageRequest = Type.Object(fields, {
  $id: 'CustomerMessageRequest', title: 'CustomerMessageRequest', description: 'A message to a customer (spec 2.6, 4.12).'
})
export type CustomerMessageRequest = Static<typeof CustomerMessageRequest>

export const CustomerMessage = Type.Object({
  id: Type.Optional(Type.String({ description: 'Message id.' })),
  ...fields,
  dateCreated: Type.Optional(Type.String({ description: 'Creation time: ISO local date-time without zone, South African Standard Time (UTC+02:00), e.g. 2026-11-22T09:15:02.125.' }))
}, { $id: 'CustomerMessage', title: 'CustomerMessage', description: 'A message addressed to a customer (spec 2.6).' })
export type CustomerMessage = Static<typeof CustomerMessage>

export const MessagePage = PageOf('MessagePage', 'messages', ref(CustomerMessage))

export const MESSAGE_SCHEMAS = [CustomerMessageRequest, CustomerMessage, MessagePage]
