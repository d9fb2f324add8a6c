import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui'
import { LATEST_VERSION, VERSIONS } from '../api-versions.js'
import { DOCS_PATH, SANDBOX_DOCS_PATH, SANDBOX_DOC_NAME } from './paths.js'

/*
 * Swagger UI, served by @fastify/swagger-ui (the design card's plugin, with the options partners and operators
 * know: uiConfig, initOAuth, theme, staticCSP, transformSpecification) from a Fastify instance of its own, made
 * at the first request of a version's page and kept. A start loads neither the plugin nor @fastify/static
 * (about 100 ms of every start, issue 44): most runs, a CI pipeline's, never open the page. Fastify takes no
 * routes once it listens, so the sandbox's docs routes hand each request to that instance (docs.ts).
 */

type Json = Record<string, any>

/** The page of each version: the unversioned one at DOCS_PATH, then /{version}/api/docs/apidocs. */
export const DOCS_PAGES: ReadonlyArray<{ version: string | undefined, path: string }> = [
  { version: undefined, path: DOCS_PATH },
  ...Object.keys(VERSIONS).map((version) => ({ version, path: `/${version}${DOCS_PATH}` }))
]

/**
 * The OAuth2 redirect page of each version's page, each registered on every partner's client: Swagger UI
 * sends a page's OAuth redirect to the redirect page beside it (@fastify/swagger-ui sets oauth2RedirectUrl
 * so), and the provider accepts only redirect URIs registered.
 */
export const docsRedirectUris = (publicUrl: string): string[] =>
  DOCS_PAGES.map(({ path }) => `${publicUrl}${path}/static/oauth2-redirect.html`)

export interface SwaggerUiSettings {
  publicUrl: string
  /** The partner whose client the Authorize dialog offers (the default scenario's first). */
  clientId: string
  /** A document as a version presents it (versioned.ts; undefined: the unversioned /api/...). */
  presentAs: (doc: Json, version: string | undefined) => Json
}

/**
 * @fastify/swagger-ui's options for one version's page: its two documents (the bank API of that version,
 * the sandbox control API), "Try it out" on, and the Authorize dialog filled with the partner's client,
 * PKCE for the authorization code flow.
 */
export function swaggerUiOptions (version: string | undefined, path: string, settings: SwaggerUiSettings): FastifySwaggerUiOptions {
  const basePath = new URL(settings.publicUrl).pathname.replace(/\/$/, '')
  return {
    routePrefix: path,
    // the page names its files under the sandbox's public path (a proxy may publish it under a path of its own)
    indexPrefix: basePath,
    uiConfig: {
      urls: [
        { url: `${basePath}${path}/json`, name: `Banking Agent REST Service ${version ?? LATEST_VERSION}` },
        { url: `${basePath}${SANDBOX_DOCS_PATH}/openapi.json`, name: SANDBOX_DOC_NAME }
      ],
      deepLinking: true,
      persistAuthorization: false,
      displayRequestDuration: true,
      tryItOutEnabled: true
    },
    initOAuth: { clientId: settings.clientId, scopes: 'openid', usePkceWithAuthorizationCodeGrant: true },
    theme: { title: 'Banking Agent Sandbox API docs' },
    // Swagger UI's own logo (the plugin puts Fastify's in its place unless given another, or none)
    logo: null as never,
    // versioned.ts builds a new document and leaves the generated one as it is: no copy needed
    transformSpecification: (doc) => settings.presentAs(doc, version),
    transformSpecificationClone: false
  }
}

/**
 * The Swagger UI of each version's page, made at its first use: a Fastify instance with @fastify/swagger-ui
 * at that page's path, its documents those of the sandbox's @fastify/swagger (the plugin asks for one).
 */
export function lazySwaggerUi (sandbox: FastifyInstance, settings: SwaggerUiSettings): (version: string | undefined) => Promise<FastifyInstance> {
  const made = new Map<string | undefined, Promise<FastifyInstance>>()
  const make = async (version: string | undefined): Promise<FastifyInstance> => {
    const page = DOCS_PAGES.find((p) => p.version === version)!
    const { default: swaggerUi } = await import('@fastify/swagger-ui')
    // (no logger: the sandbox logs each request, and an answer of 5xx as an error, docs.ts)
    const ui = Fastify()
    // the documents of the sandbox's own @fastify/swagger, under the name @fastify/swagger-ui depends on
    await ui.register(fp(async (scope) => { scope.decorate('swagger', ((opts?: { yaml?: boolean }) => sandbox.swagger(opts as never)) as FastifyInstance['swagger']) }, { name: '@fastify/swagger' }))
    await ui.register(swaggerUi, swaggerUiOptions(version, page.path, settings))
    await ui.ready()
    return ui
  }
  return async (version) => {
    let ui = made.get(version)
    if (ui === undefined) {
      ui = make(version)
      // a failed start is tried again at the next request
      ui.catch(() => made.delete(version))
      made.set(version, ui)
    }
    return await ui
  }
}
