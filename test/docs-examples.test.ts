import t from 'tap'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { build } from './helper.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
type Json = Record<string, any>

const DOCUMENTS = ['/api/docs/apidocs/openapi.json', '/__sandbox/docs/openapi.json']

t.test('every operation of both documents has an operationId, bearerAuth first, and a valid example on every parameter and body property', async (t) => {
  const app = await build(t)
  for (const url of DOCUMENTS) {
    const doc = (await app.inject({ url })).json() as Json
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }))
    let n = 0
    /** The value is valid by the schema (its $refs resolved in the document's components). */
    const valid = (schema: Json, value: unknown): string | undefined => {
      const validate = ajv.compile({ $id: `check-${n++}`, ...schema, components: doc.components })
      return validate(value) ? undefined : ajv.errorsText(validate.errors)
    }
    const resolve = (s: Json): Json => typeof s.$ref === 'string' ? doc.components.schemas[String(s.$ref.split('/').pop())] : s
    const operationIds = new Set<string>()
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const name = `${url}: ${method.toUpperCase()} ${path}`
        t.type(op.operationId, 'string', `${name}: operationId`)
        t.notOk(operationIds.has(op.operationId), `${name}: operationId ${String(op.operationId)} is unique`)
        operationIds.add(op.operationId)
        const first = op.security?.[0] as Json | undefined
        if (first !== undefined && !('adminToken' in first)) t.same(Object.keys(first), ['bearerAuth'], `${name}: bearerAuth comes first`)
        for (const p of op.parameters ?? []) {
          t.not(p.example, undefined, `${name}: ${String(p.in)} parameter ${String(p.name)} has an example`)
          if (p.example !== undefined) t.equal(valid(p.schema, p.example), undefined, `${name}: the example of ${String(p.name)} (${JSON.stringify(p.example)}) is valid`)
        }
        const bodySchema = op.requestBody?.content?.['application/json']?.schema as Json | undefined
        if (bodySchema === undefined) continue
        for (const [prop, s] of Object.entries<Json>(resolve(bodySchema).properties ?? {})) {
          const example = s.example ?? resolve(s).example
          t.not(example, undefined, `${name}: body property ${prop} has an example`)
          if (example !== undefined) t.equal(valid(s, example), undefined, `${name}: the example of ${prop} is valid`)
        }
      }
    }
  }
})
