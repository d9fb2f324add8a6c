import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { REALM_PATH, ROUTES } from '../auth/realm.js'
import { buildDocExamples, type DocExamples } from '../docs/examples.js'
import { SWAGGER2_OAUTH, finishOpenApi, finishSwagger2, swagger2Security } from '../docs/openapi.js'
import { LATEST_VERSION, VERSIONS, pathVersionOf } from './versions.js'

export const DOCS_PATH = '/api/docs/apidocs'
export const SANDBOX_DOCS_PATH = '/__sandbox/docs'
export const SANDBOX_DOC_NAME = 'Sandbox control API'

declare module 'fastify' {
  interface FastifyInstance {
    swagger2: FastifyInstance['swagger']
    sandboxSwagger: FastifyInstance['swagger']
  }
}

export interface DocsOptions {
  publicUrl: string
  deprecationDate: string
}

type Json = Record<string, any>

/** design.md "Decisions where the spec is silent", as the documents state them. */
const DECISIONS = [
  'Authentication (spec 5 "not shown"): access tokens are sent as `Authorization: Bearer <access token>`. They are RS256 JWTs of the embedded identity provider, which follows Keycloak\'s layout ' +
    `(issuer {server}${REALM_PATH}, discovery at ${REALM_PATH}/.well-known/openid-configuration). Grants: client_credentials (scope=openid accepted), authorization_code with PKCE for test users, ` +
    'password (Keycloak\'s direct access grant), refresh_token.',
  'Tenancy: a partner is an OAuth client owning agents; the Agent-Id header must name one of them (one of the user\'s agents for a user token). A record of another agent or partner is a 404, exactly like one that does not exist.',
  'Errors (spec 7 "not shown"): Spring Boot\'s default error body (ErrorBody) with message and errors[] in Hibernate Validator\'s wording; the X-Sandbox-Error header names the cause. ' +
    '400 invalid input or missing Agent-Id, 401 missing or invalid token, 403 Agent-Id not bound to the token, 404 unknown or not yours, 405 wrong method, 406 an Accept header without JSON, ' +
    '408 a request too slow to arrive, 413 body too large, 415 not JSON, 503 overloaded. A JSON null counts as absent.',
  'Validation follows Bean Validation: rules of optional fields apply only when present; digit counts (@Digits) parse the value as a decimal number; sizes count characters; unknown body properties are ignored. ' +
    'Rules JSON Schema cannot say (South African ID number, company registration number, name2 of individuals, known bank, product and investment type, default customer not repeated) are checked too and reported the same way.',
  'Paging (spec 2.1): page >= 0, size 1 to 2000 (the maximum is the sandbox\'s); every list carries page and sortResponses: [] besides its named array, even where the spec\'s samples show only the array.',
  'Creates answer 200 with the stored record (spec 7). Dates and times are South African Standard Time.',
  'Products (spec 4.16 shows no path) are served at GET /api/products and GET /api/products/{productCode}.',
  'Guarantees: creating one is "not shown"; they come from the scenarios and the sandbox control API, and ids starting VALID-, INVALID-, NOSTATE- and NOTFOUND- answer without any set-up.'
]

const deprecatedVersions = Object.entries(VERSIONS).filter(([, s]) => s === 'deprecated').map(([v]) => `/${v}`)

function apiDescription (publicUrl: string): string {
  return 'The Banking Agent REST Service, release 4.1.0, as served by the Banking Agent Sandbox: the same paths, fields, validation and OAuth 2.0 / OpenID Connect flows ' +
    'as the bank, over seeded test data. Every operation cites its section of the specification.\n\n' +
    `Versions (spec 9): /api/... and /${LATEST_VERSION}/api/... are the latest; ${deprecatedVersions.join(', ')} serve the same operations with a Deprecation header ` +
    '(RFC 9745) and a Link rel="deprecation" to their documentation; /1.3 serves them without. Each version has its documents at /{version}/api/docs/apidocs.\n\n' +
    'Try it: Authorize with the client credentials of partner-a (partner-a / partner-a-secret) or as test user alice (alice-password), then send Agent-Id 1001. ' +
    'The examples are the default data set (scenario default): customer 1001100000001, its accounts, beneficiaries and messages.\n\n' +
    'Where the spec is silent, the sandbox decided:\n' + DECISIONS.map((d) => `- ${d}`).join('\n') + '\n\n' +
    `The sandbox's own control API (resets, fresh agents, guarantees) has its own document: ${publicUrl}${SANDBOX_DOCS_PATH}/openapi.json.`
}

const SCOPES = { openid: 'OpenID Connect', profile: 'name and username', email: 'email address' }

