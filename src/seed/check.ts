import type { Ajv } from 'ajv'
import type { FieldError } from '../errors.js'
import { fieldErrorsFromAjv } from '../schemas/validation.js'

/** Data in a file (fixture or scenario) that the sandbox could not serve: refused at boot. */
export class DataError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'DataError'
  }
}

export function describeFieldError (where: string, e: FieldError): string {
  const field = e.field === '' ? '' : `.${e.field}`.replace(/^\.\[/, '[')
  return `${where}${field}: ${e.defaultMessage} (rule ${e.code}, value ${JSON.stringify(e.rejectedValue)})`
}

/** Throws a DataError naming the file, the field and the rule when value does not pass schema $id. */
export function checkAgainst (ajv: Ajv, schemaId: string, value: unknown, where: string): void {
  const validate = ajv.getSchema(schemaId)
  if (validate === undefined) throw new Error(`no schema ${schemaId}`)
  if (validate(value) === true) return
  const [first] = fieldErrorsFromAjv(validate.errors ?? [])
  throw new DataError(describeFieldError(where, first))
}

export function failOnRuleErrors (errors: FieldError[], where: string): void {
  if (errors.length > 0) throw new DataError(describeFieldError(where, errors[0]))
}
