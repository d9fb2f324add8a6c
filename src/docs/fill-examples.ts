import type { OperationExamples } from './examples/types.js'

/*
 * An example on every parameter and every request-body property, so that a document converted by a tool
 * (Postman, a client generator) sends values that work rather than the literal "string". The values come
 * from the operation's replayed examples (examples/), else from the schema's own examples or default, and
 * test/docs-examples.test.ts checks each against its schema.
 */

type Json = Record<string, any>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The value of a query parameter in the example request that succeeds, typed as the parameter's schema. */
function queryValue (ex: OperationExamples | undefined, name: string, schema: Json | undefined): unknown {
  const ok = ex?.responses.find((r) => r.status < 300)
  if (ok === undefined) return undefined
  const raw = new URL(ok.request.url, 'http://example').searchParams.get(name)
  if (raw === null) return undefined
  return schema?.type === 'integer' || schema?.type === 'number' ? Number(raw) : raw
}

function firstDefined (...values: unknown[]): unknown {
  return values.find((v) => v !== undefined)
}

/** OpenAPI 3.0 has `example` only: a schema's JSON Schema `examples` becomes its `example`. */
function schemaExample (schema: Json | undefined): unknown {
  if (!isObject(schema)) return undefined
  const value = firstDefined(schema.example, Array.isArray(schema.examples) ? schema.examples[0] : undefined)
  delete schema.examples
  if (value !== undefined) schema.example = value
  return value
}

export function fillParameterExamples (op: Json, ex: OperationExamples | undefined): void {
  for (const p of op.parameters ?? []) {
    const fromSchema = schemaExample(p.schema)
    if (p.example !== undefined || isObject(p.examples)) continue
    const value = firstDefined(ex?.params?.[p.name], queryValue(ex, p.name, p.schema), fromSchema, p.schema?.default)
    if (value !== undefined) p.example = value
  }
}

/** Every property of the request body's schema (a component, shared by the operations that use it). */
export function fillBodyExamples (op: Json, ex: OperationExamples | undefined, components: Json): void {
  const media = op.requestBody?.content?.['application/json']
  if (media === undefined) return
  const resolve = (s: Json | undefined): Json | undefined =>
    typeof s?.$ref === 'string' ? components[String(s.$ref.split('/').pop())] : s
  const schema = resolve(media.schema)
  if (!isObject(schema?.properties)) return
  const ok = ex?.responses.find((r) => r.status < 300)
  const body = firstDefined(ex?.bodies?.[0]?.value, ok?.request.body, schema.example) as Json | undefined
  for (const [name, prop] of Object.entries(schema.properties as Json)) {
    const target = resolve(prop)
    const own = schemaExample(target)
    if (prop.example !== undefined) continue
    // last, the created record the example answers (a default the server filled in, e.g. a branch code)
    const created = isObject(ok?.value) ? ok.value[name] : undefined
    const value = firstDefined(isObject(body) ? body[name] : undefined, own, target?.default, created)
    if (value === undefined) continue
    // OpenAPI 3.0 ignores siblings of $ref: the example goes beside it in an allOf
    schema.properties[name] = typeof prop.$ref === 'string' ? { allOf: [{ $ref: prop.$ref }], example: value } : { ...prop, example: value }
  }
}
