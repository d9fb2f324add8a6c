import type { FieldError } from '../errors.js'
import { fieldErrorsFromAjv, fieldPath, type DataValidator } from '../schemas/validation.js'

/** Data in a file (fixture or scenario) that the sandbox could not serve: refused at boot. */
export class DataError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'DataError'
  }
}

/** "file: records.x[0]" + "name1"; a where that is only a file name ends with ":" and the field follows a space. */
export function describeFieldError (where: string, e: FieldError): string {
  const field = e.field === '' ? '' : where.endsWith(':') ? ` ${e.field}` : `.${e.field}`.replace(/^\.\[/, '[')
  return `${where}${field}${where.endsWith(':') && field === '' ? '' : ':'} ${e.defaultMessage} (rule ${e.code}, value ${JSON.stringify(e.rejectedValue)})`
}

/** Throws a DataError naming the file, the field and the rule when value does not pass schema $id. */
export function checkAgainst (ajv: DataValidator, schemaId: string, value: unknown, where: string): void {
  const validate = ajv.getSchema(schemaId)
  if (validate === undefined) throw new Error(`no schema ${schemaId}`)
  if (validate(value) === true) return
  const errors = validate.errors ?? []
  // a misspelt field is named itself, not its parent object (what a person fixing the file needs)
  const unknown = errors.find((e) => e.keyword === 'additionalProperties')
  if (unknown !== undefined) {
    const name = (unknown.params as { additionalProperty: string }).additionalProperty
    const field = fieldPath(unknown.instancePath, name)
    throw new DataError(describeFieldError(where, { field, code: 'additionalProperties', defaultMessage: 'is not a field of this schema', rejectedValue: (unknown.data as Record<string, unknown>)[name] }))
  }
  const [first] = fieldErrorsFromAjv(errors)
  throw new DataError(describeFieldError(where, first))
}

export function failOnRuleErrors (errors: FieldError[], where: string): void {
  if (errors.length > 0) throw new DataError(describeFieldError(where, errors[0]))
}