function oauthUrls (publicUrl: string): { authorizationUrl: string, tokenUrl: string } {
  return { authorizationUrl: `${publicUrl}${REALM_PATH}${ROUTES.authorization}`, tokenUrl: `${publicUrl}${REALM_PATH}${ROUTES.token}` }
}

function securitySchemes (publicUrl: string, withAdmin: boolean): Json {
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

function swagger2SecurityDefinitions (publicUrl: string): Json {
  const { authorizationUrl, tokenUrl } = oauthUrls(publicUrl)
  const description = 'The embedded identity provider (see the OpenAPI 3 document for the test clients and users).'
  return {
    [SWAGGER2_OAUTH.application]: { type: 'oauth2', flow: 'application', tokenUrl, scopes: SCOPES, description },
    [SWAGGER2_OAUTH.accessCode]: { type: 'oauth2', flow: 'accessCode', authorizationUrl, tokenUrl, scopes: SCOPES, description: `${description} Needs PKCE (S256).` },
    [SWAGGER2_OAUTH.password]: { type: 'oauth2', flow: 'password', tokenUrl, scopes: SCOPES, description },
    bearerAuth: { type: 'apiKey', name: 'Authorization', in: 'header', description: '`Authorization: Bearer <access token>`' }
  }
}

const isSandboxRoute = (url: string): boolean => url.startsWith('/__sandbox')
const isApiRoute = (url: string): boolean => url.startsWith('/api/') && !url.startsWith('/api/docs')
const only = (keep: (url: string) => boolean) => ({ schema, url }: { schema: any, url: string }) => ({ schema: keep(url) ? schema : { ...schema, hide: true }, url })

/** Component names are the schemas' $ids. */
const refResolver = { buildLocalReference: (json: { $id?: unknown }, _base: unknown, _fragment: unknown, i: number) => typeof json.$id === 'string' ? json.$id : `def-${i}` }

/**
 * The published descriptions, generated from the route schemas: OpenAPI 3 and Swagger 2.0 of the bank's
 * API, OpenAPI 3 of the sandbox control API, and Swagger UI at /api/docs/apidocs (and per version).
 */
async function docs (fastify: FastifyInstance, opts: DocsOptions): Promise<void> {
  const { publicUrl } = opts
  const info = {
    title: 'Banking Agent REST Service (sandbox)',
    version: '4.1.0',
    description: apiDescription(publicUrl),
    contact: { name: 'Banking Agent Sandbox', url: `${publicUrl}${DOCS_PATH}` }
  }
  const tags = [
    ['accounts', 'spec 4.1 to 4.3'], ['banks', 'spec 4.4'], ['beneficiaries', 'spec 4.5 to 4.7'], ['customers', 'spec 4.8 to 4.11'], ['messages', 'spec 4.12'],
    ['guarantees', 'spec 4.13 (no authentication)'], ['investment types', 'spec 4.14'], ['public accounts', 'spec 4.15'], ['products', 'spec 4.16 (path assumed by the sandbox)']
  ].map(([name, description]) => ({ name, description }))

  // built on first use (the first request for a document), from the default scenario
  let examples: DocExamples | undefined
  const docExamples = (): DocExamples => (examples ??= buildDocExamples(fastify.scenarios, fastify.reference, fastify.initialConfig.bodyLimit ?? 1048576))

  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info,
      servers: [{ url: publicUrl, description: `latest (${LATEST_VERSION})` }],
      tags,
      components: { securitySchemes: securitySchemes(publicUrl, false) }
    },
    refResolver,
    transform: only(isApiRoute),
    transformObject: ({ openapiObject }: { openapiObject: Json }) => finishOpenApi(openapiObject, docExamples())
  } as never)
  const url = new URL(publicUrl)
  await fastify.register(swagger, {
    decorator: 'swagger2',
    swagger: {
      info,
      host: url.host,
      basePath: url.pathname,
      schemes: [url.protocol.slice(0, -1)],
      consumes: ['application/json'],
      produces: ['application/json'],
      tags,
      securityDefinitions: swagger2SecurityDefinitions(publicUrl)
    },
    refResolver,
    transform: ({ schema, url }: { schema: any, url: string }) => isApiRoute(url)
      ? { schema: { ...schema, security: swagger2Security(schema.security) }, url }
      : { schema: { ...schema, hide: true }, url },
    transformObject: ({ swaggerObject }: { swaggerObject: Json }) => finishSwagger2(swaggerObject, docExamples())
  } as never)
  await fastify.register(swagger, {
    decorator: 'sandboxSwagger',
    openapi: {
      openapi: '3.0.3',
      info: {
        title: SANDBOX_DOC_NAME,
        version: '1.0.0',
        description: 'Resets, scenarios, fresh agents, guarantees and operator endpoints of the Banking Agent Sandbox. Not part of the bank\'s API ' +
          `(documented at ${publicUrl}${DOCS_PATH}). Partner endpoints take any access token of the partner and no Agent-Id; operator endpoints under /__sandbox/admin ` +
          'take the operator token and are off unless SANDBOX_ADMIN_TOKEN is set. Errors use the same ErrorBody as the bank\'s API.',
        contact: info.contact
      },
      servers: [{ url: publicUrl }],
      tags: [{ name: 'sandbox', description: 'What a partner does to its own data' }, { name: 'sandbox operator', description: 'Operator endpoints (SANDBOX_ADMIN_TOKEN)' }],
      components: { securitySchemes: securitySchemes(publicUrl, true) }
    },
    refResolver,
    transform: only(isSandboxRoute),
    transformObject: ({ openapiObject }: { openapiObject: Json }) => finishOpenApi(openapiObject)
  } as never)

  /** The document for the version of the request's path: its server, and deprecation where spec 9 says so. */
  function forVersion (doc: Json, request: FastifyRequest): Json {
    const version = pathVersionOf(request.raw)
    if (version === undefined) return doc
    const status = VERSIONS[version]
    const deprecated = status === 'deprecated'
    const note = deprecated
      ? `Version ${version} is deprecated (Deprecation: ${opts.deprecationDate}): its operations answer with Deprecation and Link headers. Move to /api/... (${LATEST_VERSION}).\n\n`
      : `Version ${version} (${status}) serves the operations of ${LATEST_VERSION}.\n\n`
    const infoOut = { ...doc.info, version: `${version}.0`, description: `${note}${doc.info.description as string}` }
    const paths = deprecated
      ? Object.fromEntries(Object.entries(doc.paths as Json).map(([p, item]) => [p, Object.fromEntries(Object.entries(item as Json).map(([m, op]) => [m, { ...op, deprecated: true }]))]))
      : doc.paths
    const location = doc.swagger === undefined
      ? { servers: [{ url: `${publicUrl}/${version}`, description: `version ${version} (${status})` }] }
      : { basePath: `${url.pathname.replace(/\/$/, '')}/${version}` }
    return { ...doc, info: infoOut, paths, ...location }
  }

  const wantsJson = (request: FastifyRequest): boolean => {
    const accept = request.headers.accept ?? ''
    return accept.includes('application/json') && !accept.includes('text/html')
  }
  const oauth2RedirectUrl = `${publicUrl}${DOCS_PATH}/static/oauth2-redirect.html`
  const initializer = swaggerInitializer(url.pathname.replace(/\/$/, ''), oauth2RedirectUrl)

  await fastify.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    uiHooks: {
      onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
        const path = request.url.split('?')[0]
        // the same path answers the OpenAPI document to a client that asks for JSON
        if (wantsJson(request) && /\/apidocs\/?$/.test(path)) {
          await reply.type('application/json; charset=utf-8').send(forVersion(fastify.swagger() as unknown as Json, request))
        } else if (path.endsWith('/static/swagger-initializer.js')) {
          await reply.type('application/javascript; charset=utf-8').send(initializer)
        }
      }
    },
    transformSpecification: (spec, request) => forVersion(spec as Json, request) as typeof spec,
    theme: { title: 'Banking Agent Sandbox API docs' }
  })

  const hidden = { schema: { hide: true }, config: { public: true } }
  fastify.get(`${DOCS_PATH}/openapi.json`, hidden, async (request) => forVersion(fastify.swagger() as unknown as Json, request))
  fastify.get(`${DOCS_PATH}/swagger.json`, hidden, async (request) => forVersion(fastify.swagger2() as unknown as Json, request))
  fastify.get(`${SANDBOX_DOCS_PATH}/openapi.json`, hidden, async () => fastify.sandboxSwagger())
  fastify.get(SANDBOX_DOCS_PATH, hidden, async (_request, reply) => reply.redirect(`${DOCS_PATH}?urls.primaryName=${encodeURIComponent(SANDBOX_DOC_NAME)}`))
  fastify.get('/', hidden, async (_request, reply) => reply.redirect(DOCS_PATH))
}

/**
 * Swagger UI's start script. The one @fastify/swagger-ui writes is the same for every page; this one reads
 * the version from the page's path, so /4.0/api/docs/apidocs shows (and tries) version 4.0, and sends every
 * OAuth redirect to the one redirect page registered for the partners' clients.
 */
function swaggerInitializer (basePath: string, oauth2RedirectUrl: string): string {
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

export default fp(docs, { name: 'sandbox-docs' })
