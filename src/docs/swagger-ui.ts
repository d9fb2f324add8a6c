import { createRequire } from 'node:module'
import { LATEST_VERSION } from '../api-versions.js'
import { PACKAGE_JSON } from '../files.js'
import type { StaticFile } from '../static-files.js'
import { DOCS_PATH, SANDBOX_DOCS_PATH, SANDBOX_DOC_NAME } from './paths.js'

/*
 * Swagger UI, served by the docs plugin from the files of swagger-ui-dist: the page, its start script and
 * the distribution's files, at DOCS_PATH and DOCS_PATH/static/. (@fastify/swagger-ui served the same files;
 * loading it, @fastify/static and their dependencies cost some 50-90 ms of every start, issue 44.)
 */

const require = createRequire(PACKAGE_JSON)
const CSS = 'text/css; charset=utf-8'
const JS = 'application/javascript; charset=utf-8'
const PNG = 'image/png'

/**
 * The distribution's files the page and the OAuth redirect load. Each is named in full: the image's build
 * (scripts/runtime-files.mjs) ships the files the bundle resolves this way, and only those.
 */
export const SWAGGER_UI_FILES: Record<string, StaticFile> = {
  'swagger-ui.css': { type: CSS, path: require.resolve('swagger-ui-dist/swagger-ui.css') },
  'index.css': { type: CSS, path: require.resolve('swagger-ui-dist/index.css') },
  'swagger-ui-bundle.js': { type: JS, path: require.resolve('swagger-ui-dist/swagger-ui-bundle.js') },
  'swagger-ui-standalone-preset.js': { type: JS, path: require.resolve('swagger-ui-dist/swagger-ui-standalone-preset.js') },
  'oauth2-redirect.html': { type: 'text/html; charset=utf-8', path: require.resolve('swagger-ui-dist/oauth2-redirect.html') },
  'oauth2-redirect.js': { type: JS, path: require.resolve('swagger-ui-dist/oauth2-redirect.js') },
  'favicon-32x32.png': { type: PNG, path: require.resolve('swagger-ui-dist/favicon-32x32.png') },
  'favicon-16x16.png': { type: PNG, path: require.resolve('swagger-ui-dist/favicon-16x16.png') }
}

/**
 * The page. Its files are named relative to the page's own address (`apidocs/static/…`, or `./static/…`
 * after a trailing slash), so the page works under a version's path (/4.0/api/docs/apidocs) and behind a
 * proxy that publishes the sandbox under a path of its own.
 */
export function swaggerUiPage (title: string, trailingSlash: boolean): string {
  const s = trailingSlash ? './static' : `${DOCS_PATH.split('/').pop()!}/static`
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>${title}</title>
<link rel="stylesheet" type="text/css" href="${s}/swagger-ui.css" />
<link rel="stylesheet" type="text/css" href="${s}/index.css" />
<link rel="icon" type="image/png" href="${s}/favicon-32x32.png" sizes="32x32" />
<link rel="icon" type="image/png" href="${s}/favicon-16x16.png" sizes="16x16" />
</head>
<body>
<div id="swagger-ui"></div>
<script src="${s}/swagger-ui-bundle.js" charset="UTF-8"></script>
<script src="${s}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
<script src="${s}/swagger-initializer.js" charset="UTF-8"></script>
</body>
</html>
`
}

/**
 * Swagger UI's start script. It reads the version from the page's path, so /4.0/api/docs/apidocs shows (and
 * tries) version 4.0, and sends every OAuth redirect to the one redirect page registered for the partners'
 * clients.
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
