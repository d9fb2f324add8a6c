import type { FieldError } from '../errors.js'

/** Collects the field errors of the sandbox rules (the ones JSON Schema cannot say) in Spring's form. */
export class RuleErrors {
  readonly list: FieldError[] = []

  add (field: string, rejectedValue: unknown, code: string, defaultMessage: string): void {
    this.list.push({ field, rejectedValue: rejectedValue ?? null, defaultMessage, code })
  }
}

export function isObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
