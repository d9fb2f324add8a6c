import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import FindMyWay from 'find-my-way'
import type { ErrorObject } from 'ajv'
import { SandboxError, codeForStatus, errorBody, validationFailed } from '../errors.js'
import './validation.js'
import { fieldErrorsFromAjv } from '../schemas/validation.js'
import type { Reference } from '../schemas/reference.js'
import { requestPath } from '../path-patterns.js'
import { partnerNow } from './auth.js'
import { KNOWN_VERSION_PATH, UNKNOWN_VERSION_PATH } from '../api-versions.js'

type ValidationError = FastifyError & { validation: ErrorObject[], validationContext: string }

function fromValidation (error: ValidationError, request: FastifyRequest, ref: Reference): SandboxError {
  const context = error.validationContext
  const fieldErrors = fieldErrorsFromAjv(error.validation)
  if (context === 'headers' && fieldErrors.some((e) => e.field === 'Agent-Id' && e.code === 'NotNull')) {
    return new SandboxError('SANDBOX_ERR_AGENT_ID_MISSING', "Required request header 'Agent-Id' for method parameter type String is not present")
  }
  if (context === 'body' && (request.body === undefined || request.body === null)) {
    return new SandboxError('SANDBOX_ERR_BODY_MISSING', 'Required request body is missing')
  }
  const config = request.routeOptions.config
  const root = context === 'body' ? (error.validation as ErrorObject[]).find((e) => e.instancePath === '' && e.keyword === 'type') : undefined
  if (root !== undefined) {
    // Jackson cannot bind an array, string or number to the request object: a parse error, not a field error
    const kind = Array.isArray(root.data) ? 'Array' : typeof root.data === 'string' ? 'String' : typeof root.data === 'boolean' ? 'Boolean' : 'Number'
    return new SandboxError('SANDBOX_ERR_MALFORMED_JSON', `JSON parse error: Cannot deserialize value of type \`${config.objectName ?? 'request'}\` from ${kind} value`)
  }
  if (context === 'body' && config.rules !== undefined) {
    // Bean Validation reports every violation at once: add the rule violations of fields the schema passed
    const failed = new Set(fieldErrors.map((e) => e.field))
    for (const e of config.rules(request.body, ref, partnerNow(request))) if (!failed.has(e.field)) fieldErrors.push(e)
  }
  if (context === 'body') return validationFailed(config.objectName ?? 'request', fieldErrors)
  // parameters and headers: Spring's ConstraintViolationException wording, "field: message"
  return new SandboxError('SANDBOX_ERR_VALIDATION', fieldErrors.map((e) => `${e.field}: ${e.defaultMessage}`).join(', '), fieldErrors)
}

/** Maps anything thrown to an entry of the catalogue; unknown faults become a bare 500. */
function toSandboxError (error: FastifyError, request: FastifyRequest, ref: Reference): SandboxError {
  if (error instanceof SandboxError) return error
  if ((error as ValidationError).validation !== undefined) return fromValidation(error as ValidationError, request, ref)
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new SandboxError('SANDBOX_ERR_MEDIA_TYPE', `Content-Type '${request.headers['content-type'] ?? ''}' is not supported; send application/json`)
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new SandboxError('SANDBOX_ERR_BODY_TOO_LARGE', `Request body is larger than the limit of ${request.routeOptions.bodyLimit ?? 0} bytes`)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new SandboxError('SANDBOX_ERR_BODY_MISSING', 'Required request body is missing')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new SandboxError('SANDBOX_ERR_MALFORMED_JSON', 'JSON parse error: the request body is not valid JSON')
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new SandboxError('SANDBOX_ERR_MALFORMED_JSON', `JSON parse error: ${error.message}`)
  }
  if (error.statusCode === 403 || error.statusCode === 404) {
    // the docs' static file server refuses a path that climbs out of its folder ('../') with a bare 403:
    // to the client that is no endpoint, as any other path that names nothing
    return noEndpoint(request)
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // Fastify's own client errors (content length, bad URL...): their messages name no internals
    return new SandboxError(codeForStatus(error.statusCode), error.message)
  }
  return new SandboxError('SANDBOX_ERR_INTERNAL', 'Internal Server Error')
}

