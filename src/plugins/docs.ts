import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { OIDC_PATH, REALM_PATH } from '../auth/realm.js'
import { LATEST_VERSION, VERSIONS, apiVersionOf } from './versions.js'

export const DOCS_PATH = '/api/docs/apidocs'
export const SANDBOX_DOCS_PATH = '/__sandbox/docs'

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

const DECISIONS = [
  'Access tokens are presented as Authorization: Bearer <token> (spec 5 leaves it open); they are RS256 JWTs of the embedded identity provider, which follows Keycloak\'s layout.',
  'Errors are Spring Boot\'s default error body with message and errors[] (spec 7 leaves the shape open); 400 invalid input or missing Agent-Id, 401 token, 403 Agent-Id not bound to the token, 404 unknown or not yours, 405, 413, 415.',
  'Field rules follow Bean Validation: rules of optional fields apply when present, digit counts parse the value as a decimal (@Digits), unknown body properties are ignored.',
  'Paging: page >= 0, size 1 to 2000; every list carries page and sortResponses: [] besides its array.',
  'Products (spec 4.16 shows no path) are served at GET /api/products and /api/products/{productCode}.',
  'Creates answer 200 with the stored record (spec 7). Dates and times are South African Standard Time.',
  'Guarantees (creation "not shown") come from scenarios and the sandbox control API; ids starting VALID-, INVALID-, NOSTATE- and NOTFOUND- answer without set-up.'
]

function apiDescription (): string {
  return 'The Banking Agent REST Service, release 4.1.0, as served by the Banking Agent Sandbox: same paths, fields, validation and OAuth 2.0 / OpenID Connect flow ' +
    'as the bank, over seeded test data.\n\n' +
    `Versions (spec 9): /api/... and /${LATEST_VERSION}/api/... are the latest; ${Object.entries(VERSIONS).filter(([, s]) => s === 'deprecated').map(([v]) => `/${v}`).join(', ')} ` +
    'answer with Deprecation and Link headers; /1.3 without.\n\n' +
    'Where the spec is silent, the sandbox decided:\n' + DECISIONS.map((d) => `- ${d}`).join('\n') + '\n\n' +
    `The sandbox's own control API (resets, fresh agents, guarantees) is documented apart, at ${SANDBOX_DOCS_PATH}.`
}

