import { Type, type Static } from '@sinclair/typebox'

/* Requests and answers of "Is my integration ready?" (issue 29): the token controls its checklist needs. */

export const TokenExpiryRequest = Type.Object({
  refresh: Type.Optional(Type.Boolean({ default: false, description: 'Expire the refresh tokens issued so far too: the client must sign in again (a new grant) instead of refreshing', examples: [true] }))
}, { $id: 'SandboxTokenExpiryRequest', title: 'SandboxTokenExpiryRequest', additionalProperties: false })
export type TokenExpiryRequest = Static<typeof TokenExpiryRequest>

export const TokenExpiry = Type.Object({
  issuedBefore: Type.String({ format: 'date-time', description: 'Access tokens (and with refresh, refresh tokens) of the partner issued before this instant are refused as expired' }),
  refresh: Type.Boolean({ description: 'Refresh tokens are expired too' })
}, { $id: 'SandboxTokenExpiry', title: 'SandboxTokenExpiry' })

export const ADVICE_SCHEMAS = [TokenExpiryRequest, TokenExpiry]
