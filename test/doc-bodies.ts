import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { isHibernateEmail } from '../src/schemas/email-format.js'

/*
 * Reading a published document the way a tool does (a converter, a contract tester, a client generator):
 * the request bodies' properties at any depth with their examples, and the bodies those examples make.
 * Works on OpenAPI 3 (#/components/schemas) and Swagger 2.0 (#/definitions) alike.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
export type Json = Record<string, any>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const COMPOSITIONS = ['allOf', 'anyOf', 'oneOf']

export class DocumentReader {
  readonly schemas: Json
  private readonly ajv: Ajv
  private readonly compiled = new Map<string, ReturnType<Ajv['compile']>>()

  constructor (readonly doc: Json) {
    this.schemas = doc.components?.schemas ?? doc.definitions ?? {}
    this.ajv = addFormats(new Ajv({ strict: false, allErrors: true }))
    // the documents' email format is Hibernate Validator's @Email, as the field descriptions say
    this.ajv.addFormat('email', isHibernateEmail)
  }

  /** The schema a node stands for: through a $ref, and through an allOf of one member (a $ref with a value of its own beside it). */
  target (node: Json): Json {
    if (typeof node.$ref === 'string') return this.target(this.schemas[String(node.$ref.split('/').pop())] ?? {})
    if (Array.isArray(node.allOf) && node.allOf.length === 1 && node.properties === undefined) return this.target(node.allOf[0])
    return node
  }

  /** A node's example: its own, else the one of the schema it refers to. */
  exampleOf (node: Json): unknown {
    return node.example ?? this.target(node).example
  }

  /** Every property of a body's schema, at any depth (nested objects, array items, compositions), with its path. */
  properties (node: Json, path = '', depth = 0): Array<{ path: string, schema: Json }> {
    const target = this.target(node)
    if (depth > 20) throw new Error(`${path}: nested too deep (a cycle?)`)
    const out: Array<{ path: string, schema: Json }> = []
    for (const key of COMPOSITIONS) for (const m of target[key] ?? []) out.push(...this.properties(m, path, depth + 1))
    if (isObject(target.items)) out.push(...this.properties(target.items, `${path}[]`, depth + 1))
    for (const [name, prop] of Object.entries<Json>(target.properties ?? {})) {
      out.push({ path: `${path}.${name}`, schema: prop })
      out.push(...this.properties(prop, `${path}.${name}`, depth + 1))
    }
    return out
  }

  /** Why the value breaks the schema, or undefined when it passes (references resolved in the document). */
  problem (schema: Json, value: unknown): string | undefined {
    const key = JSON.stringify(schema)
    let validate = this.compiled.get(key)
    if (validate === undefined) {
      validate = this.ajv.compile({ ...schema, components: this.doc.components, definitions: this.doc.definitions })
      this.compiled.set(key, validate)
    }
    return validate(value) ? undefined : this.ajv.errorsText(validate.errors)
  }

  /** The object a schema's property examples make (each property its example; properties without one left out). */
  assembled (node: Json): Json {
    const out: Json = {}
    for (const [name, prop] of Object.entries<Json>(this.target(node).properties ?? {})) {
      const example = this.exampleOf(prop)
      if (example !== undefined) out[name] = example
    }
    return out
  }

  /** A request body's example as a tool takes it: the media type's, else its schema's own, else the one its properties' examples make. */
  bodyExample (media: Json): unknown {
    return media.example ?? Object.values<Json>(media.examples ?? {})[0]?.value ?? this.exampleOf(media.schema) ?? this.assembled(media.schema)
  }

  /**
   * The bodies the property examples make: the body assembled from its properties' examples, and the same
   * body with one object (or the one element of an array of objects) in it assembled from its own
   * properties' examples in turn, for each such object at any depth.
   */
  bodies (node: Json): Json[] {
    const base = this.assembled(node)
    const out = [base]
    for (const [name, prop] of Object.entries<Json>(this.target(node).properties ?? {})) {
      const target = this.target(prop)
      const item = isObject(target.items) ? target.items : undefined
      const inner = item ?? prop
      if (this.target(inner).properties === undefined) continue
      for (const v of this.bodies(inner)) out.push({ ...base, [name]: item === undefined ? v : [v] })
    }
    return out
  }
}
