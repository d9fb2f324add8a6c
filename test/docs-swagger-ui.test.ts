import { createRequire } from 'node:module'
import t from 'tap'
import { VERSIONS } from '../src/api-versions.js'
import { PUBLIC_URL, build } from './helper.js'

/*
 * The docs pages are @fastify/swagger-ui's (the design card's plugin), one per version, loaded at the first
 * request of a page: its options take effect (uiConfig, initOAuth, theme, transformSpecification), its files
 * and its OAuth2 redirect page are under every version's page, and that redirect page is one the embedded
 * provider accepts, so "Authorize" (code flow with PKCE) works from every version's page.
 */

const PAGES = ['/api/docs/apidocs', ...Object.keys(VERSIONS).map((v) => `/${v}/api/docs/apidocs`)]
const OIDC = '/auth/realms/sandbox/protocol/openid-connect'
const loaded = (name: string): boolean => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes(`/node_modules/${name}/`))

t.test('a start loads neither @fastify/swagger-ui nor @fastify/static; the first page request does', async (t) => {
  const app = await build(t)
  await app.ready()
  t.notOk(loaded('@fastify/swagger-ui'), 'not at start')
  t.notOk(loaded('@fastify/static'), 'not at start')
  t.equal((await app.inject({ url: '/api/docs/apidocs/openapi.json' })).statusCode, 200)
  t.notOk(loaded('@fastify/swagger-ui'), 'nor for the documents')
  t.equal((await app.inject({ url: '/api/docs/apidocs', headers: { accept: 'text/html' } })).statusCode, 200)
  t.ok(loaded('@fastify/swagger-ui'), 'the page is the plugin\'s')
  t.ok(loaded('@fastify/static'), 'and so are its files')
})

t.test("every version's page is @fastify/swagger-ui's, with the sandbox's uiConfig, initOAuth and theme", async (t) => {
  const app = await build(t)
  for (const page of PAGES) {
    const version = /^\/([\d.]+)\//.exec(page)?.[1] ?? '4.1'
    const html = await app.inject({ url: page, headers: { accept: 'text/html' } })
    t.equal(html.statusCode, 200, page)
    t.match(html.body, /<title>Banking Agent Sandbox API docs<\/title>/, `${page}: theme.title`)
    const init = await app.inject({ url: `${page}/static/swagger-initializer.js` })
    t.equal(init.statusCode, 200)
    // the plugin's start script: its config is uiConfig as given, the redirect page the one beside the page
    const config = JSON.parse(/const config = (\{.*\})\n/.exec(init.body)?.[1] ?? 'null')
    t.same(config?.urls, [
      { url: `${page}/json`, name: `Banking Agent REST Service ${version}` },
      { url: '/__sandbox/docs/openapi.json', name: 'Sandbox control API' }
    ], `${page}: uiConfig.urls, the version's document and the control API's`)
    t.match(config, { deepLinking: true, tryItOutEnabled: true, displayRequestDuration: true, persistAuthorization: false })
    t.match(init.body, "oauth2RedirectUrl: resolveUrl('./static/oauth2-redirect.html')", `${page}: the plugin's redirect page`)
    t.match(init.body, 'ui.initOAuth({"clientId":"partner-a","scopes":"openid","usePkceWithAuthorizationCodeGrant":true})', `${page}: initOAuth`)
    // transformSpecification: the page's /json is the document of its version
    t.equal((await app.inject({ url: `${page}/json` })).json().info.version, version === '4.1' ? '4.1.0' : `${version}.0`, `${page}: its version's document`)
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css', 'oauth2-redirect.html', 'oauth2-redirect.js']) {
      t.equal((await app.inject({ url: `${page}/static/${file}` })).statusCode, 200, `${page}/static/${file}`)
    }
  }
})

t.test("every version page's OAuth2 redirect page is accepted by the embedded provider (code flow with PKCE)", async (t) => {
  const app = await build(t)
  for (const page of PAGES) {
    const redirectUri = `${PUBLIC_URL}${page}/static/oauth2-redirect.html`
    const query = new URLSearchParams({ client_id: 'partner-a', response_type: 'code', scope: 'openid', redirect_uri: redirectUri, state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })
    const auth = await app.inject({ url: `${OIDC}/auth?${query.toString()}` })
    t.equal(auth.statusCode, 303, `${page}: to the login page`)
    t.notMatch(auth.headers.location, /error=/, `${page}: no error`)
  }
  const other = new URLSearchParams({ client_id: 'partner-a', response_type: 'code', scope: 'openid', redirect_uri: `${PUBLIC_URL}/9.9/api/docs/apidocs/static/oauth2-redirect.html`, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })
  t.equal((await app.inject({ url: `${OIDC}/auth?${other.toString()}` })).statusCode, 400, 'a page that is no version\'s is not a redirect URI')
})
