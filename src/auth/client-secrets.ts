import type Provider from 'oidc-provider'
import { errors } from 'oidc-provider'
import { clientSecretAccepted } from '../store/partner-credentials.js'
import type { World } from '../store/world.js'
import { CLIENT_DISABLED, LOCKED_CLIENT } from './clients.js'

// (a room of its own, loaded with the identity provider: clients.ts is loaded by every start, through the journal,
// and a value import of oidc-provider there would load the provider's some 180 files with it)

/**
 * The provider checks a client secret through the partner's hash (store/credentials.ts), never against the
 * metadata's client_secret (oidc-provider's Client#compareClientSecret, which its client authentication awaits
 * for client_secret_basic and client_secret_post). A suspended partner is refused before its secret is looked at,
 * as Keycloak refuses a disabled client.
 */
export function secretsThroughHashes (provider: Provider, world: World): void {
  const proto = provider.Client.prototype as unknown as { clientId: string, clientSecret: string, compareClientSecret: (actual: string) => boolean }
  proto.compareClientSecret = function (actual) {
    const partner = world.partner(this.clientId)
    if (partner?.suspended === true) throw new errors.UnauthorizedClient(CLIENT_DISABLED)
    return partner !== undefined && this.clientSecret !== LOCKED_CLIENT && clientSecretAccepted(world.secrets, partner, actual)
  }
}
