import { notFound, SandboxError } from '../errors.js'
import { MAGIC_GUARANTEE_PREFIXES } from '../faults/magic.js'
import type { GuaranteeState } from '../schemas/guarantees.js'
import type { Guarantee } from './records.js'
import type { World } from './world.js'

function magic (id: string): GuaranteeState | null | undefined {
  for (const [prefix, answer] of Object.entries(MAGIC_GUARANTEE_PREFIXES)) {
    if (id.toUpperCase().startsWith(prefix)) return answer
  }
  return undefined
}

export function guaranteesRepo (world: World) {
  return {
    /** spec 4.13: public, so looked up sandbox-wide rather than per tenant. */
    state (guaranteeId: string): GuaranteeState {
      const answer = magic(guaranteeId)
      if (answer === null) throw notFound('Guarantee', guaranteeId)
      if (answer !== undefined) return answer
      const g = world.guarantee(guaranteeId)
      if (g === undefined) throw notFound('Guarantee', guaranteeId)
      return { state: g.state }
    },

    listOf (partnerId: string): Guarantee[] {
      return [...(world.partner(partnerId)?.guarantees.values() ?? [])]
    },

    /** Creates a guarantee of a partner (id given or assigned), or sets the state of one it owns. */
    async put (partnerId: string, state: Guarantee['state'], guaranteeId?: string): Promise<Guarantee> {
      const partner = world.partner(partnerId)
      if (partner === undefined) throw notFound('Partner', partnerId)
      if (guaranteeId !== undefined && magic(guaranteeId) !== undefined) {
        throw new SandboxError('SANDBOX_ERR_CONFLICT', `Guarantee ids starting with ${Object.keys(MAGIC_GUARANTEE_PREFIXES).join(', ')} are reserved`)
      }
      let id = guaranteeId
      let seq = partner.guaranteeSeq
      if (id === undefined) {
        do {
          seq += 1
          id = `${partner.number}${String(seq).padStart(9, '0')}`
        } while (world.guarantee(id) !== undefined)
      }
      const owner = world.ownerOfGuarantee(id)
      if (owner !== undefined && owner !== partner) throw new SandboxError('SANDBOX_ERR_CONFLICT', `Guarantee ${id} belongs to another partner`)
      if (owner === undefined) world.ensureRoom(partner, 1)
      // only now: a refused create leaves the partner exactly as it was
      partner.guaranteeSeq = seq
      const guarantee: Guarantee = { guaranteeId: id, state }
      world.putGuarantee(partner, guarantee)
      await world.commit(partner)
      return guarantee
    }
  }
}
