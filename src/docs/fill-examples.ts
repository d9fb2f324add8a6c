import type { OperationExamples } from './examples/types.js'

/*
 * An example on every parameter and on every property of every request body, at any depth, so that a
 * document converted by a tool (Postman, a client generator, a contract tester) sends values that work
 * rather than the literal "string". The values come from the operation's replayed examples (examples/) and
 * the components' examples, else from the schema's own examples or default; test/docs-examples.test.ts
 * checks each against its schema and sends the bodies they make to the API.
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

/** OpenAPI 3.0 and Swagger 2.0 have `example` only: a schema's JSON Schema `examples` becomes its `example`. */
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

/** An array's element with the most properties (the first of them): the items' values come from one element, so they agree. */
function fullest (elements: unknown[]): unknown {
  const size = (e: unknown): number => isObject(e) ? Object.keys(e).length : 0
  return elements.reduce((best, e) => size(e) > size(best) ? e : best, elements[0])
}

/** The component a local reference points to (#/components/schemas/X or #/definitions/X). */
const componentOf = (s: Json, components: Json): Json | undefined =>
  typeof s.$ref === 'string' ? components[String(s.$ref.split('/').pop())] : undefined

/**
 * Gives every property of a request body's schema an example, at any depth: nested objects, array items,
 * the members of allOf / anyOf / oneOf and the components they refer to. An object's properties take their
 * values from the object's example (a component's own example first: the operations that share it see the
 * same values; array items from the fullest element), so that the properties' examples make an object that
 * is valid as a whole; a property the object's example leaves out gets its schema's own example or default.
 * `filled` holds the components done.
 */
export function fillBodyExamples (schema: unknown, value: unknown, components: Json, filled: Set<Json>, created?: unknown): void {
  if (!isObject(schema)) return
  const component = componentOf(schema, components)
  if (component !== undefined && filled.has(component)) return
  if (component !== undefined) filled.add(component)
  const target = component ?? schema
  const own = schemaExample(target)
  const example = component === undefined ? firstDefined(value, own) : firstDefined(own, value)
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const member of Array.isArray(target[key]) ? target[key] : []) fillBodyExamples(member, example, components, filled)
  }
  fillBodyExamples(target.items, Array.isArray(example) ? fullest(example) : undefined, components, filled)
  if (!isObject(target.properties)) return
  for (const [name, prop] of Object.entries(target.properties as Json)) {
    if (!isObject(prop)) continue
    const of = componentOf(prop, components)
    const given = isObject(example) ? example[name] : undefined
    if (of === undefined) {
      // last, the record the operation created (a default the server filled in, e.g. a branch code)
      const v = firstDefined(given, schemaExample(prop), prop.default, isObject(created) ? created[name] : undefined)
      if (v !== undefined) prop.example = v
    } else if (given !== undefined && JSON.stringify(given) !== JSON.stringify(schemaExample(of))) {
      // a value of its own beside a reference: OpenAPI 3.0 ignores siblings of $ref, so it goes in an allOf
      target.properties[name] = { allOf: [{ $ref: prop.$ref }], example: given }
    }
    fillBodyExamples(prop, given, components, filled)
  }
}

/** An operation's body: its values come from the operation's first example body, and last from what its successful example created. */
export function fillOperationBody (schema: unknown, ex: OperationExamples | undefined, components: Json, filled: Set<Json>): void {
  fillBodyExamples(schema, ex?.bodies?.[0].value, components, filled, ex?.responses.find((r) => r.status < 300)?.value)
}
