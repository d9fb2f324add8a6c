import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import { API_TAGS, SANDBOX_TAGS, apiDescription, sandboxDescription } from '../docs/descriptions.js'
import { buildDocExamples, type DocExamples } from '../docs/examples.js'
import { withInjectedErrors } from '../docs/faults.js'
import { OPTIONAL_BODY, finishOpenApi, finishSwagger2, swagger2Security } from '../docs/openapi.js'
import { DOCS_PATH, POSTMAN_ENVIRONMENT_PATH, POSTMAN_PATH, SANDBOX_DOCS_PATH, SANDBOX_DOC_NAME } from '../docs/paths.js'
import { postmanCollection, postmanEnvironment, type PostmanSettings } from '../docs/postman.js'
import { REALM_PATH, ROUTES } from '../auth/realm.js'
import { securitySchemes, swagger2SecurityDefinitions } from '../docs/security.js'
import { lazySwaggerUi } from '../docs/swagger-ui.js'
import { versionedDocuments } from '../docs/versioned.js'
import { LATEST_VERSION } from '../api-versions.js'
import { pathVersionOf } from './versions.js'

declare module 'fastify' {
  interface FastifyInstance {
    swagger2: FastifyInstance['swagger']
    sandboxSwagger: FastifyInstance['swagger']
  }
}

export interface DocsOptions {
  publicUrl: string
  deprecationDate: string
  /** The Postman files carry the example partner's secret (SANDBOX_PUBLISHED_SECRETS=on); else an empty one to fill in. */
  publishedSecrets: boolean
}

type Json = Record<string, any>

/** Headers of Swagger UI's answer that are its connection's, not the file's: the sandbox's answer sets its own. */
const HOP_BY_HOP = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'])

