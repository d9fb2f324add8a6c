import type { AdapterPayload } from 'oidc-provider'
import type { Partner } from '../store/partner.js'
import type { PublicClient } from '../store/records.js'
import type { World } from '../store/world.js'
import { webOrigins } from './origins.js'
import { clientSecretAccepted } from '../store/partner-credentials.js'
import { GRANT_TYPES, SUPPORTED_SCOPES } from './realm.js'

/** The partner an OAuth client acts for: the partner itself (confidential) or the owner of a public client. */
export interface ClientOwner { partner: Partner, publicClient?: PublicClient }

/**
 * The verified client of an HTTP Basic header (RFC 6749 2.3.1, client_secret_basic): its id when the secret
 * is that partner's, undefined when the header is absent, malformed or wrong.
 */
export function basicClient (header: string | undefined, world: World): string | undefined {
  const credentials = basicCredentials(header)
  return credentials === undefined ? undefined : confidentialClient(world, credentials.id, credentials.secret)
}

/** A client id and secret as an HTTP Basic header gives them, unchecked. */
export interface BasicCredentials { id: string, secret: string }

/** The client id and secret of an HTTP Basic header, unchecked; undefined when it is absent or malformed. */
export function basicCredentials (header: string | undefined): BasicCredentials | undefined {
  if (header?.startsWith('Basic ') !== true) return undefined
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) }
  } catch {
    return undefined // malformed percent-encoding
  }
}

/** The partner whose client id and secret these are (checked against its hash, in constant time), unless it is suspended; else undefined. */
export function confidentialClient (world: World, id: string | undefined, secret: string | undefined): string | undefined {
  const partner = id === undefined ? undefined : world.partner(id)
  return partner !== undefined && secret !== undefined && clientSecretAccepted(world.secrets, partner, secret) && !partner.suspended ? partner.id : undefined
}

/**
 * What the provider's client metadata carries as client_secret: the secret's hash (oidc-provider needs one for
 * a client_secret_basic client, and compares nothing with it: provider.ts checks a secret through
 * clientSecretAccepted), or LOCKED_CLIENT for a locked client, which no secret opens.
 */
export const LOCKED_CLIENT = 'locked'

export function ownerOf (world: World, clientId: string): ClientOwner | undefined {
  const partner = world.partner(clientId)
  if (partner !== undefined) return { partner }
  for (const p of world.partners.values()) {
    const publicClient = p.publicClients.find((c) => c.clientId === clientId)
    if (publicClient !== undefined) return { partner: p, publicClient }
  }
  return undefined
}

/** A partner as a confidential client: all four grants, client_secret_basic or _post. */
function confidential (partner: Partner, docsRedirectUris: string[], locked: boolean): AdapterPayload {
  const redirectUris = [...new Set([...docsRedirectUris, ...partner.redirectUris])]
  return {
    client_id: partner.id,
    // a locked client (SANDBOX_LOCKOUT_*) fails authentication whatever secret it sends
    client_secret: locked ? LOCKED_CLIENT : partner.secretHash,
    client_name: partner.name,
    redirect_uris: redirectUris,
    // Keycloak's default "+": the redirect URIs
    post_logout_redirect_uris: redirectUris,
    grant_types: GRANT_TYPES,
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: SUPPORTED_SCOPES.join(' ')
  }
}

/** A public client (Keycloak's "Client authentication: off"): code flow with PKCE and refresh only. */
function publicClient (partner: Partner, c: PublicClient): AdapterPayload {
  return {
    client_id: c.clientId,
    client_name: `${partner.name} (browser app)`,
    redirect_uris: c.redirectUris,
    post_logout_redirect_uris: c.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: SUPPORTED_SCOPES.join(' ')
  }
}

/** The provider's metadata of a client id (partner or public client), or undefined. */
export function clientMetadata (owner: ClientOwner | undefined, docsRedirectUris: string[], locked: boolean): AdapterPayload | undefined {
  if (owner === undefined) return undefined
  // (a suspended partner's browser apps are no clients; its confidential client is refused in compareClientSecret)
  if (owner.publicClient !== undefined && owner.partner.suspended) return undefined
  return owner.publicClient === undefined ? confidential(owner.partner, docsRedirectUris, locked) : publicClient(owner.partner, owner.publicClient)
}

/** The web origins a client allows (Keycloak's "+": the origins of its redirect URIs); undefined for no such client. */
export function clientOrigins (world: World, docsRedirectUris: string[], clientId: string): string[] | undefined {
  const uris = clientMetadata(ownerOf(world, clientId), docsRedirectUris, false)?.redirect_uris as string[] | undefined
  return uris === undefined ? undefined : webOrigins(uris)
}

/** The description oidc-provider's error carries for a suspended partner (token-response.ts gives Keycloak's answer). */
export const CLIENT_DISABLED = 'client disabled'
