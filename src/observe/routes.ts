import { OIDC_PATH, REALM_PATH, ROUTES } from '../auth/realm.js'

/*
 * The `route` and `api` labels of a request (docs/observability.md): the route template as the API documents
 * write it (/api/customers/{customerId}), never a raw path, so that the number of series is bounded by the
 * sandbox's routes, whatever ids and paths clients send. Versioned paths (/4.0/api/...) are routed as /api/...
 * (plugins/versions.ts rewrites them first) and labelled so: the version is not a label.
 */

/** Which part of the sandbox a route belongs to. */
export type Api = 'bank' | 'control' | 'identity' | 'console' | 'docs' | 'other'

/** The route of every request that matched no route (and of unknown paths of the identity provider). */
export const UNMATCHED = 'unmatched'

/** The part of the sandbox a path or route template belongs to, by its first segments. */
export function apiOf (path: string): Api {
  if (path.startsWith('/api/docs') || path.startsWith('/__sandbox/docs')) return 'docs'
  if (path === '/api' || path.startsWith('/api/')) return 'bank'
  if (path === '/__sandbox' || path.startsWith('/__sandbox/')) return 'control'
  if (path === '/auth' || path.startsWith('/auth/')) return 'identity'
  if (path === '/console' || path.startsWith('/console/')) return 'console'
  return 'other'
}

/** A Fastify route (/api/customers/:customerId) as the documents write it (/api/customers/{customerId}). */
export function routeTemplate (url: string): string {
  return url.includes(':') ? url.replace(/:(\w+)/g, '{$1}') : url
}

/** The identity provider's own routes (oidc-provider, served through middie under one wildcard route: auth/index.ts). */
const PROVIDER_ROUTES = new Map([
  ROUTES.authorization, ROUTES.token, ROUTES.jwks, ROUTES.end_session, `${ROUTES.end_session}/confirm`, `${ROUTES.end_session}/success`,
  ROUTES.pushed_authorization_request, '/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'
].map((path) => [`${REALM_PATH}${path}`, `${REALM_PATH}${path}`]))
// an interaction's resumption: the authorization endpoint with the interaction's id
const RESUME = `${REALM_PATH}${ROUTES.authorization}/`
const RESUME_TEMPLATE = `${REALM_PATH}${OIDC_PATH}/auth/{uid}`

/**
 * The template of a request that the identity provider's wildcard route took, from its path without the query:
 * the whole path, or (once middie has handed it to the provider) the path under the realm.
 */
export function providerRoute (path: string): string {
  if (!path.startsWith(REALM_PATH)) path = `${REALM_PATH}${path}`
  const known = PROVIDER_ROUTES.get(path)
  if (known !== undefined) return known
  if (path.startsWith(RESUME) && path.indexOf('/', RESUME.length) === -1 && path.length > RESUME.length) return RESUME_TEMPLATE
  return UNMATCHED
}

/** The identity provider's wildcard route (auth/index.ts): its requests are labelled by providerRoute. */
export const PROVIDER_WILDCARD = `${REALM_PATH}/*`
