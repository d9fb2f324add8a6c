/*
 * No secret or token leaves the kit in a report: Authorization headers, tokens of token responses, client
 * secrets and passwords of forms and bodies are replaced, and then every value the run learned to be secret
 * (the secrets it was given, the tokens it received, the tampered tokens it made) is swept from every string.
 */

export const REDACTED = '[redacted]'

const TOKEN_FIELDS = new Set(['access_token', 'refresh_token', 'id_token'])
const FORM_SECRETS = new Set(['client_secret', 'password', 'refresh_token', 'client_assertion'])

export class Redactor {
  private readonly secrets = new Set<string>()

  /** A value that must never appear in a report (ignored when too short to be told from ordinary text). */
  add (secret: string | undefined): void {
    if (secret !== undefined && secret.length >= 4) this.secrets.add(secret)
  }

  /** Every known secret in a string replaced (longest first, so that a token is not half-replaced by a part of it). */
  sweep (text: string): string {
    let out = text
    for (const secret of [...this.secrets].sort((a, b) => b.length - a.length)) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    }
    return out
  }

  headers (headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase()
      if (lower === 'authorization' || lower === 'proxy-authorization') out[name] = `${value.split(' ')[0]} ${REDACTED}`
      else if (lower === 'cookie' || lower === 'set-cookie') out[name] = REDACTED
      else out[name] = this.sweep(value)
    }
    return out
  }

  /** A request or answer body: token fields of JSON, secret fields of forms, then the sweep. */
  body (text: string | undefined, contentType = ''): string | undefined {
    if (text === undefined || text === '') return text
    if (contentType.includes('x-www-form-urlencoded')) {
      const form = new URLSearchParams(text)
      for (const key of [...form.keys()]) if (FORM_SECRETS.has(key)) form.set(key, REDACTED)
      return this.sweep(form.toString())
    }
    if (contentType.includes('json')) {
      try {
        return this.sweep(JSON.stringify(this.value(JSON.parse(text))))
      } catch {}
    }
    return this.sweep(text)
  }

  /** A parsed JSON value with token and password fields replaced and secrets swept. */
  value (v: unknown): unknown {
    if (typeof v === 'string') return this.sweep(v)
    if (Array.isArray(v)) return v.map((x) => this.value(x))
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) =>
        [k, TOKEN_FIELDS.has(k) || FORM_SECRETS.has(k) ? REDACTED : this.value(x)]))
    }
    return v
  }
}
