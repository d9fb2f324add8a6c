import { Type, type TSchema, type Static, type StringOptions, type TUnsafe } from '@sinclair/typebox'
import { MAX_PATTERN_LENGTH } from '../path-patterns.js'

/*
 * Building blocks shared by the resource schemas. Every rule is written the way the spec words it
 * (sizes, digit counts, character sets) so that the served document reads like spec section 2.
 */

// spec 2.5 / 4.7 / 4.8: "uppercase Latin letters, digits, space, punctuation" (punctuation = the 32
// ASCII punctuation characters of Java's \p{Punct}, which the real service's Bean Validation uses).
const UPPER_CHARSET = 'A-Z0-9 !"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~'
export const UPPER_TEXT_PATTERN = `^[${UPPER_CHARSET}]*$`
// spec 2.5 name1: "must contain alphabetic characters"
export const UPPER_TEXT_WITH_LETTER_PATTERN = `^(?=.*[A-Z])[${UPPER_CHARSET}]*$`
// spec 2.5 email: "uppercase Latin letters, digits, punctuation" (no space)
export const UPPER_EMAIL_PATTERN = `^[${UPPER_CHARSET.replace(' ', '')}]*$`

/**
 * A path pattern a partner sends (journal filters, fault rules): checked by the x-path-pattern keyword
 * (validation.ts, path-patterns.ts's patternProblem) before the linear matcher of path-patterns.ts sees it.
 */
export function PathPatternString (options: StringOptions) {
  return Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH, 'x-path-pattern': true, ...options })
}

/** Bean Validation's @Digits on a String: parsed as a decimal number, then integral/fraction digits counted. */
export interface DigitsRule { integer: number, fraction: number }

/** A string with @Digits(integer, fraction); the rule travels as the x-digits keyword (see validation.ts). */
export function DigitString (integer: number, fraction: number, options: StringOptions = {}) {
  return Type.String({
    ...options,
    'x-digits': { integer, fraction } satisfies DigitsRule,
    description: [options.description, `At most ${integer} integral and ${fraction} fractional digits (@Digits).`].filter(Boolean).join(' ')
  })
}

/** Upper-case text of the spec's character set with a size range. */
export function UpperText (min: number, max: number, options: StringOptions & { needsLetter?: boolean } = {}) {
  const { needsLetter, ...rest } = options
  return Type.String({
    ...rest,
    minLength: min,
    maxLength: max,
    pattern: needsLetter === true ? UPPER_TEXT_WITH_LETTER_PATTERN : UPPER_TEXT_PATTERN
  })
}

/** The Agent-Id header (spec 4: String, required on every operation but 4.13). */
export const AgentIdHeaders = Type.Object({
  'agent-id': Type.String({ description: 'Id of the agent acting (spec 4). Must be one of the agents bound to the access token.', examples: ['1001'] })
})

// spec 2.1 / 8: page 0-indexed default 0, size default 10. The maximum size is the sandbox's decision.
export const MAX_PAGE_SIZE = 2000
export const PagingQuery = Type.Object({
  // the service's page is a Java Integer: a page past 2147483647 cannot be asked for (nor sent back)
  page: Type.Integer({ minimum: 0, maximum: 2147483647, default: 0, description: '0-indexed page to fetch (spec 2.1).' }),
  size: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 10, description: `Page size (spec 2.1), 1 to ${MAX_PAGE_SIZE}; the maximum is the sandbox's decision (the spec shows none).` })
})
export type Paging = Static<typeof PagingQuery>

export const PageInfo = Type.Object({
  page: Type.Integer({ description: 'page number' }),
  pageSize: Type.Integer({ description: 'requested page size' }),
  numberOfElements: Type.Integer({ description: 'number of items actually in this page' }),
  totalElements: Type.Integer({ description: 'total count of items' }),
  totalPages: Type.Integer({ description: 'total pages at the current page size' }),
  first: Type.Boolean({ description: 'true if this is the first page' }),
  last: Type.Boolean({ description: 'true if this is the last page' })
}, { $id: 'PageInfo', title: 'PageInfo', description: 'Paging information of a list response (spec 2.1).' })

