import { Ajv, type ErrorObject, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { TSchema } from '@sinclair/typebox'
import type { FieldError } from '../errors.js'
import type { DigitsRule } from './common.js'
import { isHibernateEmail } from './email-format.js'
import { patternProblem } from '../path-patterns.js'

// ajv-formats is CommonJS: under ESM its default import is the plugin function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/**
 * Ajv settings for every validation in the sandbox (routes, scenario files, fixtures): Bean Validation
 * reports every violated constraint at once, so allErrors; verbose gives us the rejected value and the
 * parent schema for Hibernate-style messages. coerceTypes matches Jackson's scalar coercion ("1" -> 1);
 * not 'array': Jackson neither wraps a single value into a list nor unwraps a one-element list.
 */
export const AJV_OPTIONS: Options = {
  allErrors: true,
  verbose: true,
  coerceTypes: true,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
  // the schemas are the sandbox's own, checked against the meta-schema by test/unit/schemas.test.ts, not
  // again by every process when it first compiles them
  validateSchema: false
}

const PLAIN_DIGITS = /^\d+$/

/**
 * Bean Validation's @Digits on a CharSequence: the value is parsed as a BigDecimal (an unparsable value
 * is invalid), then the integral part (precision - scale) and the fraction part (scale) are counted.
 */
export function digitsOk (value: string, rule: DigitsRule): boolean {
  // the usual case, a plain run of digits no longer than the integral limit (an id): no parsing needed
  if (value.length > 0 && value.length <= rule.integer && PLAIN_DIGITS.test(value)) return true
  const m = /^[+-]?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/.exec(value)
  if (m === null) return false
  const intPart = m[1] ?? ''
  const fracPart = m[2] ?? m[3] ?? ''
  const exponent = m[4] === undefined ? 0 : Number(m[4])
  const unscaled = (intPart + fracPart).replace(/^0+/, '')
  const precision = Math.max(unscaled.length, 1)
  const scale = fracPart.length - exponent
  return precision - scale <= rule.integer && Math.max(scale, 0) <= rule.fraction
}

/** The sandbox's ajv keywords and formats; used as a Fastify ajv plugin and for the standalone validator. */
export function sandboxKeywords (ajv: Ajv): Ajv {
  // Hibernate Validator's @Email in place of ajv-formats' (see email-format.ts)
  ajv.addFormat('email', isHibernateEmail)
  ajv.addKeyword({
    keyword: 'x-digits',
    type: 'string',
    schemaType: 'object',
    errors: true,
    validate: function validateDigits (rule: DigitsRule, data: string) {
      return digitsOk(data, rule)
    }
  })
  // a partner's path pattern (journal filters, fault rules): what the linear matcher takes
  ajv.addKeyword({
    keyword: 'x-path-pattern',
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: function validatePathPattern (on: boolean, data: string) {
      return !on || patternProblem(data) === undefined
    }
  })
  return ajv
}

/**
 * The ajv plugins, in order: ajv-formats, then the sandbox's keywords and formats, which replace some of
 * its formats. Fastify adds ajv-formats after the plugins it is given unless one of them is ajv-formats
 * (it looks for the function name formatsPlugin), so both go in here.
 */
export const AJV_PLUGINS = [addFormats, sandboxKeywords]

/**
 * A standalone validator with the same options, keywords and shared schemas as the routes, for checking
 * data once (fixtures, scenario files, snapshots) rather than on every request: the code of each check is
 * not optimised, which (with validateSchema off) made compiling them at start a third cheaper.
 */
export function createValidator (schemas: TSchema[]): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, coerceTypes: false, useDefaults: false, code: { optimize: false } })
  for (const plugin of AJV_PLUGINS) plugin(ajv)
  for (const s of schemas) ajv.addSchema(s)
  return ajv
}

/** What checking data needs of a validator: a compiled check by schema id, and a schema added. */
export type DataValidator = Pick<Ajv, 'getSchema' | 'addSchema'>

/**
 * createValidator's validator, made at its first use: a start of the built-in data (checked by the build,
 * seed/verified.ts) never asks for one, and adding every schema to a new Ajv was a tenth of the start.
 */
export function lazyValidator (schemas: TSchema[]): DataValidator {
  let ajv: Ajv | undefined
  const made = (): Ajv => (ajv ??= createValidator(schemas))
  return {
    getSchema: (id) => made().getSchema(id),
    addSchema: (schema, key) => made().addSchema(schema, key)
  }
}

const JAVA_TYPES: Record<string, string> = {
  integer: 'java.lang.Integer',
  number: 'java.math.BigDecimal',
  boolean: 'java.lang.Boolean',
  string: 'java.lang.String',
  array: 'java.util.List',
  object: 'java.lang.Object'
}

