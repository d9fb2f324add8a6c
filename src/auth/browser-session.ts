import { createHash } from 'node:crypto'
import type Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import { originAllowed } from './origins.js'
import { ROUTES } from './realm.js'

/** Keycloak's CORS request headers (its Cors class), answered to every preflight. */
const ALLOWED_HEADERS = 'Origin, Accept, X-Requested-With, Content-Type, Access-Control-Request-Method, Access-Control-Request-Headers, DPoP, Authorization'

/**
 * Keycloak's KEYCLOAK_SESSION cookie (Keycloak 26: the SHA-256 of the session id, base64url), which the
 * login-status iframe compares with the session_state keycloak-js holds. Readable by script, for the realm only.
 */
export function sessionCookie (issuer: string, sid: string | undefined): string {
  const { pathname, protocol, hostname } = new URL(issuer)
  // SameSite=None needs Secure, which browsers accept over https and on loopback hosts only
  const crossSite = protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(hostname) ? '; SameSite=None; Secure' : ''
  const value = sid === undefined ? '' : createHash('sha256').update(sid).digest('base64url')
  return `KEYCLOAK_SESSION=${value}; Path=${pathname}/; Max-Age=${sid === undefined ? 0 : 36000}${crossSite}`
}

/**
 * What browsers need from the provider's endpoints, as Keycloak gives it: CORS that echoes an origin the
 * client allows (its web origins) with credentials, never "*" (a disallowed origin gets no CORS headers and
 * the browser refuses the answer, as with Keycloak); and the session cookie cleared at logout.
 */
export function browserSupport (provider: Provider, issuer: string, clientOrigins: (clientId: string) => string[] | undefined): void {
  provider.use(async (ctx: KoaContextWithOIDC, next) => {
    await next()
    if (ctx.method === 'POST' && ctx.path === `${ROUTES.end_session}/confirm`) ctx.append('Set-Cookie', sessionCookie(issuer, undefined))
    const origin = ctx.get('Origin')
    if (origin === '' || ctx.response.get('Access-Control-Allow-Origin') === '') return
    const clientId = ctx.oidc?.client?.clientId
    const allowed = clientId === undefined ? undefined : clientOrigins(clientId)
    if (allowed !== undefined && !originAllowed(allowed, origin)) {
      for (const h of ['Access-Control-Allow-Origin', 'Access-Control-Expose-Headers']) ctx.remove(h)
      return
    }
    ctx.set('Access-Control-Allow-Origin', origin)
    ctx.set('Access-Control-Allow-Credentials', 'true')
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS)
      ctx.set('Access-Control-Max-Age', '3600')
    }
  })
}

const esc = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The logout page. With an id_token_hint (keycloak-js and the adapters send one) Keycloak logs out at once
 * and redirects; without one it asks. The provider's form carries its CSRF token; it is submitted by script
 * when there is nothing to ask.
 */
export async function logoutSource (ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const hinted = typeof ctx.oidc.params?.id_token_hint === 'string'
  const withAnswer = form.replace('</form>', '<input type="hidden" name="logout" value="yes"></form>')
  ctx.type = 'html'
  ctx.body = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Logging out</title></head>
<body><main>
<h1>${hinted ? 'Logging out' : 'Do you want to log out?'}</h1>
${withAnswer}
<button type="submit" form="op.logoutForm">Logout</button>
<p>${esc(ctx.host)}</p>
</main>${hinted ? '<script>document.forms[0].submit()</script>' : ''}</body></html>`
}
