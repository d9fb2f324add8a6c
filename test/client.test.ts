import { mkdir, writeFile } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t from 'tap'
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript'
import ts from 'typescript'
import { listen } from './helper.js'

/*
 * A partner's view of the docs: generate a typed client from the published OpenAPI document
 * (openapi-typescript), prove with the TypeScript compiler that the types accept the right calls and
 * refuse wrong ones, then run the same typed code (openapi-fetch) with a real token against the app
 * listening on 127.0.0.1.
 */

const GENERATED = new URL('./generated/', import.meta.url)
const TYPES_FILE = fileURLToPath(new URL('bank-api.d.ts', GENERATED))
const SNIPPET_FILE = fileURLToPath(new URL('typed-client.ts', GENERATED))

/** What a partner writes against the generated types: kept in memory, compiled, then run. */
const TYPED_CLIENT = `import createClient from 'openapi-fetch'
import type { components, paths } from './bank-api.js'

type CustomerCreateRequest = components['schemas']['CustomerCreateRequest']
type CustomerRecord = components['schemas']['CustomerRecord']

export async function run (baseUrl: string, token: string, agentId: string, request: CustomerCreateRequest) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: 'Bearer ' + token } })
  const header = { 'agent-id': agentId }
  const banks = await client.GET('/api/banks', { params: { header, query: { size: 5 } } })
  const names: string[] = (banks.data?.banks ?? []).map((b) => b.shortName)
  const created = await client.POST('/api/customers', { params: { header }, body: request })
  const customerId: string = created.data?.customerId ?? ''
  const read = await client.GET('/api/customers/{customerId}', { params: { header, path: { customerId } } })
  const record: CustomerRecord | undefined = read.data
  const missing = await client.GET('/api/customers/{customerId}', { params: { header, path: { customerId: '1001199999999' } } })
  const message: string | undefined = missing.error?.message
  return {
    banks: { status: banks.response.status, names, total: banks.data?.page.totalElements },
    created: { status: created.response.status, record: created.data },
    read: { status: read.response.status, record },
    missing: { status: missing.response.status, message }
  }
}
`

/** Calls the generated types must refuse, one per line (the line numbers are checked). */
const WRONG_CALLS = `import createClient from 'openapi-fetch'
import type { paths } from './bank-api.js'

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1' })
export const noAgentId = client.GET('/api/banks', { params: { query: { size: 5 } } })
export const noDefaultCustomer = client.POST('/api/customers', { params: { header: { 'agent-id': '1001' } }, body: { customerReference: 'X' } })
export const unknownPath = client.GET('/api/nothing-here', {})
export const sizeAsText = client.GET('/api/banks', { params: { header: { 'agent-id': '1001' }, query: { size: 'ten' } } })
export const wrongMethod = client.DELETE('/api/customers/{customerId}', { params: { header: { 'agent-id': '1001' }, path: { customerId: '1' } } })
`

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: []
}

/** Type-checks one in-memory file next to the generated types; the diagnostics of that file. */
function typeCheck (source: string): ts.Diagnostic[] {
  const host = ts.createCompilerHost(COMPILER_OPTIONS)
  const readFile = host.readFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  const getSourceFile = host.getSourceFile.bind(host)
  host.readFile = (f) => f === SNIPPET_FILE ? source : readFile(f)
  host.fileExists = (f) => f === SNIPPET_FILE || fileExists(f)
  host.getSourceFile = (f, v, onError, create) => f === SNIPPET_FILE ? ts.createSourceFile(f, source, v) : getSourceFile(f, v, onError, create)
  const program = ts.createProgram([SNIPPET_FILE], COMPILER_OPTIONS, host)
  return [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()].filter((d) => d.file?.fileName === SNIPPET_FILE || d.file === undefined)
}

const text = (d: ts.Diagnostic): string => ts.flattenDiagnosticMessageText(d.messageText, '\n')

async function clientCredentialsToken (base: string, tokenUrl: string): Promise<string> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=openid'
  })
  if (res.status !== 200) throw new Error(`token endpoint of ${base} answered ${res.status}`)
  return ((await res.json()) as { access_token: string }).access_token
}

t.test('a client generated from the published document is typed and works with a real token', async (t) => {
  const { base } = await listen(t)
  const doc = await (await fetch(`${base}/api/docs/apidocs`, { headers: { accept: 'application/json' } })).json() as Record<string, any>
  t.equal(doc.servers[0].url, base, 'the document points at the sandbox it came from')

  const types = astToString(await openapiTS(doc as OpenAPI3, { silent: true }))
  await mkdir(GENERATED, { recursive: true })
  await writeFile(TYPES_FILE, `// Generated by test/client.test.ts from ${base}/api/docs/apidocs (openapi-typescript). Do not edit.\n${types}`)
  t.match(types, /"\/api\/customers\/\{customerId\}": \{/, 'the paths are typed')
  t.match(types, /CustomerRecord: \{/, 'the components are typed under their $id')
  t.match(types, /"agent-id": string;/, 'the Agent-Id header is a required parameter')

  t.test('the TypeScript compiler accepts the partner\'s calls', async (t) => {
    t.same(typeCheck(TYPED_CLIENT).map(text), [], 'no diagnostics')
  })

  t.test('the TypeScript compiler refuses calls the API does not allow', async (t) => {
    const diagnostics = typeCheck(WRONG_CALLS)
    const lines = new Set(diagnostics.map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1))
    const wrong = WRONG_CALLS.split('\n').map((l, i) => [l, i + 1] as const).filter(([l]) => l.startsWith('export const'))
    for (const [line, n] of wrong) t.ok(lines.has(n), `refused: ${line.slice(13, line.indexOf(' ='))}`)
  })

  // the same typed code, compiled to JavaScript and run
  const js = ts.transpileModule(TYPED_CLIENT, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
  const runnable = new URL('typed-client.mjs', GENERATED)
  await writeFile(runnable, js)
  const { run } = await import(`${pathToFileURL(fileURLToPath(runnable)).href}?${Date.now()}`) as { run: (...a: unknown[]) => Promise<any> }
  const token = await clientCredentialsToken(base, doc.components.securitySchemes.sandboxOAuth.flows.clientCredentials.tokenUrl)
  const request = doc.components.schemas.CustomerCreateRequest.example
  const out = await run(base, token, '1001', request)

  t.equal(out.banks.status, 200, 'GET /api/banks')
  t.same(out.banks.names, ['ABSA', 'AFRICAN BANK', 'BIDVEST BANK', 'CAPITEC', 'DISCOVERY BANK'].slice(0, out.banks.names.length), 'bank names')
  t.equal(out.banks.names.length, 5)
  t.equal(out.banks.total, 30)
  t.equal(out.created.status, 200, 'POST /api/customers with the document\'s example')
  t.match(out.created.record, { customerId: /^10011\d{8}$/, customerReference: request.customerReference, defaultCustomer: { ...request.defaultCustomer, investmentTypeId: 1 } })
  t.equal(out.read.status, 200, 'GET /api/customers/{customerId}')
  t.same(out.read.record, out.created.record, 'reads back what was created')
  t.equal(out.missing.status, 404)
  t.equal(out.missing.message, 'Customer 1001199999999 not found', 'errors come typed as ErrorBody')
})
