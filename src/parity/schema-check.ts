import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/*
 * The target's answers judged against the reference's served OpenAPI document: the response schema the sandbox
 * documents for the operation and status. The document's own keywords (example, x-digits, ...) are not JSON
 * Schema and are ignored.
 */

type Json = Record<string, unknown>

export class SchemaCheck {
  private readonly ajv: Ajv
  private readonly cache = new Map<string, ReturnType<Ajv['compile']> | null>()

  constructor (private readonly doc: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true })
    addFormats(this.ajv)
    this.ajv.addSchema(doc, 'openapi')
  }

  /** The path template of the document that a concrete path matches, e.g. /api/accounts/{accountId}. */
  private documented (method: string, template: string, status: number): string | undefined {
    const op = ((this.doc.paths as Record<string, Json>)[template]?.[method.toLowerCase()]) as Json | undefined
    const responses = op?.responses as Record<string, Json> | undefined
    if (responses?.[String(status)] === undefined) return undefined
    const escaped = template.replace(/~/g, '~0').replace(/\//g, '~1')
    return `openapi#/paths/${escaped}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
  }

  /**
   * What the documented response schema says of a field path (e.g. customers[].defaultCustomer.name2):
   * 'optional' when it is a property that may be absent, 'required', or 'unknown' (not in the schema).
   */
  fieldRule (method: string, template: string, status: number, path: string): 'required' | 'optional' | 'unknown' {
    const op = ((this.doc.paths as Record<string, Json>)[template]?.[method.toLowerCase()]) as Json | undefined
    const response = (op?.responses as Record<string, Json> | undefined)?.[String(status)]
    let schema = (((response?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema) as Json | undefined
    let rule: 'required' | 'optional' | 'unknown' = 'unknown'
    for (const part of path.split('.')) {
      const name = part.replace(/(\[\])+$/, '')
      schema = this.resolve(schema)
      const properties = schema?.properties as Record<string, Json> | undefined
      if (properties?.[name] === undefined) return 'unknown'
      rule = ((schema?.required ?? []) as string[]).includes(name) ? 'required' : 'optional'
      schema = properties[name]
      for (let i = 0; i < (part.length - name.length) / 2; i++) schema = (this.resolve(schema)?.items) as Json | undefined
    }
    return rule
  }

  private resolve (schema: Json | undefined): Json | undefined {
    let s = schema
    for (let i = 0; i < 8 && s !== undefined; i++) {
      const ref = (s.$ref ?? (Array.isArray(s.allOf) && s.allOf.length === 1 ? (s.allOf[0] as Json).$ref : undefined)) as string | undefined
      if (ref === undefined) return s
      s = ((this.doc.components as Json).schemas as Record<string, Json>)[ref.replace('#/components/schemas/', '')]
    }
    return s
  }

  /** Problems of a body against the documented schema; undefined when the document has none for it. */
  problems (method: string, template: string, status: number, body: unknown): string[] | undefined {
    const ref = this.documented(method, template, status)
    if (ref === undefined) return undefined
    let validate = this.cache.get(ref)
    if (validate === undefined) {
      try {
        validate = this.ajv.compile({ $ref: ref })
      } catch {
        validate = null
      }
      this.cache.set(ref, validate)
    }
    if (validate === null) return undefined
    if (validate(body)) return []
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'invalid'}`)
  }
}
