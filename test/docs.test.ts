import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { STATUS_CODES } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { parse as parseYaml } from 'yaml'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildDocExamples, type DocExamples, type ResponseExample } from '../src/docs/examples.js'
import { VERSIONS } from '../src/api-versions.js'
import { API_SCHEMAS } from '../src/schemas/index.js'
import { PUBLIC_URL, api, build, tokenFor, userToken } from './helper.js'

type Json = Record<string, any>
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TOKEN_URL = `${PUBLIC_URL}/auth/realms/sandbox/protocol/openid-connect/token`
const AUTH_URL = `${PUBLIC_URL}/auth/realms/sandbox/protocol/openid-connect/auth`
const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** Every operation of spec section 4 (4.16's path is the sandbox's assumption), with its section. */
const SPEC_OPERATIONS: Array<[string, string]> = [
  ['GET /api/accounts/{accountId}', '4.1'],
  ['GET /api/accounts', '4.2'],
  ['POST /api/accounts', '4.3'],
  ['GET /api/banks', '4.4'],
  ['GET /api/customers/{customerId}/beneficiaries', '4.5'],
  ['GET /api/customers/{customerId}/beneficiaries/{beneficiaryId}', '4.6'],
  ['POST /api/customers/{customerId}/beneficiaries', '4.7'],
  ['POST /api/customers', '4.8'],
  ['GET /api/customers/{customerId}', '4.9'],
  ['GET /api/customers', '4.10'],
  ['GET /api/users/current/customers', '4.11'],
  ['POST /api/customers/{customerId}/messages', '4.12'],
  ['GET /api/customers/{customerId}/messages', '4.12'],
  ['GET /api/guarantees/{guaranteeID}/state', '4.13'],
  ['GET /api/investment-types', '4.14'],
  ['GET /api/accounts/public', '4.15'],
  ['GET /api/products', '4.16'],
  ['GET /api/products/{productCode}', '4.16']
]

function operationsOf (doc: Json): Array<{ key: string, op: Json }> {
  const out: Array<{ key: string, op: Json }> = []
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const m of METHODS) if (item[m] !== undefined) out.push({ key: `${m.toUpperCase()} ${path}`, op: item[m] })
  }
  return out
}

/** Every $ref of a document. */
function refsOf (node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refsOf(n, out)
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v)
      else refsOf(v, out)
    }
  }
  return out
}

interface SpectralResult { code: string, message: string, severity: number, path: string[], source: string }