function noEndpoint (request: FastifyRequest): SandboxError {
  return new SandboxError('SANDBOX_ERR_ROUTE_NOT_FOUND', `No endpoint ${request.method} ${requestPath(request)}`)
}

export function sendError (reply: FastifyReply, request: FastifyRequest, err: SandboxError): FastifyReply {
  return reply
    .code(err.statusCode)
    .headers(err.headers)
    .header('x-sandbox-error', err.code)
    .type('application/json; charset=utf-8')
    .send(errorBody(err.statusCode, err.message, requestPath(request), err.fieldErrors, partnerNow(request)))
}

/**
 * Errors the router raises before any route or hook runs (serverOptions.frameworkErrors: a path that is not
 * valid percent-encoding, a path segment over maxParamLength): Fastify's own body would leave Spring's shape.
 */
export function frameworkError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 500
  const err = error.code === 'FST_ERR_BAD_URL'
    ? new SandboxError('SANDBOX_ERR_VALIDATION', 'The request path is not a valid URL: bad percent-encoding')
    : status === 414
      ? new SandboxError('SANDBOX_ERR_URI_TOO_LONG', 'A segment of the request path is longer than 8192 characters')
      : status >= 500 ? new SandboxError('SANDBOX_ERR_INTERNAL', 'Internal Server Error') : new SandboxError(codeForStatus(status), error.message)
  reply.header('x-request-id', request.id)
  sendError(reply, request, err)
}

/**
 * The one place error bodies are made: the error handler (every thrown or validation error), the
 * not-found handler (404, or 405 with Allow when the path exists for other methods).
 */
async function errorsPlugin (fastify: FastifyInstance, opts: { reference: Reference }): Promise<void> {
  // every route is also kept in a router of its own, to tell 405 (path exists) from 404
  const routes = FindMyWay({ ignoreTrailingSlash: false })
  const methods = new Set<string>()
  fastify.addHook('onRoute', (route) => {
    const list = Array.isArray(route.method) ? route.method : [route.method]
    for (const m of list) {
      methods.add(m)
      try {
        routes.on(m as never, route.url, () => {})
      } catch { /* the same path registered twice (prefixed copies): already known */ }
    }
  })

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    const err = toSandboxError(error, request, opts.reference)
    if (err.statusCode >= 500 && err.code === 'SANDBOX_ERR_INTERNAL') request.log.error({ err: error }, 'unexpected error')
    // a flood of 429s must stay cheap: its request line (status 429) says enough
    else if (err.statusCode !== 429) request.log.info({ code: err.code, status: err.statusCode }, err.message)
    return sendError(reply, request, err)
  })

  fastify.setNotFoundHandler((request, reply) => {
    const path = requestPath(request)
    if (UNKNOWN_VERSION_PATH.test(path) && !KNOWN_VERSION_PATH.test(path)) {
      const version = path.split('/')[1]
      return sendError(reply, request, new SandboxError('SANDBOX_ERR_VERSION_NOT_FOUND', `API version ${version} does not exist`))
    }
    const routeUrl = request.url.split('?')[0]
    // a route of this very method matched and found nothing there (a static file that is not): a 404
    if (routes.find(request.method as never, routeUrl, {}) !== null) return sendError(reply, request, noEndpoint(request))
    const allowed = [...methods].filter((m) => m !== request.method && routes.find(m as never, routeUrl, {}) !== null)
    if (allowed.length > 0) {
      return sendError(reply, request, new SandboxError('SANDBOX_ERR_METHOD_NOT_ALLOWED', `Request method '${request.method}' is not supported`, [], { allow: allowed.join(', ') }))
    }
    return sendError(reply, request, noEndpoint(request))
  })
}

export default fp(errorsPlugin, { name: 'sandbox-errors' })
