/*
 * The Postman collection of the bank's API, converted from the published OpenAPI 3 document by
 * openapi-to-postmanv2 (so it never drifts from the document), then given what a partner needs to run it
 * as it is: collection-level OAuth 2.0 client credentials against the sandbox's token URL, a pre-request
 * script that fetches that token (newman does not fetch OAuth 2.0 tokens itself; Postman's "Get New Access
 * Token" uses the same settings), the Agent-Id as a variable, and a test that each answer is a success.
 */

type Json = Record<string, any>

export interface PostmanSettings {
  publicUrl: string
  tokenUrl: string
  clientId: string
  clientSecret: string
  agentId: string
}

// Runs in Postman / newman: a client-credentials token, fetched once and again shortly before it expires.
const FETCH_TOKEN = `const expires = Number(pm.collectionVariables.get('accessTokenExpires') || 0);
if (!pm.collectionVariables.get('accessToken') || Date.now() >= expires - 10000) pm.sendRequest({
  url: pm.variables.get('tokenUrl'),
  method: 'POST',
  header: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: { mode: 'urlencoded', urlencoded: [
    { key: 'grant_type', value: 'client_credentials' },
    { key: 'client_id', value: pm.variables.get('clientId') },
    { key: 'client_secret', value: pm.variables.get('clientSecret') }
  ] }
}, (err, res) => {
  if (err || res.code !== 200) throw new Error('token request failed: ' + (err || res.text()));
  const token = res.json();
  pm.collectionVariables.set('accessToken', token.access_token);
  pm.collectionVariables.set('accessTokenExpires', String(Date.now() + token.expires_in * 1000));
});`.split('\n')

const CHECK_SUCCESS = ["pm.test('answered with success', () => pm.expect(pm.response.code).to.be.within(200, 299));"]

const kv = (o: Record<string, string>): Json[] => Object.entries(o).map(([key, value]) => ({ key, value, type: 'string' }))

async function convert (doc: Json): Promise<Json> {
  // loaded on the first request for the collection: the converter and its dependencies took about a
  // third of the sandbox's start-up, for a document few partners fetch
  // (its CommonJS exports as the default export: what Node's import gives, and all the bundle's chunk gives)
  const { convertV2 } = (await import('openapi-to-postmanv2')).default
  return await new Promise((resolve, reject) => {
    convertV2({ type: 'json', data: structuredClone(doc) }, {
      folderStrategy: 'Tags',
      parametersResolution: 'Example',
      alwaysInheritAuthentication: true,
      enableOptionalParameters: false
    }, (err: { message: string } | null, result?: Json) => {
      if (err !== null && err !== undefined) reject(new Error(`OpenAPI to Postman: ${err.message}`))
      else if (result?.result !== true) reject(new Error(`OpenAPI to Postman: ${String(result?.reason)}`))
      else resolve(result.output[0].data as Json)
    })
  })
}

/** Every request of the collection (folders flattened). */
function requests (items: Json[]): Json[] {
  return items.flatMap((i) => Array.isArray(i.item) ? requests(i.item) : [i])
}

/** The document's operations without security (spec 4.13), as "METHOD /path/:param" the collection uses. */
function publicOperations (doc: Json): Set<string> {
  const out = new Set<string>()
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (Array.isArray(op.security) && op.security.length === 0) out.add(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`)
    }
  }
  return out
}

export async function postmanCollection (doc: Json, s: PostmanSettings): Promise<Json> {
  const collection = await convert(doc)
  const open = publicOperations(doc)
  for (const item of requests(collection.item as Json[])) {
    const r = item.request as Json
    const path = `/${(r.url?.path as string[] ?? []).join('/')}`
    if (open.has(`${String(r.method)} ${path}`)) r.auth = { type: 'noauth' }
    else delete r.auth
    for (const h of r.header ?? []) if (String(h.key).toLowerCase() === 'agent-id') h.value = '{{agentId}}'
  }
  collection.auth = {
    type: 'oauth2',
    oauth2: kv({
      grant_type: 'client_credentials',
      accessTokenUrl: '{{tokenUrl}}',
      clientId: '{{clientId}}',
      clientSecret: '{{clientSecret}}',
      client_authentication: 'header',
      tokenName: 'sandbox client credentials',
      accessToken: '{{accessToken}}',
      addTokenTo: 'header',
      headerPrefix: 'Bearer'
    })
  }
  collection.event = [
    { listen: 'prerequest', script: { type: 'text/javascript', exec: FETCH_TOKEN } },
    { listen: 'test', script: { type: 'text/javascript', exec: CHECK_SUCCESS } }
  ]
  const defaults = { baseUrl: s.publicUrl, tokenUrl: s.tokenUrl, clientId: s.clientId, clientSecret: s.clientSecret, agentId: s.agentId, accessToken: '', accessTokenExpires: '0' }
  collection.variable = kv(defaults)
  return collection
}

/** A Postman environment with the same variables, for switching between sandboxes (or to the bank). */
export function postmanEnvironment (s: PostmanSettings): Json {
  return {
    name: `Banking Agent Sandbox (${s.publicUrl})`,
    values: [
      { key: 'baseUrl', value: s.publicUrl, type: 'default', enabled: true },
      { key: 'tokenUrl', value: s.tokenUrl, type: 'default', enabled: true },
      { key: 'clientId', value: s.clientId, type: 'default', enabled: true },
      { key: 'clientSecret', value: s.clientSecret, type: 'secret', enabled: true },
      { key: 'agentId', value: s.agentId, type: 'default', enabled: true }
    ],
    _postman_variable_scope: 'environment'
  }
}
