/*
 * Values masked, structure kept: what the field comparison looks at. Ids, timestamps, generated names and
 * amounts differ between any two implementations, so only the field names and the JSON types of the values
 * are compared; the items of an array are merged into one shape (the union of their fields).
 */

export type Shape = string | { [field: string]: Shape } | { '[]': Shape }

export function jsonType (v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

export function shapeOf (v: unknown): Shape {
  if (Array.isArray(v)) {
    const items = v.map(shapeOf)
    return { '[]': items.length === 0 ? 'empty' : items.reduce(merge) }
  }
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shapeOf(x)]))
  }
  return jsonType(v)
}

function merge (a: Shape, b: Shape): Shape {
  if (typeof a === 'string' || typeof b === 'string') return a === b || b === 'null' ? a : a === 'null' ? b : a
  const out: Record<string, Shape> = { ...a }
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v
  return out
}

export interface ShapeDifference {
  /** e.g. accounts[].balance.amount */
  path: string
  kind: 'only-target' | 'only-reference' | 'type'
  detail: string
}

/** Where two shapes differ: a field on one side only, or of another type. */
export function shapeDifferences (reference: Shape, target: Shape, path = ''): ShapeDifference[] {
  if (typeof reference === 'string' || typeof target === 'string') {
    if (reference === target || reference === 'empty' || target === 'empty') return []
    // an optional field answered null on one side and a value on the other is no difference of type
    if (reference === 'null' || target === 'null') return []
    return [{ path, kind: 'type', detail: `${path || '(body)'}: ${describe(reference)} on the reference, ${describe(target)} on the target` }]
  }
  const out: ShapeDifference[] = []
  for (const k of new Set([...Object.keys(reference), ...Object.keys(target)])) {
    const at = k === '[]' ? `${path}[]` : path === '' ? k : `${path}.${k}`
    const r = (reference as Record<string, Shape>)[k]
    const t = (target as Record<string, Shape>)[k]
    if (r === undefined) out.push({ path: at, kind: 'only-target', detail: `${at}: only on the target` })
    else if (t === undefined) out.push({ path: at, kind: 'only-reference', detail: `${at}: only on the reference` })
    else out.push(...shapeDifferences(r, t, at))
  }
  return out
}

function describe (s: Shape): string {
  if (typeof s === 'string') return s
  return '[]' in s ? 'array' : 'object'
}
