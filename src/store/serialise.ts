import type { PartnerSnapshot } from './records.js'

/*
 * The bytes of a partner file. A batch of writes re-serialises the whole partner, so the JSON of what has
 * not changed since the last batch is reused instead of encoded again.
 */

// Records never change once stored (a change replaces the object), so each one is turned into JSON
// once, not at every batch.
const recordJson = new WeakMap<object, string>()
function json (record: object): string {
  let s = recordJson.get(record)
  if (s === undefined) {
    s = JSON.stringify(record)
    recordJson.set(record, s)
  }
  return s
}

// A record list only grows (AgentStore appends), so its JSON is also kept, as bytes: a batch encodes only
// the records added since the last one, and the file is a concatenation of buffers. Before reuse the
// cache checks that the list still starts with the very records it encoded (pointer comparisons);
// anything else (a shorter list, a replaced record) re-encodes the list.
interface ListBytes { items: object[], bytes: Buffer, used: number }
const listCache = new WeakMap<object[], ListBytes>()

function startsWith (records: object[], items: object[]): boolean {
  if (records.length < items.length) return false
  for (let i = 0; i < items.length; i++) if (records[i] !== items[i]) return false
  return true
}

/** The JSON of a list's records, comma-separated, without the brackets. */
function listBytes (records: object[]): Buffer {
  let c = listCache.get(records)
  if (c === undefined || !startsWith(records, c.items)) {
    c = { items: [], bytes: Buffer.alloc(0), used: 0 }
    listCache.set(records, c)
  }
  const from = c.items.length
  if (from < records.length) {
    const text = (from === 0 ? '' : ',') + records.slice(from).map(json).join(',')
    const size = Buffer.byteLength(text)
    if (c.used + size > c.bytes.length) {
      // geometric growth (appends stay cheap) by a quarter, so that a large list does not hold much spare room
      const grown = Buffer.allocUnsafe(c.used + size + Math.max(65536, c.used >> 2))
      c.bytes.copy(grown, 0, 0, c.used)
      c.bytes = grown
    }
    c.used += c.bytes.write(text, c.used)
    for (let i = from; i < records.length; i++) c.items.push(records[i])
  }
  return c.bytes.subarray(0, c.used)
}

const piece = (text: string): Buffer => Buffer.from(text)
const CUSTOMERS = piece(',"customers":[')
const ACCOUNTS = piece('],"accounts":[')
const BENEFICIARIES = piece('],"beneficiaries":[')
const MESSAGES = piece('],"messages":[')
const AGENT_END = piece(']}')
const COMMA = piece(',')
const END = piece(']}\n')

/**
 * The partner file's bytes in pieces (written with one writev: no copy of the whole file per batch);
 * the same JSON as JSON.stringify would give, with the agents' lists in record order.
 */
export function serialisePieces (p: PartnerSnapshot): Buffer[] {
  const { agents, ...meta } = p
  const out = [piece(`${JSON.stringify(meta).slice(0, -1)},"agents":[`)]
  agents.forEach((a, i) => {
    const head = JSON.stringify({ id: a.id, name: a.name, fresh: a.fresh, like: a.like, scenario: a.scenario, seed: a.seed, seq: a.seq })
    if (i > 0) out.push(COMMA)
    out.push(piece(head.slice(0, -1)), CUSTOMERS, listBytes(a.customers), ACCOUNTS, listBytes(a.accounts),
      BENEFICIARIES, listBytes(a.beneficiaries), MESSAGES, listBytes(a.messages), AGENT_END)
  })
  out.push(END)
  return out
}

/** The whole partner file as text: exactly the bytes a commit writes. */
export function serialise (p: PartnerSnapshot): string {
  return Buffer.concat(serialisePieces(p)).toString('utf8')
}
