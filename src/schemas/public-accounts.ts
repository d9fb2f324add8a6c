import { Type, type Static } from '@sinclair/typebox'
import { PageOf, PagingQuery, ref } from './common.js'

export const PublicAccount = Type.Object({
  accountId: Type.Optional(Type.String()),
  name: Type.Optional(Type.String())
}, { $id: 'PublicAccount', title: 'PublicAccount', description: 'An account of a public entity that payments can be made to (spec 2.9).' })
export type PublicAccount = Static<typeof PublicAccount>

export const PublicAccountQuery = Type.Composite([PagingQuery, Type.Object({
  name: Type.Optional(Type.String({ description: 'Only the public account with exactly this name (spec 4.15).' }))
})])

export const PublicAccountPage = PageOf('PublicAccountPage', 'publicAccounts', ref(PublicAccount))

export const PUBLIC_ACCOUNT_SCHEMAS = [PublicAccount, PublicAccountPage]
