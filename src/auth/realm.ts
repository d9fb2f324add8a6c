import { createHash } from 'node:crypto'

/** Keycloak's layout (design.md "Token presentation and auth"). */
export const REALM = 'sandbox'
export const REALM_PATH = `/auth/realms/${REALM}`
export const OIDC_PATH = '/protocol/openid-connect'
export const LOGIN_PATH = `${REALM_PATH}/login`

export const ROUTES = {
  authorization: `${OIDC_PATH}/auth`,
  token: `${OIDC_PATH}/token`,
  jwks: `${OIDC_PATH}/certs`,
  end_session: `${OIDC_PATH}/logout`,
  pushed_authorization_request: `${OIDC_PATH}/ext/par/request`,
  // served by the sandbox itself (auth/token-endpoints.ts), listed in discovery
  userinfo: `${OIDC_PATH}/userinfo`,
  introspection: `${OIDC_PATH}/token/introspect`,
  revocation: `${OIDC_PATH}/revoke`,
  // served by the sandbox itself (auth/keycloak-pages.ts), for keycloak-js
  check_session_iframe: `${OIDC_PATH}/login-status-iframe.html`
} as const

export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'offline_access']
export const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token', 'password']

/** Keycloak uses UUIDs as subjects; ours are derived from partner and username, so they survive resets. */
export function userSubject (partnerId: string, username: string): string {
  const h = createHash('sha256').update(`${partnerId}\u0000${username}`).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}