export const SortResponse = Type.Object({
  property: Type.String(),
  direction: Type.String()
}, { $id: 'SortResponse', title: 'SortResponse' })

/** A reference to a schema registered by its $id, typed as the schema it points to. */
export function ref<T extends TSchema> (schema: T): TUnsafe<Static<T>> {
  if (schema.$id === undefined) throw new Error('ref() needs a schema with an $id')
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id))
}

type PageStatic<K extends string, T extends TSchema> =
  { page: Static<typeof PageInfo>, sortResponses: Array<Static<typeof SortResponse>> } & { [P in K]: Array<Static<T>> }

/** The list envelope of spec 2.1: page object, sortResponses and one named array. */
export function PageOf<K extends string, T extends TSchema> (id: string, itemsName: K, item: T): TUnsafe<PageStatic<K, T>> {
  const schema = Type.Object({
    page: ref(PageInfo),
    sortResponses: Type.Array(ref(SortResponse), { description: 'Always empty: the service does not sort on request.' }),
    [itemsName]: Type.Array(item)
  }, { $id: id, title: id, description: `A page of ${itemsName} (spec 2.1 paging envelope).` })
  return Type.Unsafe<PageStatic<K, T>>(schema)
}

export const FieldErrorSchema = Type.Object({
  field: Type.String({ description: 'Path of the field, parameter or header, e.g. defaultCustomer.name1 or otherCustomers[0].email' }),
  rejectedValue: Type.Unknown({ description: 'The value that was rejected (null when absent)' }),
  defaultMessage: Type.String({ description: "The rule in Hibernate Validator's wording" }),
  code: Type.String({ description: 'The rule: NotNull, Size, Pattern, Digits, Email, Min, Max, OneOf, typeMismatch, or a sandbox rule name' })
}, { $id: 'FieldError', title: 'FieldError' })

export const ErrorBodySchema = Type.Object({
  timestamp: Type.String({ description: 'When the error happened, ISO 8601 with offset' }),
  status: Type.Integer(),
  error: Type.String({ description: 'HTTP reason phrase' }),
  message: Type.String(),
  path: Type.String({ description: 'The request path' }),
  errors: Type.Array(ref(FieldErrorSchema))
}, {
  $id: 'ErrorBody',
  title: 'ErrorBody',
  description: "Every error (spec 7 leaves the shape open): Spring Boot's default error body, always with message and errors[]. " +
    'The X-Sandbox-Error response header carries the sandbox error code.'
})

export const COMMON_SCHEMAS = [PageInfo, SortResponse, FieldErrorSchema, ErrorBodySchema]

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Bad Request: a field, parameter or header broke a rule of the spec; errors[] names each one. Also a missing Agent-Id header or body.',
  401: 'Unauthorized: no bearer token, or not a valid access token of this sandbox (WWW-Authenticate says why).',
  403: "Forbidden: the Agent-Id is not one of the token's agents, or a partner limit is reached.",
  404: 'Not Found: no such record for this agent (a record of another agent or partner is not found either).',
  405: 'Method Not Allowed: the path exists for other methods (see Allow).',
  406: 'Not Acceptable: the Accept header admits no application/json.',
  409: 'Conflict: the request conflicts with existing sandbox state.',
  413: 'Payload Too Large: the body is larger than the configured limit.',
  415: 'Unsupported Media Type: the body must be application/json.',
  503: 'Service Unavailable: overloaded; retry after Retry-After seconds.'
}

/** The error responses of an operation, each with the error body (spec 7: the sandbox's decision). */
export function errorResponses (...statuses: number[]): Record<number, TUnsafe<Static<typeof ErrorBodySchema>>> {
  const out: Record<number, TUnsafe<Static<typeof ErrorBodySchema>>> = {}
  for (const s of statuses) out[s] = Type.Unsafe<Static<typeof ErrorBodySchema>>({ $ref: 'ErrorBody', description: ERROR_MEANINGS[s] })
  return out
}
