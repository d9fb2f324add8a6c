import { generateKeyPairSync, randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { SignJWT, decodeJwt, decodeProtectedHeader, importPKCS8, type JWTHeaderParameters, type JWTPayload } from 'jose'
import { loadConfig, type Config } from '../src/config.js'
import { isHibernateEmail } from '../src/schemas/email-format.js'
import { buildServer } from '../src/server.js'
import { freePort } from './ports.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

// One signing key for the whole test process: generating RSA keys for every app would dominate the run.
export const SIGNING_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

export const PUBLIC_URL = 'http://sandbox.test'

/** The real app (in memory, default scenario unless overridden), closed when the test ends. */
export async function build (t: Test, overrides: Partial<Record<keyof Config, unknown>> = {}): Promise<FastifyInstance> {
  // tests are not about overload (test/operations.test.ts sets its own limit): on a shared, busy CI
  // machine a test process can fall a second behind, which the overload guard would rightly answer 503
  // the management port (metrics) on a free port: tests that listen run side by side
  const config = loadConfig({ logLevel: 'silent', signingKey: SIGNING_KEY, publicUrl: PUBLIC_URL, maxEventLoopDelay: 60000, managementPort: 0, ...overrides })
  const app = await buildServer(config, (fastify) => {
    fastify.addHook('onResponse', (request, _reply, done) => {
      routeOf.set(request.id, request.routeOptions.url)
      done()
    })
  })
  t.teardown(() => app.close())
  return app
}

const routeOf = new Map<string, string | undefined>()

export { freePort }

/** The real app listening on 127.0.0.1 over HTTP, its public URL the one clients use; closed when the test ends. */
export async function listen (t: Test, overrides: Partial<Record<keyof Config, unknown>> = {}): Promise<{ app: FastifyInstance, base: string }> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const app = await build(t, { port, host: '127.0.0.1', publicUrl: base, ...overrides })
  await app.listen({ port, host: '127.0.0.1' })
  return { app, base }
}

export const TOKEN_PATH = '/auth/realms/sandbox/protocol/openid-connect/token'

export interface Credentials { client: string, secret: string }
/** A beneficiary request that passes every rule (bank 22 is a bank of fixtures/banks.json). */
export const BENEFICIARY_REQUEST = {
  name: 'SIPHO NDLOVU',
  bankCode: '22',
  accountType: 'C',
  accountNumber: '0123456789',
  beneficiaryReference: 'RENT MARCH',
  clientReference: 'NDLOVU RENT',
  accountCategory: '3RD PARTY'
}

export const PARTNER_A: Credentials = { client: 'partner-a', secret: 'partner-a-secret' }
export const PARTNER_B: Credentials = { client: 'partner-b', secret: 'partner-b-secret' }

const tokens = new WeakMap<FastifyInstance, Map<string, string>>()