/** Runs the Spectral CLI with the repository's ruleset (.spectral.yaml: extends spectral:oas) on documents written to files. */
async function spectral (docs: Record<string, unknown>): Promise<Record<string, SpectralResult[]>> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbox-docs-'))
  try {
    const files: string[] = []
    for (const [name, doc] of Object.entries(docs)) {
      const file = join(dir, `${name}.json`)
      await writeFile(file, JSON.stringify(doc, null, 2))
      files.push(file)
    }
    const bin = join(ROOT, 'node_modules', '.bin', 'spectral')
    const args = ['lint', '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet', ...files]
    let stdout: string
    try {
      stdout = (await promisify(execFile)(bin, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout
    } catch (err) {
      // exit code 1 when a result reaches the fail severity: the results are still on stdout
      stdout = (err as { stdout?: string }).stdout ?? ''
      if (stdout.trim() === '') throw err
    }
    const results = JSON.parse(stdout) as SpectralResult[]
    return Object.fromEntries(Object.keys(docs).map((name) => [name, results.filter((r) => r.source.endsWith(`${name}.json`))]))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const describe = (r: SpectralResult): string => `${r.code} at ${r.path.join('.')}: ${r.message}`

t.test('the published documents pass Spectral\'s spectral:oas ruleset with no errors and no warnings', async (t) => {
  const app = await build(t)
  const results = await spectral({ openapi: app.swagger(), swagger2: app.swagger2(), sandbox: app.sandboxSwagger() })
  for (const [name, list] of Object.entries(results)) {
    t.same(list.filter((r) => r.severity === 0).map(describe), [], `${name}: no errors`)
    // warnings too: they are missing operationIds, descriptions or unused components, i.e. incomplete docs
    t.same(list.filter((r) => r.severity === 1).map(describe), [], `${name}: no warnings`)
  }
})

t.test('Spectral fails a document whose example breaks its schema (the lint is not a no-op)', async (t) => {
  const app = await build(t)
  const doc = structuredClone(app.swagger()) as Json
  doc.components.schemas.Bank.example.shortName = 'X'.repeat(31)
  const { broken } = await spectral({ broken: doc })
  t.ok(broken.some((r) => r.severity === 0 && r.code === 'oas3-valid-schema-example'), 'the example over maxLength 30 is an error')
})

t.test('component and definition names are the schemas\' $ids, and every $ref resolves', async (t) => {
  const app = await build(t)
  const ids = new Set(API_SCHEMAS.map((s) => s.$id))
  const openapi = app.swagger() as unknown as Json
  const swagger2 = app.swagger2() as unknown as Json
  const sandbox = app.sandboxSwagger() as unknown as Json
  for (const [name, doc, container, prefix] of [
    ['openapi', openapi, openapi.components.schemas, '#/components/schemas/'],
    ['swagger2', swagger2, swagger2.definitions, '#/definitions/'],
    ['sandbox', sandbox, sandbox.components.schemas, '#/components/schemas/']
  ] as const) {
    const names = Object.keys(container)
    t.ok(names.length > 0, `${name} has components`)
    t.same(names.filter((n) => !ids.has(n)), [], `${name}: every component is named by a schema $id (no def-N)`)
    const broken = refsOf(doc).filter((r) => !r.startsWith(prefix) || container[r.slice(prefix.length)] === undefined)
    t.same(broken, [], `${name}: no broken $ref`)
  }
  t.equal(swagger2.swagger, '2.0')
  t.equal(openapi.openapi, '3.0.3')
  t.ok(openapi.components.schemas.CustomerRecord !== undefined && openapi.components.schemas.SandboxGuarantee === undefined, 'the bank document holds the bank schemas only')
  t.ok(sandbox.components.schemas.SandboxGuarantee !== undefined && sandbox.components.schemas.CustomerPage === undefined && sandbox.components.schemas.CustomerCreateRequest === undefined,
    'the sandbox document holds its own schemas (and the record schemas its snapshot document is made of), none of the bank\'s operations')
})

t.test('every error response is the ErrorBody schema with its meaning, in both documents', async (t) => {
  const app = await build(t)
  const openapi = app.swagger() as unknown as Json
  const swagger2 = app.swagger2() as unknown as Json
  let seen = 0
  for (const { key, op } of [...operationsOf(openapi), ...operationsOf(app.sandboxSwagger() as unknown as Json)]) {
    for (const [status, response] of Object.entries(op.responses as Json)) {
      if (Number(status) < 400) continue
      seen++
      t.same(response.content, { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' }, ...pick(response.content['application/json'], 'examples') } }, `${key} ${status}: ErrorBody`)
      t.match(response.description, new RegExp(`^${meaningOf(status)}: `), `${key} ${status}: described by its meaning, not "Default Response"`)
      t.ok(response.headers['X-Sandbox-Error'] !== undefined, `${key} ${status}: X-Sandbox-Error header`)
    }
  }
  for (const { key, op } of operationsOf(swagger2)) {
    for (const [status, response] of Object.entries(op.responses as Json)) {
      if (Number(status) < 400) continue
      t.same(response.schema, { $ref: '#/definitions/ErrorBody' }, `swagger 2.0 ${key} ${status}: a bare $ref to ErrorBody`)
      t.match(response.description, new RegExp(`^${meaningOf(status)}: `), `swagger 2.0 ${key} ${status}: described`)
    }
  }
  t.ok(seen > 80, `${seen} error responses checked`)
})

/** How an error response's description begins: its reason phrase, or for the default response (an injected fault) "Any other status". */
function meaningOf (status: string): string {
  return status === 'default' ? 'Any other status' : STATUS_CODES[status] ?? ''
}

function pick (o: Json, ...keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]))
}

t.test('every route of spec 4 is documented with summary, operationId, description citing its section, and its security', async (t) => {
  const app = await build(t)
  const openapi = app.swagger() as unknown as Json
  const swagger2 = app.swagger2() as unknown as Json
  const documented = operationsOf(openapi).map((o) => o.key).sort()
  t.same(documented, SPEC_OPERATIONS.map(([k]) => k).sort(), 'exactly the operations of spec 4')
  const ids = new Set<string>()
  for (const [key, section] of SPEC_OPERATIONS) {
    const [method, path] = key.split(' ')
    const op = openapi.paths[path][method.toLowerCase()]
    t.ok(typeof op.summary === 'string' && op.summary.length > 5, `${key}: summary`)
    t.match(op.description, new RegExp(`spec ${section.replace('.', '\\.')}\\b`), `${key}: description cites spec ${section}`)
    t.ok(typeof op.operationId === 'string' && !ids.has(op.operationId), `${key}: unique operationId ${String(op.operationId)}`)
    ids.add(op.operationId)
    const headers = (op.parameters ?? []).filter((p: Json) => p.in === 'header').map((p: Json) => `${String(p.name)}:${String(p.required)}`)
    const op2 = swagger2.paths[path][method.toLowerCase()]
    if (section === '4.13') {
      t.same(op.security, [], `${key}: no authentication (spec 4.13)`)
      t.same(headers, [], `${key}: no Agent-Id`)
      t.same(op2.security, [], `swagger 2.0 ${key}: no authentication`)
    } else {
      t.same(op.security, [{ bearerAuth: [] }, { sandboxOAuth: ['openid'] }], `${key}: a bearer token first (what converters use), or the OAuth 2.0 flows`)
      t.same(headers, ['agent-id:true'], `${key}: Agent-Id header required`)
      t.same(op2.security, [{ bearerAuth: [] }, { sandboxOAuthClientCredentials: ['openid'] }, { sandboxOAuthAuthorizationCode: ['openid'] }, { sandboxOAuthPassword: ['openid'] }],
        `swagger 2.0 ${key}: one requirement per flow`)
    }
  }
  t.same(openapi.components.securitySchemes.sandboxOAuth.flows, {
    clientCredentials: { tokenUrl: TOKEN_URL, scopes: openapi.components.securitySchemes.sandboxOAuth.flows.clientCredentials.scopes },
    authorizationCode: { authorizationUrl: AUTH_URL, tokenUrl: TOKEN_URL, refreshUrl: TOKEN_URL, scopes: openapi.components.securitySchemes.sandboxOAuth.flows.clientCredentials.scopes },
    password: { tokenUrl: TOKEN_URL, refreshUrl: TOKEN_URL, scopes: openapi.components.securitySchemes.sandboxOAuth.flows.clientCredentials.scopes }
  }, 'client credentials, authorization code (PKCE) and password flows of the embedded provider')
  t.match(swagger2.securityDefinitions, {
    sandboxOAuthClientCredentials: { type: 'oauth2', flow: 'application', tokenUrl: TOKEN_URL },
    sandboxOAuthAuthorizationCode: { type: 'oauth2', flow: 'accessCode', authorizationUrl: AUTH_URL, tokenUrl: TOKEN_URL },
    sandboxOAuthPassword: { type: 'oauth2', flow: 'password', tokenUrl: TOKEN_URL }
  })
  for (const { key, op } of operationsOf(app.sandboxSwagger() as unknown as Json)) {
    // the magic values' catalogue is documentation, public like the documents themselves
    const isPublic = op.operationId === 'listMagicValues'
    t.ok(op.summary !== undefined && op.description !== undefined && op.operationId !== undefined && (isPublic ? op.security?.length === 0 : op.security?.length > 0), `sandbox ${key}: summary, description, operationId, security`)
  }
})

t.test('parameters carry the rules of the spec', async (t) => {
  const app = await build(t)
  const doc = app.swagger() as unknown as Json
  const param = (key: string, name: string): Json => {
    const [method, path] = key.split(' ')
    return doc.paths[path][method.toLowerCase()].parameters.find((p: Json) => p.name === name)
  }
  t.match(param('GET /api/accounts/{accountId}', 'accountId'), { in: 'path', required: true, schema: { type: 'string', 'x-digits': { integer: 16, fraction: 0 } }, description: /16 integral/ })
  t.match(param('GET /api/customers/{customerId}', 'customerId'), { schema: { 'x-digits': { integer: 19, fraction: 0 } }, description: /19 integral/, example: '1001100000001' })
  t.match(param('GET /api/customers/{customerId}/beneficiaries/{beneficiaryId}', 'beneficiaryId'), { schema: { 'x-digits': { integer: 19, fraction: 0 } } })
  t.match(param('GET /api/accounts', 'customerId'), { in: 'query', required: false, schema: { 'x-digits': { integer: 19, fraction: 0 } } })
  t.match(param('GET /api/guarantees/{guaranteeID}/state', 'guaranteeID'), { schema: { minLength: 1, maxLength: 255 } })
  t.match(param('GET /api/banks', 'page'), { in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } }, 'page is optional (spec 2.1)')
  t.match(param('GET /api/banks', 'size'), { in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 2000, default: 10 } }, 'size is optional (spec 2.1)')
  const swagger2 = app.swagger2() as unknown as Json
  t.match(swagger2.paths['/api/banks'].get.parameters.find((p: Json) => p.name === 'size'), { in: 'query', required: false, type: 'integer', maximum: 2000 }, 'swagger 2.0: size is optional')
  const s = doc.components.schemas
  t.match(s.Party.properties.mobilePhoneNumber, { 'x-digits': { integer: 14, fraction: 0 } })
  t.match(s.Party.properties.name1, { minLength: 1, maxLength: 255, pattern: /A-Z/ })
  t.same(s.Party.properties.entityTypeId.enum, ['1', '3', '4', '5', '6'])
  t.match(s.CustomerCreateRequest.properties.adminFeePercent, { 'x-digits': { integer: 2, fraction: 2 } })
  t.match(s.CustomerCreateRequest.properties.createCallAccount, { deprecated: true })
  t.match(s.BeneficiaryCreateRequest.properties.accountNumber, { pattern: '^[0-9]+$', minLength: 1, maxLength: 16 })
  t.same(s.BeneficiaryCreateRequest.properties.accountType.enum, ['C', 'S', 'T', 'B'])
  t.same(s.BeneficiaryCreateRequest.properties.accountCategory.enum, ['3RD PARTY', 'MANDATED'])
  t.match(s.CustomerMessageRequest.properties, { message: { maxLength: 256 }, fromDepartment: { maxLength: 100 }, fromPerson: { maxLength: 100 } })
  t.match(s.AccountCreateRequest.properties.productCode, { minLength: 1, maxLength: 256 })
  t.same(s.GuaranteeState.properties.state, { description: 'VALID or INVALID.', type: 'string', enum: ['VALID', 'INVALID'] }, 'the literal union is an enum OpenAPI 3.0 can read')
})

