import type { AgentStore } from './agent.js'
import type { Partner } from './partner.js'
import { LISTS, type ListName, type LogOp } from './partner-log.js'
import type { AgentSnapshot } from './records.js'

/*
 * What a partner's data dir holds (snapshot + log), kept as references to the stored records: the
 * committed view. A batch finds what changed since in time that grows with the change, not with the
 * partner: a list grown (add) or shortened (cut) by its length, a record swapped at its index (set) by
 * the indexes the agent's store kept (AgentStore.takeReplaced: lists change only through the store), an
 * agent new or replaced (a new AgentStore), removed or reordered by identity, and any change of the small
 * fields (partner fields and agent heads, compared as JSON). A whole partner replaced (reset, restore)
 * is no diff: the caller writes a snapshot instead.
 */

interface AgentView {
  store: AgentStore
  headJson: string
  lists: Record<ListName, object[]>
}

export interface PartnerView {
  partner: Partner
  metaJson: string
  agents: Map<string, AgentView>
}

/** The committed data frozen for a snapshot write (copies of the lists, which later batches extend). */
export interface FrozenPartner {
  metaJson: string
  agents: Array<{ headJson: string, lists: Record<ListName, object[]> }>
}

function split (a: AgentSnapshot): { head: string, lists: Record<ListName, object[]> } {
  const { customers, accounts, beneficiaries, messages, ...head } = a
  return { head: JSON.stringify(head), lists: { customers, accounts, beneficiaries, messages } }
}

function metaJsonOf (partner: Partner): string {
  const { agents: _agents, ...meta } = partner.snapshot()
  return JSON.stringify(meta)
}

function agentView (store: AgentStore): AgentView {
  store.watchReplacements()
  const { head, lists } = split(store.snapshot())
  return { store, headJson: head, lists: { customers: [...lists.customers], accounts: [...lists.accounts], beneficiaries: [...lists.beneficiaries], messages: [...lists.messages] } }
}

export function viewOf (partner: Partner): PartnerView {
  return { partner, metaJson: metaJsonOf(partner), agents: new Map([...partner.agents.values()].map((a) => [a.id, agentView(a)])) }
}

export function freeze (view: PartnerView): FrozenPartner {
  return {
    metaJson: view.metaJson,
    agents: [...view.agents.values()].map((a) => ({
      headJson: a.headJson,
      lists: { customers: a.lists.customers.slice(), accounts: a.lists.accounts.slice(), beneficiaries: a.lists.beneficiaries.slice(), messages: a.lists.messages.slice() }
    }))
  }
}

/** The changes of one list since the view, applied to the view as they are found. */
function listOps (store: AgentStore, name: ListName, seen: object[], now: readonly object[], ops: LogOp[]): void {
  const agentId = store.id
  for (const i of store.takeReplaced(name)) {
    // (an index past the view's end is in the records added below)
    if (i < seen.length && i < now.length && seen[i] !== now[i]) {
      ops.push(['set', agentId, name, i, now[i]])
      seen[i] = now[i]
    }
  }
  if (now.length > seen.length) {
    const added = now.slice(seen.length)
    ops.push(['add', agentId, name, seen.length, added])
    for (const r of added) seen.push(r)
  } else if (now.length < seen.length) {
    ops.push(['cut', agentId, name, now.length])
    seen.length = now.length
  }
}

/**
 * The operations that bring the view to the partner's present state, and the view updated to it.
 * The partner must be the view's partner (see above).
 */
export function diff (view: PartnerView, ops: LogOp[] = []): LogOp[] {
  const partner = view.partner
  const meta = metaJsonOf(partner)
  if (meta !== view.metaJson) {
    ops.push(['partner', JSON.parse(meta)])
    view.metaJson = meta
  }
  for (const id of view.agents.keys()) {
    if (!partner.agents.has(id)) {
      ops.push(['drop', id])
      view.agents.delete(id)
    }
  }
  for (const store of partner.agents.values()) {
    const seen = view.agents.get(store.id)
    if (seen === undefined || seen.store !== store) {
      ops.push(['agent', store.snapshot()])
      view.agents.set(store.id, agentView(store))
      continue
    }
    const { head, lists } = split(store.snapshot())
    if (head !== seen.headJson) {
      ops.push(['head', store.id, JSON.parse(head)])
      seen.headJson = head
    }
    for (const name of LISTS) listOps(store, name, seen.lists[name], lists[name], ops)
  }
  // a replaced agent keeps its place in the Map, a new one comes last: the view's order follows that
  // unless an agent was removed and added again in one batch
  const order = [...partner.agents.keys()]
  const viewOrder = [...view.agents.keys()]
  if (order.some((id, i) => viewOrder[i] !== id)) {
    ops.push(['order', order])
    const agents = new Map(order.map((id) => [id, view.agents.get(id)!]))
    view.agents.clear()
    for (const [id, a] of agents) view.agents.set(id, a)
  }
  return ops
}