/** A client-credentials access token of a partner (cached per app). */
export async function tokenFor (app: FastifyInstance, who: Credentials = PARTNER_A): Promise<string> {
  let cache = tokens.get(app)
  if (cache === undefined) tokens.set(app, cache = new Map())
  // by client id and secret: a client id registered again (after a delete) is another client
  const key = `${who.client}\u0000${who.secret}`
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  const res = await app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers: { authorization: `Basic ${Buffer.from(`${who.client}:${who.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&scope=openid'
  })
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`)
  const token = (res.json() as { access_token: string }).access_token
  cache.set(key, token)
  return token
}

/**
 * A client-credentials token of the shortest lifetime the sandbox issues (SANDBOX_TOKEN_TTL 10), from an app
 * like build()'s: the same key and public URL, so every app of build() takes it as its own.
 */
export async function shortLivedToken (t: Test, who: Credentials = PARTNER_A): Promise<string> {
  return await tokenFor(await build(t, { tokenTtl: 10 }), who)
}

/** Waits until a token has expired: from the second of its exp on, the sandbox refuses it. */
export async function expiryOf (token: string): Promise<void> {
  const wait = Number(decodeJwt(token).exp) * 1000 - Date.now() + 20
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
}

let otherKey: string | undefined
/** An RSA key that is not the sandbox's (made at first use: most test files never need one). */
export function anotherKey (): string {
  otherKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  return otherKey
}

/**
 * A token the sandbox issued, with one thing changed (claims, JOSE header, or the key: the sandbox's own
 * by default), signed again with a new jti: the look-alikes a verifier must tell from the real thing.
 */
export async function resign (token: string, change: { claims?: JWTPayload, header?: Partial<JWTHeaderParameters>, key?: string } = {}): Promise<string> {
  const header = { ...decodeProtectedHeader(token), ...change.header } as JWTHeaderParameters
  return await new SignJWT({ ...decodeJwt(token), jti: randomUUID(), ...change.claims })
    .setProtectedHeader(header)
    .sign(await importPKCS8(change.key ?? SIGNING_KEY, 'RS256'))
}

/** A token the sandbox issued, unsigned: header alg "none", the same claims, no signature. */
export function unsigned (token: string): string {
  const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url')
  return `${b64({ ...decodeProtectedHeader(token), alg: 'none' })}.${b64({ ...decodeJwt(token), jti: randomUUID() })}.`
}

/** A password-grant token of a test user. */
export async function userToken (app: FastifyInstance, username: string, password: string, who: Credentials = PARTNER_A): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers: { authorization: `Basic ${Buffer.from(`${who.client}:${who.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'password', username, password, scope: 'openid' }).toString()
  })
  if (res.statusCode !== 200) throw new Error(`password grant failed: ${res.statusCode} ${res.body}`)
  return (res.json() as { access_token: string }).access_token
}

export interface ApiRequest {
  method?: InjectOptions['method']
  url: string
  /** Agent-Id header; null sends none. Default 1001. */
  agent?: string | null
  /** Bearer token; null sends none. Default: partner-a's client-credentials token. */
  token?: string | null
  body?: unknown
  headers?: Record<string, string>
}

/**
 * A request to the API as a partner makes it. Every answer is also checked against the published
 * OpenAPI document (declared status, body schema): docs and behaviour cannot drift apart unnoticed.
 */
export async function api (app: FastifyInstance, req: ApiRequest): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...req.headers }
  const token = req.token === undefined ? await tokenFor(app) : req.token
  if (token !== null) headers.authorization = `Bearer ${token}`
  const agent = req.agent === undefined ? '1001' : req.agent
  if (agent !== null) headers['agent-id'] = agent
  const res = await app.inject({
    method: req.method ?? (req.body === undefined ? 'GET' : 'POST'),
    url: req.url,
    headers,
    ...(req.body === undefined ? {} : { payload: req.body as InjectOptions['payload'] })
  })
  checkAgainstDocs(app, req.method ?? (req.body === undefined ? 'GET' : 'POST'), res)
  return res
}

const docValidators = new WeakMap<FastifyInstance, { ajv: Ajv, doc: OpenApiDoc }>()
interface OpenApiDoc { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> }

/** What the check reads of an answer: app.inject's response, or one that came over HTTP. */
export interface Answer { statusCode: number, headers: Record<string, unknown>, body: string }

function escapePointer (s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1')
}

/**
 * A copy of a document with every object schema closed (additionalProperties: false where it says nothing):
 * a property an answer carries that its object does not declare is then an error, as a generated client
 * or a contract tester reading the document sees it. An allOf of two objects can never pass closed: each
 * object of the documents declares all of its properties itself.
 */
function closed (node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed)
  if (typeof node !== 'object' || node === null) return node
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'example' || k === 'examples' ? v : closed(v)]))
  if (typeof out.properties === 'object' && out.properties !== null && out.additionalProperties === undefined) out.additionalProperties = false
  return out
}

/**
 * Throws when an answer of a documented route (the bank's API or the control API) has an undeclared status,
 * a content type the status does not declare, or a JSON body off its schema, a property the schema does not
 * declare included.
 */
export function checkAgainstDocs (app: FastifyInstance, method: string, res: Answer): void {
  const route = routeOf.get(String(res.headers['x-request-id']))
  if (route === undefined || !(route.startsWith('/api/') || route.startsWith('/__sandbox/')) || route.startsWith('/api/docs') || route.startsWith('/__sandbox/docs')) return
  let entry = docValidators.get(app)
  if (entry === undefined) {
    const ajv = new Ajv({ strict: false, allErrors: true })
    addFormats(ajv)
    // the document's email format is Hibernate Validator's @Email, as the field descriptions say
    ajv.addFormat('email', isHibernateEmail)
    const bank = closed(app.swagger()) as OpenApiDoc
    const sandbox = closed(app.sandboxSwagger()) as OpenApiDoc
    const doc = { paths: { ...bank.paths, ...sandbox.paths } }
    ajv.addSchema({ ...bank, $id: 'bank' })
    ajv.addSchema({ ...sandbox, $id: 'sandbox' })
    docValidators.set(app, entry = { ajv, doc })
  }
  const path = route.replace(/:(\w+)/g, '{$1}')
  const op = entry.doc.paths[path]?.[method.toLowerCase()]
  if (op === undefined) throw new Error(`${method} ${path} is not in the published document`)
  const status = String(res.statusCode)
  // an injected fault's status (issue 11) is the operation's default response
  const key = op.responses[status] === undefined && Number(status) >= 400 && op.responses.default !== undefined ? 'default' : status
  const response = op.responses[key]
  if (response === undefined) throw new Error(`${method} ${path} answered ${status}, which the document does not declare: ${res.body}`)
  if (response.content === undefined || res.body === '') return
  const media = String(res.headers['content-type'] ?? '').split(';')[0].trim()
  if (response.content[media] === undefined) throw new Error(`${method} ${path} ${status} answered ${media}, which the document does not declare (${Object.keys(response.content).join(', ')})`)
  if (media !== 'application/json') return
  const base = path.startsWith('/__sandbox') ? 'sandbox' : 'bank'
  const pointer = `${base}#/paths/${escapePointer(path)}/${method.toLowerCase()}/responses/${key}/content/${escapePointer(media)}/schema`
  const validate: ValidateFunction | undefined = entry.ajv.getSchema(pointer)
  if (validate === undefined) throw new Error(`no schema at ${pointer}`)
  if (validate(JSON.parse(res.body)) !== true) {
    const errors = validate.errors ?? []
    const described = errors.slice(0, 5).map((e) => `${e.instancePath} ${e.message ?? ''}${e.params.additionalProperty === undefined ? '' : ` (${String(e.params.additionalProperty)})`}`)
    throw new Error(`${method} ${path} ${status} does not match the published schema: ${described.join(', ')}${errors.length > 5 ? ` and ${errors.length - 5} more` : ''}\n${res.body.slice(0, 500)}`)
  }
}

/**
 * A partner's snapshot without its credentials: hashes made with a pepper of each process and a salt of each
 * hash (store/credentials.ts), so that two sandboxes' data compare byte for byte.
 */
export function withoutCredentials<T extends { secretHash: string, users: Array<{ passwordHash: string }> }> (p: T): T {
  return { ...p, secretHash: '', users: p.users.map((u) => ({ ...u, passwordHash: '' })) }
}