t.test('the sandbox\'s decisions where the spec is silent are stated in the document', async (t) => {
  const app = await build(t)
  const doc = app.swagger() as unknown as Json
  const text: string = doc.info.description
  for (const decision of ['Authorization: Bearer', 'Keycloak', 'ErrorBody', 'Bean Validation', 'size 1 to 2000', 'sortResponses', 'GET /api/products', 'VALID-', '/4.0', 'Deprecation']) {
    t.ok(text.includes(decision), `the description states: ${decision}`)
  }
  t.match(doc.paths['/api/products'].get.description, /sandbox's assumption/)
  t.match(doc.paths['/api/users/current/customers'].get.description, /sandbox's decision/)
  t.match(doc.components.schemas.ErrorBody.description, /spec 7 leaves the shape open/)
})

// --- examples ---

async function replay (t: Test, app: FastifyInstance, ex: DocExamples, r: ResponseExample): Promise<void> {
  const token = r.request.auth === 'none' ? null : r.request.auth === 'user' ? await userToken(app, ex.partner.user.username, ex.partner.user.password) : await tokenFor(app)
  const headers: Record<string, string> = {
    ...(r.request.contentType === undefined ? {} : { 'content-type': r.request.contentType }),
    ...(r.request.accept === undefined ? {} : { accept: r.request.accept })
  }
  const res = await api(app, { method: r.request.method, url: r.request.url, body: r.request.body, agent: r.request.agent === undefined ? ex.agentId : r.request.agent, token, headers })
  const label = `${r.request.method} ${r.request.url.slice(0, 80)} (${r.name})`
  t.equal(res.statusCode, r.status, `${label}: status ${r.status}`)
  const got = res.json()
  const want = structuredClone(r.value) as Json
  for (const k of ['timestamp', ...(r.volatile ?? [])]) {
    t.ok(k === 'timestamp' || got[k] !== undefined, `${label}: ${k} is there`)
    delete got[k]
    delete want[k]
  }
  t.same(got, want, `${label}: the body is the documented example`)
}

t.test('the documents carry the examples, one for every documented response', async (t) => {
  const app = await build(t)
  const ex = buildDocExamples(app.scenarios, app.reference, app.initialConfig.bodyLimit!, app.prebuilt)
  const doc = app.swagger() as unknown as Json
  const swagger2 = app.swagger2() as unknown as Json
  for (const { key, op } of operationsOf(doc)) {
    const mine = ex.operations[key]
    t.ok(mine !== undefined, `${key} has examples`)
    for (const [status, response] of Object.entries(op.responses as Json)) {
      const documented = response.content['application/json'].examples as Json | undefined
      if (status === 'default') {
        t.equal(documented?.injected?.value?.status, 503, `${key} default: the example of an injected fault`)
        continue
      }
      const expected = mine.responses.filter((r) => String(r.status) === status)
      t.ok(expected.length > 0, `${key} ${status}: at least one example`)
      t.same(Object.fromEntries(Object.entries(documented ?? {}).map(([n, e]) => [n, (e as Json).value])), Object.fromEntries(expected.map((r) => [r.name, r.value])), `${key} ${status}: in the document`)
      t.same(swagger2.paths[key.split(' ')[1]][key.split(' ')[0].toLowerCase()].responses[status].examples?.['application/json'], expected[0].value, `swagger 2.0 ${key} ${status}: example`)
    }
    if (op.requestBody !== undefined) t.ok(Object.keys(op.requestBody.content['application/json'].examples ?? {}).length > 0, `${key}: request examples`)
  }
  for (const name of ['Account', 'Bank', 'Beneficiary', 'BeneficiaryCreateRequest', 'CustomerRecord', 'CustomerCreateRequest', 'Party', 'CustomerMessage', 'ErrorBody', 'GuaranteeState', 'Product']) {
    t.ok(doc.components.schemas[name].example !== undefined && swagger2.definitions[name].example !== undefined, `${name} has an example in both documents`)
  }
  // the default data set: the fixed customer of the README and docs/scenarios.md, and its records
  t.equal(doc.components.schemas.CustomerRecord.example.customerId, '1001100000001')
  t.equal(doc.components.schemas.Account.example.id, '1001200000001')
  t.equal(doc.components.schemas.Beneficiary.example.beneficiaryId, '1001300000001')
  t.equal(doc.components.schemas.CustomerMessage.example.id, '1001400000001')
})

t.test('every documented example is what the sandbox answers to its request (default data set)', async (t) => {
  const app = await build(t)
  const ex = buildDocExamples(app.scenarios, app.reference, app.initialConfig.bodyLimit!, app.prebuilt)
  const all = Object.values(ex.operations).flatMap((o) => o.responses)
  const creates = all.filter((r) => r.request.method === 'POST' && r.status === 200)
  for (const r of all.filter((r) => !creates.includes(r))) await replay(t, app, ex, r)
  // a create changes the data: each one on a sandbox just started, as the example was made
  for (const r of creates) await replay(t, await build(t), ex, r)
  t.ok(all.length > 90, `${all.length} examples replayed`)
})

// --- the pages ---

t.test('/api/docs/apidocs answers Swagger UI to a browser and the OpenAPI JSON to Accept: application/json', async (t) => {
  const app = await build(t)
  const html = await app.inject({ url: '/api/docs/apidocs', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } })
  t.equal(html.statusCode, 200)
  t.match(html.headers['content-type'], /^text\/html/)
  t.match(html.body, /swagger-ui-bundle\.js/)
  const json = await app.inject({ url: '/api/docs/apidocs', headers: { accept: 'application/json' } })
  t.equal(json.statusCode, 200)
  t.match(json.headers['content-type'], /^application\/json/)
  t.same(json.json(), app.swagger(), 'the published OpenAPI document')
  for (const url of ['/api/docs/apidocs/json', '/api/docs/apidocs/openapi.json']) t.same((await app.inject({ url })).json(), app.swagger(), url)
  t.same((await app.inject({ url: '/api/docs/apidocs/swagger.json' })).json(), app.swagger2(), 'swagger.json')
  t.same((await app.inject({ url: '/__sandbox/docs/openapi.json' })).json(), app.sandboxSwagger(), 'the sandbox document')
  const init = await app.inject({ url: '/api/docs/apidocs/static/swagger-initializer.js' })
  t.match(init.body, "oauth2RedirectUrl: resolveUrl('./static/oauth2-redirect.html')", 'OAuth redirects go to the redirect page beside the page (registered for the partners: test/docs-swagger-ui.test.ts)')
  t.match(init.body, /Sandbox control API/, 'the sandbox document is one of the page\'s definitions')
  const redirect = await app.inject({ url: '/api/docs/apidocs/static/oauth2-redirect.html' })
  t.equal(redirect.statusCode, 200, 'the redirect page exists')
})

t.test("Swagger UI's page names its files under itself (a version's path keeps them under it); its files revalidate by ETag", async (t) => {
  const app = await build(t)
  for (const page of ['/api/docs/apidocs', '/api/docs/apidocs/', '/4.0/api/docs/apidocs', '/4.0/api/docs/apidocs/']) {
    const html = await app.inject({ url: page, headers: { accept: 'text/html' } })
    const links = [...html.body.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => new URL(m[1], `${PUBLIC_URL}${page}`).pathname)
    t.equal(links.length, 7, `${page}: two styles, two icons, three scripts`)
    for (const link of links) {
      t.ok(link.startsWith(`${page.replace(/\/$/, '')}/static/`), `${page}: ${link} is under the page`)
      t.equal((await app.inject({ url: link })).statusCode, 200, `${page}: ${link} answers`)
    }
  }
  const url = '/api/docs/apidocs/static/swagger-ui-bundle.js'
  const first = await app.inject({ url })
  t.match(first.headers, { 'content-type': 'application/javascript; charset=utf-8', etag: /^W\/"[\w-]+"$/, 'cache-control': 'public, max-age=0' })
  t.ok(first.body.length > 1_000_000, 'the whole distribution file')
  const same = await app.inject({ url, headers: { 'if-none-match': `"other", ${first.headers.etag as string}` } })
  t.equal(same.statusCode, 304, 'a browser that has it is told so')
  t.equal(same.body, '')
  t.equal((await app.inject({ url, headers: { 'if-none-match': '"other"' } })).statusCode, 200, 'another ETag: the file')
  t.match((await app.inject({ url: '/api/docs/apidocs/static/favicon-32x32.png' })).headers['content-type'], /^image\/png/)
  const index = await app.inject({ url: '/4.0/api/docs/apidocs/static/index.html' })
  t.equal(index.statusCode, 302)
  t.equal(new URL(index.headers.location as string, `${PUBLIC_URL}/4.0/api/docs/apidocs/static/index.html`).pathname, '/4.0/api/docs/apidocs/', 'static/index.html leads to the page of its own version')
  const yaml = await app.inject({ url: '/4.0/api/docs/apidocs/yaml' })
  t.match(yaml.headers['content-type'], /^application\/x-yaml/)
  t.same(parseYaml(yaml.body), (await app.inject({ url: '/4.0/api/docs/apidocs/json' })).json(), 'the YAML is the JSON of the same version')
})

t.test('GET / and /__sandbox/docs redirect to the docs page', async (t) => {
  const app = await build(t)
  const root = await app.inject({ url: '/' })
  t.equal(root.statusCode, 302)
  t.equal(root.headers.location, '/api/docs/apidocs')
  const sandbox = await app.inject({ url: '/__sandbox/docs' })
  t.equal(sandbox.statusCode, 302)
  t.match(sandbox.headers.location, /^\/api\/docs\/apidocs\?urls\.primaryName=Sandbox%20control%20API$/)
})

t.test('every version of spec 9 has its documents at /{version}/api/docs/apidocs', async (t) => {
  const app = await build(t)
  for (const [version, status] of Object.entries(VERSIONS)) {
    const page = await app.inject({ url: `/${version}/api/docs/apidocs`, headers: { accept: 'text/html' } })
    t.equal(page.statusCode, 200, `${version}: the page`)
    t.match(page.headers['content-type'], /^text\/html/)
    const res = await app.inject({ url: `/${version}/api/docs/apidocs`, headers: { accept: 'application/json' } })
    const doc = res.json()
    t.same(doc.servers, [{ url: `${PUBLIC_URL}/${version}`, description: `version ${version} (${status})` }], `${version}: servers point at /${version}`)
    t.same((await app.inject({ url: `/${version}/api/docs/apidocs/json` })).json(), doc, `${version}: the page's own JSON`)
    t.equal((await app.inject({ url: `/${version}/api/docs/apidocs/swagger.json` })).json().basePath, `/${version}`, `${version}: swagger 2.0 basePath`)
    const ops = operationsOf(doc).map((o) => o.op)
    t.equal(ops.length, SPEC_OPERATIONS.length)
    if (status === 'deprecated') {
      t.match(doc.info.description, new RegExp(`^Version ${version.replace('.', '\\.')} is deprecated`), `${version}: says it is deprecated`)
      t.ok(ops.every((op) => op.deprecated === true), `${version}: every operation is marked deprecated`)
      const link = (await api(app, { url: `/${version}/api/banks` })).headers.link as string
      const target = /^<([^>]+)>/.exec(link)![1].replace(PUBLIC_URL, '')
      t.equal((await app.inject({ url: target })).statusCode, 200, `${version}: the Link rel="deprecation" target is its docs page`)
    } else {
      t.notMatch(doc.info.description, /deprecated \(Deprecation/, `${version}: not deprecated`)
      t.ok(ops.every((op) => op.deprecated === undefined), `${version}: no operation is deprecated`)
    }
  }
  const latest = (await app.inject({ url: '/api/docs/apidocs', headers: { accept: 'application/json' } })).json()
  t.same(latest.servers, [{ url: PUBLIC_URL, description: 'latest (4.1)' }], 'the unversioned page: the latest at /api')
})

t.test('an unknown version\'s docs are a 404 in the error shape', async (t) => {
  const app = await build(t)
  for (const url of ['/9.9/api/docs/apidocs', '/4.2/api/docs/apidocs/json', '/5/api/docs/apidocs']) {
    const res = await app.inject({ url, headers: { accept: 'application/json' } })
    t.equal(res.statusCode, 404, url)
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_VERSION_NOT_FOUND')
    t.match(res.json(), { status: 404, error: 'Not Found', message: /^API version [\d.]+ does not exist$/, path: url, errors: [] })
  }
})

t.test('the control API document marks a body optional exactly where the route takes none', async (t) => {
  const app = await build(t, { adminToken: 'operator-secret-0123456789' })
  const doc = (await app.inject({ url: '/__sandbox/docs/openapi.json' })).json()
  const required: Record<string, boolean> = {}
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) if (op.requestBody !== undefined) required[`${method.toUpperCase()} ${path}`] = op.requestBody.required
  }
  t.same(required, {
    'POST /__sandbox/reset': false,
    'POST /__sandbox/agents': false,
    'POST /__sandbox/agents/{agentId}/reset': false,
    'POST /__sandbox/guarantees': true,
    'PUT /__sandbox/guarantees/{guaranteeId}': true,
    'POST /__sandbox/faults': true,
    'PUT /__sandbox/clock': true,
    'POST /__sandbox/accounts/{accountId}/close': false,
    'PUT /__sandbox/accounts/{accountId}/balance': true,
    'POST /__sandbox/accounts/{accountId}/credit': true,
    'POST /__sandbox/accounts/{accountId}/debit': true,
    'PUT /__sandbox/customers/{customerId}/kyc': true,
    'POST /__sandbox/requests/count': false,
    'POST /__sandbox/tokens/expire': false,
    'PUT /__sandbox/snapshot': true,
    'POST /__sandbox/snapshots': true,
    'POST /__sandbox/admin/reset': false,
    'POST /__sandbox/admin/partners': false,
    'POST /__sandbox/admin/partners/{clientId}/secret': false
  })
  t.notMatch(JSON.stringify(doc), /x-sandbox-optional-body/, 'the marker does not reach the document')
  // and the server agrees: each optional one answers without a body
  const token = await tokenFor(app)
  for (const [key, req] of Object.entries(required)) {
    if (req) continue
    const [method, path] = key.split(' ')
    const url = path.replace('{agentId}', '1001').replace('{accountId}', '1001200000001').replace('{clientId}', 'partner-b')
    const admin = url.startsWith('/__sandbox/admin')
    // the state controls act as one agent (Agent-Id); the other control routes ignore the header
    const res = await app.inject({ method: method as 'POST', url, headers: { authorization: `Bearer ${admin ? 'operator-secret-0123456789' : token}`, 'agent-id': '1001' } })
    t.equal(res.statusCode, 200, `${key} without a body`)
  }
})
