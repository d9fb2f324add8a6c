import { notFound, SandboxError } from '../errors.js'
import { MAGIC_GUARANTEE_PREFIXES } from '../faults/magic.js'
import type { GuaranteeState } from '../schemas/guarantees.js'
import type { Guarantee } from './records.js'
import type { ChangeContext, World } from './world.js'

/** An assigned guarantee id: the partner's number, then its guarantee sequence in 9 digits. */
export function guaranteeIdOf (partnerNumber: number, seq: number): string {
  return `${partnerNumber}${String(seq).padStart(9, '0')}`
}

function magic (id: string): GuaranteeState | null | undefined {
  for (const [prefix, answer] of Object.entries(MAGIC_GUARANTEE_PREFIXES)) {
    if (id.toUpperCase().startsWith(prefix)) return answer
  }
  return undefined
}

export const guaranteeChanges = {
  /** Creates a guarantee of the partner (with the id given, else the next of its sequence), or sets the state of one it owns. */
  'guarantees.put' ({ world, partner }: ChangeContext, a: { guaranteeId?: string, state: Guarantee['state'] }): Guarantee {
    let id = a.guaranteeId
    let seq = partner.guaranteeSeq
    // an assigned id is the partner's number and its sequence, past any id taken (a hand-picked one may be)
    if (id === undefined) {
      do {
        seq += 1
        id = guaranteeIdOf(partner.number, seq)
      } while (world.guarantee(id) !== undefined)
    }
    const owner = world.ownerOfGuarantee(id)
    if (owner !== undefined && owner !== partner) throw new SandboxError('SANDBOX_ERR_CONFLICT', `Guarantee ${id} belongs to another partner`)
    if (owner === undefined) world.ensureRoom(partner, 1)
    // only now: a refused create leaves the partner exactly as it was
    partner.guaranteeSeq = seq
    const guarantee: Guarantee = { guaranteeId: id, state: a.state }
    world.putGuarantee(partner, guarantee)
    return guarantee
  }
}

export function guaranteesRepo (world: World) {
  return {
    /** spec 4.13: public, so looked up sandbox-wide rather than per tenant. */
    state (guaranteeId: string): GuaranteeState | Promise<GuaranteeState> {
      const answer = magic(guaranteeId)
      if (answer === null) throw notFound('Guarantee', guaranteeId)
      if (answer !== undefined) return answer
      const stateOf = (g: Guarantee | undefined): GuaranteeState => {
        if (g === undefined) throw notFound('Guarantee', guaranteeId)
        return { state: g.state }
      }
      const found = world.findGuarantee(guaranteeId)
      return found instanceof Promise ? found.then(stateOf) : stateOf(found)
    },

    listOf (partnerId: string): Guarantee[] {
      return [...(world.partner(partnerId)?.guarantees.values() ?? [])]
    },

    /** Creates a guarantee of a partner (id given or assigned), or sets the state of one it owns. */
    async put (partnerId: string, state: Guarantee['state'], guaranteeId?: string): Promise<Guarantee> {
      if (guaranteeId !== undefined && magic(guaranteeId) !== undefined) {
        throw new SandboxError('SANDBOX_ERR_CONFLICT', `Guarantee ids starting with ${Object.keys(MAGIC_GUARANTEE_PREFIXES).join(', ')} are reserved`)
      }
      // a hand-picked id is taken sandbox-wide first (with replicas, in the shared index)
      if (guaranteeId !== undefined) await world.claimGuarantees(partnerId, [guaranteeId])
      return await world.perform<Guarantee>(partnerId, 'guarantees.put', { guaranteeId, state })
    }
  }
}