const HEADER_NAMES: Record<string, string> = { 'agent-id': 'Agent-Id' }

/** "/otherCustomers/0/name1" -> "otherCustomers[0].name1" (Spring's property path). */
export function fieldPath (instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1)
  if (child !== undefined) parts.push(child)
  let path = ''
  for (const raw of parts) {
    const p = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (/^\d+$/.test(p)) path += `[${p}]`
    else path += path === '' ? (HEADER_NAMES[p] ?? p) : `.${p}`
  }
  return path
}

/** One ajv error in Spring's FieldError form, worded as Hibernate Validator words it. */
export function fieldErrorFromAjv (e: ErrorObject): FieldError {
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>
  const at = (code: string, defaultMessage: string, field = fieldPath(e.instancePath), rejectedValue: unknown = e.data): FieldError =>
    ({ field, rejectedValue: rejectedValue ?? null, defaultMessage, code })
  switch (e.keyword) {
    case 'required':
      return at('NotNull', 'must not be null', fieldPath(e.instancePath, (e.params as { missingProperty: string }).missingProperty), null)
    case 'minLength':
    case 'maxLength':
      return at('Size', `size must be between ${Number(parent.minLength ?? 0)} and ${Number(parent.maxLength ?? 2147483647)}`)
    case 'minItems':
    case 'maxItems':
      return at('Size', `size must be between ${Number(parent.minItems ?? 0)} and ${Number(parent.maxItems ?? 2147483647)}`)
    case 'pattern':
      return at('Pattern', `must match "${String(e.schema)}"`)
    case 'format':
      return e.schema === 'email'
        ? at('Email', 'must be a well-formed email address')
        : at('Pattern', `must be a valid ${String(e.schema)}`)
    case 'minimum':
      return at('Min', `must be greater than or equal to ${String(e.schema)}`)
    case 'maximum':
      return at('Max', `must be less than or equal to ${String(e.schema)}`)
    case 'enum':
      return at('OneOf', `must be one of [${(e.schema as unknown[]).join(', ')}]`)
    case 'x-path-pattern':
      return at('Pattern', patternProblem(String(e.data)) ?? 'must be a path pattern')
    case 'x-digits': {
      const rule = e.schema as DigitsRule
      return at('Digits', `numeric value out of bounds (<${rule.integer} digits>.<${rule.fraction} digits> expected)`)
    }
    case 'type':
      return typeMismatch(fieldPath(e.instancePath), e.data, String((e.params as { type: string }).type).split(',')[0])
    default:
      return at(e.keyword, e.message ?? 'is invalid')
  }
}

/** A value that cannot be converted to the Java type of its field (Spring's typeMismatch). */
export function typeMismatch (field: string, value: unknown, expected: string): FieldError {
  return { field, rejectedValue: value ?? null, defaultMessage: `Failed to convert value of type '${javaTypeOf(value)}' to required type '${JAVA_TYPES[expected] ?? expected}'`, code: 'typeMismatch' }
}

/**
 * A query parameter as Spring converts it to an Integer (NumberUtils.parseNumber): whitespace removed,
 * then a decimal with an optional sign or a hex number (0x, #). Returns the decimal text, '' for an empty
 * value (Spring then applies the default), or undefined when it is no integer (1.0, 1e3, text).
 */
export function springIntegerText (raw: string): string | undefined {
  if (PLAIN_DIGITS.test(raw)) return raw // the usual case: nothing to convert
  const text = raw.replace(/\s+/g, '')
  if (text === '' || /^[+-]?\d+$/.test(text)) return text
  const hex = /^([+-]?)(?:0[xX]|#)([0-9a-fA-F]+)$/.exec(text)
  if (hex === null) return undefined
  const value = BigInt(`0x${hex[2]}`)
  return (hex[1] === '-' ? -value : value).toString()
}

function javaTypeOf (value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (Array.isArray(value)) return 'java.util.List'
  if (typeof value === 'number') return Number.isInteger(value) ? 'java.lang.Integer' : 'java.math.BigDecimal'
  return JAVA_TYPES[typeof value] ?? 'java.lang.Object'
}

/** ajv errors -> FieldErrors, dropping anyOf/oneOf noise and exact duplicates. */
export function fieldErrorsFromAjv (errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>()
  const out: FieldError[] = []
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue
    const fe = fieldErrorFromAjv(e)
    const key = `${fe.field}\u0000${fe.code}\u0000${fe.defaultMessage}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(fe)
  }
  return out
}
