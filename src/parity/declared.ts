import { readFile } from 'node:fs/promises'
import type { Difference } from './types.js'

/*
 * Differences the bank accepts, declared in a file, each with a reason and an expiry date (as the OpenID
 * Foundation's conformance suite lists its expected failures): a declared difference is reported but does not
 * fail the run until its date has passed. docs/parity-declared.json is the starting file, from
 * docs/keycloak-differences.md.
 */

export interface Declared {
  /** A probe id, or a prefix of ids ending in "*" (e.g. "token.*"). */
  probe: string
  /** Only differences of this aspect (status, error, schema, fields, headers, page, claims); all when absent. */
  aspect?: string
  /** Only differences whose detail contains this text. */
  contains?: string
  reason: string
  /** YYYY-MM-DD: from the day after, the difference counts again. */
  expires: string
}

export class DeclaredError extends Error {}

export async function loadDeclared (file: string): Promise<Declared[]> {
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'))
  } catch (err) {
    throw new DeclaredError(`--declared ${file}: ${(err as Error).message}`)
  }
  const list = (parsed as { divergences?: unknown }).divergences
  if (!Array.isArray(list)) throw new DeclaredError(`--declared ${file}: expected {"divergences": [...]}`)
  list.forEach((d: Partial<Declared>, i) => {
    const where = `--declared ${file}: divergences[${i}]`
    if (typeof d.probe !== 'string' || d.probe === '') throw new DeclaredError(`${where}: probe is required`)
    if (typeof d.reason !== 'string' || d.reason.trim() === '') throw new DeclaredError(`${where}: a reason is required`)
    if (typeof d.expires !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(d.expires) || Number.isNaN(Date.parse(d.expires))) {
      throw new DeclaredError(`${where}: expires must be a date YYYY-MM-DD`)
    }
  })
  return list as Declared[]
}

function matches (d: Declared, diff: Difference): boolean {
  const probe = d.probe.endsWith('*') ? diff.probe.startsWith(d.probe.slice(0, -1)) : diff.probe === d.probe
  return probe && (d.aspect === undefined || d.aspect === diff.aspect) && (d.contains === undefined || diff.detail.includes(d.contains))
}

/** Marks the differences a declaration covers; returns the declarations nothing matched (stale ones). */
export function applyDeclared (diffs: Difference[], declared: Declared[], today = new Date().toISOString().slice(0, 10)): Declared[] {
  const used = new Set<Declared>()
  for (const diff of diffs) {
    const d = declared.find((x) => matches(x, diff))
    if (d === undefined) continue
    used.add(d)
    diff.declared = { reason: d.reason, expires: d.expires, expired: d.expires < today }
  }
  return declared.filter((d) => !used.has(d))
}

export function counts (diff: Pick<Difference, 'declared'>): boolean {
  return diff.declared === undefined || diff.declared.expired
}
