import { REALM_PATH, ROUTES } from '../auth/realm.js'
import { SWAGGER2_OAUTH } from './openapi.js'

/*
 * How the documents tell Swagger UI (and any client generator) to authenticate: the embedded provider's
 * OAuth flows, so that "Authorize" obtains real tokens, and a plain bearer token for one obtained elsewhere.
 */

type Json = Record<string, any>

const SCOPES = { openid: 'OpenID Connect', profile: 'name and username', email: 'email address' }

function oauthUrls (publicUrl: string): { authorizationUrl: string, tokenUrl: string } {
  return { authorizationUrl: `${publicUrl}${REALM_PATH}${ROUTES.authorization}`, tokenUrl: `${publicUrl}${REALM_PATH}${ROUTES.token}` }
}

/** OpenAPI 3 security schemes; the sandbox control API's document adds the operator token. */
export function securitySchemes (publicUrl: string, withAdmin: boolean): Json {
  const { authorizationUrl, tokenUrl } = oauthUrls(publicUrl)
  return {
    sandboxOAuth: {
      type: 'oauth2',
      description: 'The embedded identity provider (Keycloak layout). Default clients: partner-a / partner-a-secret, partner-b / partner-b-secret; ' +
        'test users alice / alice-password (partner-a) and bob / bob-password (partner-b). The authorization code flow needs PKCE (S256).',
      flows: {
        clientCredentials: { tokenUrl, scopes: SCOPES },
        authorizationCode: { authorizationUrl, tokenUrl, refreshUrl: tokenUrl, scopes: SCOPES },
        password: { tokenUrl, refreshUrl: tokenUrl, scopes: SCOPES }
      }
    },
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `An access token obtained from ${tokenUrl}.` },
    ...(withAdmin ? { adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token of SANDBOX_ADMIN_TOKEN (--admin-token).' } } : {})
  }
}

/** Swagger 2.0 allows one flow per definition: one definition per flow, named as swagger2Security refers to them. */
export function swagger2SecurityDefinitions (publicUrl: string): Json {
  const { authorizationUrl, tokenUrl } = oauthUrls(publicUrl)
  const description = 'The embedded identity provider (see the OpenAPI 3 document for the test clients and users).'
  return {
    [SWAGGER2_OAUTH.application]: { type: 'oauth2', flow: 'application', tokenUrl, scopes: SCOPES, description },
    [SWAGGER2_OAUTH.accessCode]: { type: 'oauth2', flow: 'accessCode', authorizationUrl, tokenUrl, scopes: SCOPES, description: `${description} Needs PKCE (S256).` },
    [SWAGGER2_OAUTH.password]: { type: 'oauth2', flow: 'password', tokenUrl, scopes: SCOPES, description },
    bearerAuth: { type: 'apiKey', name: 'Authorization', in: 'header', description: '`Authorization: Bearer <access token>`' }
  }
}