const isSandboxRoute = (url: string): boolean => url.startsWith('/__sandbox')
const isApiRoute = (url: string): boolean => url.startsWith('/api/') && !url.startsWith('/api/docs')
const only = (keep: (url: string) => boolean) => ({ schema, url }: { schema: any, url: string }) => ({ schema: keep(url) ? schema : { ...schema, hide: true }, url })
/** The control API's routes, their bodies marked optional where the route takes none (config.optionalBody). */
const sandboxOnly = ({ schema, url, route }: { schema: any, url: string, route?: { config?: { optionalBody?: boolean } } }) =>
  !isSandboxRoute(url)
    ? { schema: { ...schema, hide: true }, url }
    : { schema: route?.config?.optionalBody === true && schema?.body !== undefined ? { ...schema, [OPTIONAL_BODY]: true } : schema, url }

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

  // built on first use (the first request for a document), from the default scenario
  let examples: DocExamples | undefined
  const docExamples = (): DocExamples => (examples ??= buildDocExamples(fastify.scenarios, fastify.reference, fastify.initialConfig.bodyLimit ?? 1048576, fastify.prebuilt))

  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info,
      servers: [{ url: publicUrl, description: `latest (${LATEST_VERSION})` }],
      tags: API_TAGS,
      components: { securitySchemes: securitySchemes(publicUrl, false) }
    },
    refResolver,
    transform: only(isApiRoute),
    transformObject: ({ openapiObject }: { openapiObject: Json }) => finishOpenApi(withInjectedErrors(openapiObject, false), docExamples())
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
      tags: API_TAGS,
      securityDefinitions: swagger2SecurityDefinitions(publicUrl)
    },
    refResolver,
    transform: ({ schema, url }: { schema: any, url: string }) => isApiRoute(url)
      ? { schema: { ...schema, security: swagger2Security(schema.security) }, url }
      : { schema: { ...schema, hide: true }, url },
    transformObject: ({ swaggerObject }: { swaggerObject: Json }) => finishSwagger2(withInjectedErrors(swaggerObject, true), docExamples())
  } as never)
  await fastify.register(swagger, {
    decorator: 'sandboxSwagger',
    openapi: {
      openapi: '3.0.3',
      info: {
        title: SANDBOX_DOC_NAME,
        version: '1.0.0',
        description: sandboxDescription(publicUrl),
        contact: info.contact
      },
      servers: [{ url: publicUrl }],
      tags: SANDBOX_TAGS,
      components: { securitySchemes: securitySchemes(publicUrl, true) }
    },
    refResolver,
    transform: sandboxOnly,
    // the examples of the records its snapshot is made of, and of the snapshot itself
    transformObject: ({ openapiObject }: { openapiObject: Json }) => finishOpenApi(openapiObject, docExamples())
  } as never)

  // one generated document per kind; each request gets it as the version of its path presents it
  const presentAs = versionedDocuments(publicUrl, opts.deprecationDate)
  const forVersion = (doc: Json, request: FastifyRequest): Json => presentAs(doc, pathVersionOf(request.raw))

  const wantsJson = (request: FastifyRequest): boolean => {
    const accept = request.headers.accept ?? ''
    return accept.includes('application/json') && !accept.includes('text/html')
  }

  const hidden = { schema: { hide: true }, config: { public: true } }
  const apiDocument = async (request: FastifyRequest): Promise<Json> => forVersion(fastify.swagger() as unknown as Json, request)

  // Swagger UI (@fastify/swagger-ui): the page (the OpenAPI document itself to a client that asks for JSON),
  // its start script, /json, /yaml and the distribution's files, answered by the version's Swagger UI
  const swaggerUi = lazySwaggerUi(fastify, { publicUrl, clientId: 'partner-a', presentAs })
  const sendUi = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const rest = (request.params as { '*'?: string })['*']
    const isPage = rest === undefined || rest === ''
    if (isPage && wantsJson(request)) return await reply.type('application/json; charset=utf-8').send(await apiDocument(request))
    const ui = await swaggerUi(pathVersionOf(request.raw))
    // (the version's path: the version's Swagger UI has its routes there)
    const answer = await ui.inject({ method: request.method as 'GET', url: request.originalUrl, headers: request.headers })
    // an unknown file, or one that climbs out of the distribution (@fastify/static: 403), is an unknown path
    if (answer.statusCode === 404 || answer.statusCode === 403) {
      reply.callNotFound()
      return reply
    }
    if (answer.statusCode >= 500) throw new Error(`Swagger UI answered ${answer.statusCode}: ${answer.body}`)
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value)
    }
    return await reply.code(answer.statusCode).send(answer.rawPayload)
  }
  fastify.get(DOCS_PATH, hidden, sendUi)
  fastify.get(`${DOCS_PATH}/*`, hidden, sendUi)
  fastify.get(`${DOCS_PATH}/openapi.json`, hidden, apiDocument)
  fastify.get(`${DOCS_PATH}/swagger.json`, hidden, async (request) => forVersion(fastify.swagger2() as unknown as Json, request))
  // the Postman collection of the bank's API and its environment (the default partner's credentials, when the
  // scenario's published secrets work here; served without sign-in, so never a secret that works otherwise)
  let collection: Promise<Json> | undefined
  const postmanSettings = (): PostmanSettings => {
    const { partner, agentId } = docExamples()
    return { publicUrl, tokenUrl: `${publicUrl}${REALM_PATH}${ROUTES.token}`, clientId: partner.clientId, clientSecret: opts.publishedSecrets ? partner.secret : '', agentId }
  }
  fastify.get(POSTMAN_PATH, hidden, async (request) => {
    collection ??= postmanCollection(forVersion(fastify.swagger() as unknown as Json, request), postmanSettings())
    return await collection
  })
  fastify.get(POSTMAN_ENVIRONMENT_PATH, hidden, async () => postmanEnvironment(postmanSettings()))
  fastify.get(`${SANDBOX_DOCS_PATH}/openapi.json`, hidden, async () => fastify.sandboxSwagger())
  fastify.get(SANDBOX_DOCS_PATH, hidden, async (_request, reply) => reply.redirect(`${DOCS_PATH}?urls.primaryName=${encodeURIComponent(SANDBOX_DOC_NAME)}`))
  fastify.get('/', hidden, async (_request, reply) => reply.redirect(DOCS_PATH))
}

export default fp(docs, { name: 'sandbox-docs' })
