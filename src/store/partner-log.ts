import * as zlib from 'node:zlib'
import type { AgentSnapshot, PartnerSnapshot } from './records.js'

// zlib.crc32 arrived in Node 22.2; on 22.0 and 22.1 the same sum is computed here
const CRC_TABLE = Int32Array.from({ length: 256 }, (_v, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c
})
const crc32: (data: Buffer) => number = (zlib as { crc32?: (data: Buffer) => number }).crc32 ?? ((data) => {
  let c = -1
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8)
  return (c ^ -1) >>> 0
})

/*
 * A partner's change log (format 1, see docs/data-dir.md). One line per committed batch:
 *   <crc32 of the JSON, 8 hex digits> <JSON array of operations>\n
 * The first line is the header {"log":1,"partner":<id>,"generation":<n>}. Operations name every change
 * reachable from Partner.snapshot(), each by absolute position, so replaying them rebuilds the state:
 *   ["partner", fields]                     every partner field but agents (users, guarantees, sandbox...)
 *   ["agent", agent]                        a whole agent, new (appended) or replaced (in place)
 *   ["head", agentId, fields]               an agent's fields but its record lists (name, seq...)
 *   ["drop", agentId]                       an agent removed
 *   ["order", [agentId...]]                 the agents' order
 *   ["add", agentId, list, index, [records]] records appended at index (the list's length)
 *   ["set", agentId, list, index, record]   the record at index replaced
 *   ["cut", agentId, list, length]          the list shortened
 */

export const LOG_FORMAT = 1
export const LISTS = ['customers', 'accounts', 'beneficiaries', 'messages'] as const
export type ListName = typeof LISTS[number]

export type LogOp =
  | ['partner', Omit<PartnerSnapshot, 'agents'>]
  | ['agent', AgentSnapshot]
  | ['head', string, Record<string, unknown>]
  | ['drop', string]
  | ['order', string[]]
  | ['add', string, ListName, number, object[]]
  | ['set', string, ListName, number, object]
  | ['cut', string, ListName, number]

/** One record's bytes (a JSON text never holds a raw line break, so a line is a record). */
export function encodeRecord (json: string): Buffer {
  const body = Buffer.from(json)
  return Buffer.concat([Buffer.from(`${crc32(body).toString(16).padStart(8, '0')} `), body, Buffer.from('\n')])
}

export function logHeader (partnerId: string, generation: number): string {
  return JSON.stringify({ log: LOG_FORMAT, partner: partnerId, generation })
}

export interface ParsedLog {
  /** the batches, each with the offset of its line */
  batches: Array<{ offset: number, ops: LogOp[] }>
  /** bytes of whole records; a torn last record starts here */
  validBytes: number
  torn: boolean
}

/**
 * The records of a log file. A last record cut short or garbled (a power cut during its write: it was
 * never answered) is reported as torn; a bad record with others after it is corruption (thrown).
 */
export function parseLog (bytes: Buffer, partnerId: string, generation: number, fail: (offset: number, why: string) => Error): ParsedLog {
  const batches: ParsedLog['batches'] = []
  let offset = 0
  let header = false
  while (offset < bytes.length) {
    const end = bytes.indexOf(10, offset)
    const line = bytes.subarray(offset, end === -1 ? bytes.length : end)
    const sum = line.subarray(0, 8).toString('latin1')
    const body = line.subarray(9)
    const whole = end !== -1 && line.length > 9 && line[8] === 32 && /^[0-9a-f]{8}$/.test(sum) && crc32(body) === parseInt(sum, 16)
    if (!whole) {
      if (end === -1 || end === bytes.length - 1) return { batches, validBytes: offset, torn: true }
      throw fail(offset, 'a record whose checksum does not match, with records after it')
    }
    let value: unknown
    try {
      value = JSON.parse(body.toString('utf8'))
    } catch {
      throw fail(offset, 'a record that is not JSON')
    }
    if (!header) {
      const h = value as { log?: unknown, partner?: unknown, generation?: unknown }
      if (h?.log !== LOG_FORMAT) throw fail(offset, `log format ${String(h?.log)} is not ${LOG_FORMAT}`)
      if (h.partner !== partnerId || h.generation !== generation) throw fail(offset, 'the header names another partner or generation than the file name')
      header = true
    } else {
      if (!Array.isArray(value)) throw fail(offset, 'a record that is not a list of operations')
      batches.push({ offset, ops: value as LogOp[] })
    }
    offset = end + 1
  }
  return { batches, validBytes: offset, torn: false }
}

/** The object's fields become the given ones (a field gone from them goes), except those kept. */
function replaceFields (target: object, fields: object, keep: readonly string[]): void {
  const t = target as Record<string, unknown>
  for (const k of Object.keys(t)) if (!keep.includes(k)) delete t[k]
  Object.assign(t, fields)
}

/** Applies one batch to a partner's plain data; a change that cannot apply is an error message. */
export function applyOps (p: PartnerSnapshot, ops: LogOp[]): string | null {
  const agent = (id: string): AgentSnapshot | undefined => p.agents.find((a) => a.id === id)
  const list = (id: string, name: ListName): object[] | undefined => LISTS.includes(name) ? agent(id)?.[name] : undefined
  for (const op of ops) {
    switch (op[0]) {
      case 'partner': replaceFields(p, op[1], ['agents']); break
      case 'agent': {
        const i = p.agents.findIndex((a) => a.id === op[1].id)
        if (i === -1) p.agents.push(op[1])
        else p.agents[i] = op[1]
        break
      }
      case 'head': {
        const a = agent(op[1])
        if (a === undefined) return `no agent ${op[1]}`
        replaceFields(a, op[2], LISTS)
        break
      }
      case 'drop': p.agents = p.agents.filter((a) => a.id !== op[1]); break
      case 'order': {
        const byId = new Map(p.agents.map((a) => [a.id, a]))
        if (op[1].length !== byId.size || !op[1].every((id) => byId.has(id))) return 'an order that names other agents'
        p.agents = op[1].map((id) => byId.get(id)!)
        break
      }
      case 'add': {
        const l = list(op[1], op[2])
        if (l === undefined || l.length !== op[3]) return `records added at ${op[3]} to ${op[1]} ${op[2]} of ${l?.length ?? 'no'} records`
        for (const r of op[4]) l.push(r)
        break
      }
      case 'set': {
        const l = list(op[1], op[2])
        if (l === undefined || op[3] >= l.length) return `record ${op[3]} of ${op[1]} ${op[2]} replaced, of ${l?.length ?? 'no'} records`
        l[op[3]] = op[4]
        break
      }
      case 'cut': {
        const l = list(op[1], op[2])
        if (l === undefined || op[3] > l.length) return `${op[1]} ${op[2]} cut to ${op[3]}, of ${l?.length ?? 'no'} records`
        l.length = op[3]
        break
      }
      default: return `an unknown operation ${JSON.stringify((op as unknown[])[0])}`
    }
  }
  return null
}
