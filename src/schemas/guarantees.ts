import { Type, type Static } from '@sinclair/typebox'

export const GUARANTEE_STATES = ['VALID', 'INVALID'] as const

export const GuaranteeState = Type.Object({
  state: Type.Optional(Type.Union(GUARANTEE_STATES.map((s) => Type.Literal(s)), { description: 'VALID or INVALID.' }))
}, { $id: 'GuaranteeState', title: 'GuaranteeState', description: 'The state of a loan guarantee (spec 2.7).' })
export type GuaranteeState = Static<typeof GuaranteeState>

export const GuaranteeParams = Type.Object({
  guaranteeID: Type.String({ minLength: 1, maxLength: 255, description: 'Guarantee id.' })
})

export const GUARANTEE_SCHEMAS = [GuaranteeState]
