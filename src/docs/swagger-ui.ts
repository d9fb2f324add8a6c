import { LATEST_VERSION } from '../api-versions.js'
import { DOCS_PATH, SANDBOX_DOCS_PATH, SANDBOX_DOC_NAME } from './paths.js'

/**
 * Swagger UI's start script. The one @fastify/swagger-ui writes is the same for every page; this one reads
 * the version from the page's path, so /4.0/api/docs/apidocs shows (and tries) version 4.0, and sends every
 * OAuth redirect to the one redirect page registered for the partners' clients.
 */
export function swaggerInitializer (basePath: string, oauth2RedirectUrl: string): string {
  return `window.onload = function () {
  var m = /\\/(\\d+\\.\\d+)\\/api\\/docs\\/apidocs/.exec(window.location.pathname)
  var version = m ? m[1] : null
  var ui = SwaggerUIBundle({
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    validatorUrl: null,
    urls: [
      { url: ${JSON.stringify(basePath)} + (version ? '/' + version : '') + ${JSON.stringify(`${DOCS_PATH}/json`)}, name: 'Banking Agent REST Service ' + (version || ${JSON.stringify(LATEST_VERSION)}) },
      { url: ${JSON.stringify(`${basePath}${SANDBOX_DOCS_PATH}/openapi.json`)}, name: ${JSON.stringify(SANDBOX_DOC_NAME)} }
    ],
    oauth2RedirectUrl: ${JSON.stringify(oauth2RedirectUrl)},
    persistAuthorization: false,
    displayRequestDuration: true,
    tryItOutEnabled: true
  })
  ui.initOAuth({ clientId: 'partner-a', scopes: 'openid', usePkceWithAuthorizationCodeGrant: true })
  window.ui = ui
}
`
}
