import { CREATES, RULE_BREAKS } from './probes.js'
import type { Aspect, BodyKind, Mutation, Probe } from './types.js'

/*
 * "Every validation rule broken one at a time", read from the reference's served OpenAPI document: for each
 * property of a create operation's request schema (and of the Party inside it), one probe per rule the document
 * states (required, minLength, maxLength, pattern, enum, the x-digits of @Digits), each on an otherwise valid
 * generated body. A rule added to the schemas becomes a probe with no change here. The rules the document
 * cannot state are rows of RULE_BREAKS (probes.ts).
 *
 * The patterns compiled here come from the reference sandbox's own document (never the target's, nor anything
 * a target answers): the schemas' patterns, each audited as linear (docs/assumptions.md).
 */

type Json = Record<string, unknown>

/** The request schema of each generated body, by its name in the served document's components. */
const REQUEST_SCHEMAS: Record<BodyKind, string> = {
  account: 'AccountCreateRequest',
  beneficiary: 'BeneficiaryCreateRequest',
  customer: 'CustomerCreateRequest',
  message: 'CustomerMessageRequest'
}

const ALL: Aspect[] = ['status', 'error', 'schema', 'fields', 'headers', 'page']

function schemaAt (doc: Json, schema: Json): Json {
  const ref = (schema.$ref ?? (Array.isArray(schema.allOf) && schema.allOf.length === 1 ? (schema.allOf[0] as Json).$ref : undefined)) as string | undefined
  if (ref === undefined) return schema
  const name = ref.replace('#/components/schemas/', '')
  return ((doc.components as Json).schemas as Record<string, Json>)[name] ?? {}
}

/** A value of `length` characters that the pattern (if any) accepts, so that only the size is wrong. */
function filler (schema: Json, length: number): string {
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined
  for (const c of ['A', '1']) if (pattern === undefined || pattern.test(c.repeat(Math.max(length, 1)))) return c.repeat(length)
  return 'A'.repeat(length)
}

/** One value per rule of a string property, each breaking that rule alone. */
function breaksOf (schema: Json): Array<{ rule: string, set: unknown }> {
  const out: Array<{ rule: string, set: unknown }> = []
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined
  const fits = (v: string): boolean => max === undefined || v.length <= max
  if (typeof schema.minLength === 'number' && schema.minLength >= 1) out.push({ rule: 'empty', set: '' })
  if (max !== undefined) out.push({ rule: 'max-length', set: filler(schema, max + 1) })
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern)
    const bad = ['a', 'x1', 'é', '1 a'].find((v) => fits(v) && !pattern.test(v))
    if (bad !== undefined) out.push({ rule: 'pattern', set: bad })
  }
  if (Array.isArray(schema.enum)) {
    const bad = ['2', 'Z', 'X', 'OTHER'].find((v) => fits(v) && !(schema.enum as unknown[]).includes(v))
    if (bad !== undefined) out.push({ rule: 'enum', set: bad })
  }
  const digits = schema['x-digits'] as { integer: number, fraction: number } | undefined
  if (digits !== undefined) {
    out.push({ rule: 'digits', set: '9'.repeat(digits.integer + 1) })
    if (!Array.isArray(schema.enum)) out.push({ rule: 'not-a-number', set: 'ABC' })
  }
  return out
}

function fieldBreaks (doc: Json, schema: Json, prefix: string, out: Array<{ name: string, mutations: Mutation[] }>): void {
  const required = new Set((schema.required ?? []) as string[])
  for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const path = prefix === '' ? name : `${prefix}.${name}`
    if (required.has(name)) out.push({ name: `${path}.required`, mutations: [{ path, remove: true }] })
    const prop = schemaAt(doc, raw)
    if (prop.type === 'object' || prop.properties !== undefined) {
      fieldBreaks(doc, prop, path, out)
      continue
    }
    if (prop.type !== 'string') continue
    for (const b of breaksOf(prop)) out.push({ name: `${path}.${b.rule}`, mutations: [{ path, set: b.set }] })
  }
}

/** The validation probes of every create operation: the document's field rules, then the rules beyond it. */
export function validationProbes (doc: Json): Probe[] {
  const probes: Probe[] = []
  for (const c of CREATES) {
    const schema = ((doc.components as Json).schemas as Record<string, Json>)[REQUEST_SCHEMAS[c.body]]
    if (schema === undefined) continue
    const rows: Array<{ name: string, mutations: Mutation[] }> = []
    fieldBreaks(doc, schema, '', rows)
    rows.push(...RULE_BREAKS.filter((r) => r.body === c.body))
    for (const row of rows) {
      probes.push({
        id: `${c.name}.create.${row.name}`,
        operation: `${c.section} POST ${c.path}`,
        kind: 'validation',
        title: row.mutations.map((m) => m.remove === true ? `${m.path} left out` : `${m.path} = ${JSON.stringify(m.set)}`).join(', '),
        method: 'POST',
        path: c.path,
        auth: 'client',
        body: c.body,
        mutations: row.mutations,
        needs: c.needs,
        compare: ALL
      })
    }
  }
  return probes
}