function securitySchemes (publicUrl: string) {
  const base = `${publicUrl}${REALM_PATH}${OIDC_PATH}`
  const scopes = { openid: 'OpenID Connect', profile: 'name and username', email: 'email address' }
  return {
    sandboxOAuth: {
      type: 'oauth2' as const,
      description: 'The embedded identity provider (Keycloak layout). Default clients: partner-a / partner-a-secret, partner-b / partner-b-secret; ' +
        'test users alice / alice-password (partner-a) and bob / bob-password (partner-b).',
      flows: {
        clientCredentials: { tokenUrl: `${base}/token`, scopes },
        authorizationCode: { authorizationUrl: `${base}/auth`, tokenUrl: `${base}/token`, refreshUrl: `${base}/token`, scopes },
        password: { tokenUrl: `${base}/token`, refreshUrl: `${base}/token`, scopes }
      }
    },
    bearerAuth: { type: 'http' as const, scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token obtained from the token endpoint.' },
    adminToken: { type: 'http' as const, scheme: 'bearer', description: 'The operator token of SANDBOX_ADMIN_TOKEN.' }
  }
}

const isSandboxRoute = (url: string): boolean => url.startsWith('/__sandbox')
const isApiRoute = (url: string): boolean => url.startsWith('/api/') && !url.startsWith('/api/docs')

/** Component names are the schemas' $ids. */
const refResolver = { buildLocalReference: (json: { $id?: unknown }, _base: unknown, _fragment: unknown, i: number) => typeof json.$id === 'string' ? json.$id : `def-${i}` }

/**
 * The published descriptions, generated from the route schemas: OpenAPI 3 and Swagger 2.0 of the bank's
 * API, OpenAPI 3 of the sandbox control API, and Swagger UI at /api/docs/apidocs (and per version).
 */
async function docs (fastify: FastifyInstance, opts: DocsOptions): Promise<void> {
  const { publicUrl } = opts
  const info = { title: 'Banking Agent REST Service (sandbox)', version: '4.1.0', description: apiDescription() }
  const tags = ['accounts', 'banks', 'beneficiaries', 'customers', 'guarantees', 'investment types', 'messages', 'products', 'public accounts'].map((name) => ({ name }))

  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info,
      servers: [{ url: publicUrl, description: `latest (${LATEST_VERSION})` }],
      tags,
      components: { securitySchemes: securitySchemes(publicUrl) }
    },
    refResolver,
    transform: ({ schema, url }) => ({ schema: isApiRoute(url) ? schema : { ...schema, hide: true } as typeof schema, url })
  })
  await fastify.register(swagger, {
    decorator: 'swagger2',
    swagger: {
      info,
      host: new URL(publicUrl).host,
      basePath: new URL(publicUrl).pathname,
      schemes: [new URL(publicUrl).protocol.slice(0, -1)],
      consumes: ['application/json'],
      produces: ['application/json'],
      tags,
      securityDefinitions: {
        sandboxOAuth: { type: 'oauth2', flow: 'application', tokenUrl: securitySchemes(publicUrl).sandboxOAuth.flows.clientCredentials.tokenUrl, scopes: { openid: 'OpenID Connect' } },
        bearerAuth: { type: 'apiKey', name: 'Authorization', in: 'header', description: 'Bearer <access token>' }
      }
    },
    refResolver,
    transform: ({ schema, url }) => ({ schema: isApiRoute(url) ? schema : { ...schema, hide: true } as typeof schema, url })
  })
  await fastify.register(swagger, {
    decorator: 'sandboxSwagger',
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Banking Agent Sandbox control API', version: '1.0.0', description: 'Resets, scenarios, fresh agents, guarantees and operator endpoints of the sandbox. Not part of the bank\'s API.' },
      servers: [{ url: publicUrl }],
      tags: [{ name: 'sandbox' }, { name: 'sandbox operator' }],
      components: { securitySchemes: securitySchemes(publicUrl) }
    },
    refResolver,
    transform: ({ schema, url }) => ({ schema: isSandboxRoute(url) ? schema : { ...schema, hide: true } as typeof schema, url })
  })

  /** The bank API document for the version of the request's path (servers and deprecation differ). */
  function forVersion (spec: Record<string, unknown>, request: FastifyRequest): Record<string, unknown> {
    const version = apiVersionOf(request.raw)
    if (version === LATEST_VERSION && !request.url.startsWith(`/${version}/`)) return spec
    const status = VERSIONS[version]
    const servers = [{ url: `${publicUrl}/${version}`, description: `version ${version} (${status})` }]
    const infoOut = { ...(spec.info as object), version: `${version}.0`, description: `${status === 'deprecated' ? `Version ${version} is deprecated since ${opts.deprecationDate}: move to /api (${LATEST_VERSION}).\n\n` : ''}${info.description}` }
    return { ...spec, info: infoOut, servers }
  }

  const wantsJson = (request: FastifyRequest): boolean => {
    const accept = request.headers.accept ?? ''
    return accept.includes('application/json') && !accept.includes('text/html')
  }

  await fastify.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    initOAuth: { clientId: 'partner-a', scopes: ['openid'], usePkceWithAuthorizationCodeGrant: true },
    uiConfig: {
      oauth2RedirectUrl: `${publicUrl}${DOCS_PATH}/static/oauth2-redirect.html`,
      persistAuthorization: false,
      displayRequestDuration: true,
      tryItOutEnabled: true,
      urls: [
        { url: `${DOCS_PATH}/json`, name: 'Banking Agent REST Service 4.1' },
        { url: `${SANDBOX_DOCS_PATH}/openapi.json`, name: 'Sandbox control API' }
      ]
    },
    // the same path answers the OpenAPI document to a client that asks for JSON
    uiHooks: {
      onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
        if (wantsJson(request) && /\/apidocs\/?$/.test(request.url.split('?')[0])) {
          await reply.type('application/json; charset=utf-8').send(forVersion(fastify.swagger() as unknown as Record<string, unknown>, request))
        }
      }
    },
    transformSpecification: (spec, request) => forVersion(spec as Record<string, unknown>, request) as typeof spec,
    theme: { title: 'Banking Agent Sandbox API docs' }
  })

  const hidden = { schema: { hide: true }, config: { public: true } }
  fastify.get(`${DOCS_PATH}/openapi.json`, hidden, async (request) => forVersion(fastify.swagger() as unknown as Record<string, unknown>, request))
  fastify.get(`${DOCS_PATH}/swagger.json`, hidden, async () => fastify.swagger2())
  fastify.get(`${SANDBOX_DOCS_PATH}/openapi.json`, hidden, async () => fastify.sandboxSwagger())
  fastify.get(SANDBOX_DOCS_PATH, hidden, async (_request, reply) => reply.redirect(`${DOCS_PATH}?urls.primaryName=${encodeURIComponent('Sandbox control API')}`))
  fastify.get('/', hidden, async (_request, reply) => reply.redirect(DOCS_PATH))
}

export default fp(docs, { name: 'sandbox-docs' })
