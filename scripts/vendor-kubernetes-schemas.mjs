// Writes test/fixtures/schemas/kubernetes.json: the definitions of Kubernetes' OpenAPI (v2) document that the
// kinds used in deploy/kubernetes need, for test/deploy.test.ts. Run it again after a manifest uses a new kind:
//   node scripts/vendor-kubernetes-schemas.mjs <swagger.json> "<where swagger.json came from>"
// (Kubernetes publishes the document as api/openapi-spec/swagger.json of each release.)
// Kept from upstream as it is, less the descriptions and the x-kubernetes-* annotations (documentation and
// server-side merge hints): the test reads types, properties, required fields and references.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseAllDocuments } from 'yaml'

const [swaggerFile, source] = process.argv.slice(2)
if (swaggerFile === undefined || source === undefined) {
  console.error('usage: node scripts/vendor-kubernetes-schemas.mjs <swagger.json> "<where it came from>"')
  process.exit(2)
}
const ROOT = new URL('..', import.meta.url).pathname
const MANIFESTS = join(ROOT, 'deploy', 'kubernetes')
const OUT = join(ROOT, 'test', 'fixtures', 'schemas', 'kubernetes.json')

const swagger = JSON.parse(readFileSync(swaggerFile, 'utf8'))

/** "apps/v1 Deployment" -> the definition's name, for every kind the document declares. */
const kindsOf = new Map()
for (const [name, def] of Object.entries(swagger.definitions)) {
  for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
    kindsOf.set(`${gvk.group === '' ? '' : `${gvk.group}/`}${gvk.version} ${gvk.kind}`, name)
  }
}

const used = new Set()
for (const file of readdirSync(MANIFESTS, { recursive: true })) {
  if (!/\.ya?ml$/.test(file) || /(^|\/)kustomization\.ya?ml$/.test(file)) continue
  for (const doc of parseAllDocuments(readFileSync(join(MANIFESTS, file), 'utf8'))) {
    const { apiVersion, kind } = doc.toJS()
    if (!kindsOf.has(`${apiVersion} ${kind}`)) throw new Error(`${file}: the document has no kind ${apiVersion} ${kind}`)
    used.add(`${apiVersion} ${kind}`)
  }
}

function strip (value) {
  if (Array.isArray(value)) return value.map(strip)
  if (value === null || typeof value !== 'object') return value
  const out = {}
  for (const [key, v] of Object.entries(value)) {
    if (key === 'description' || key.startsWith('x-kubernetes-')) continue
    out[key] = strip(v)
  }
  return out
}

const definitions = {}
const visit = (name) => {
  if (name in definitions) return
  const def = swagger.definitions[name]
  if (def === undefined) throw new Error(`no definition ${name}`)
  definitions[name] = strip(def)
  JSON.stringify(def, (key, v) => {
    if (key === '$ref') visit(v.replace('#/definitions/', ''))
    return v
  })
}
const kinds = {}
for (const kind of [...used].sort()) {
  kinds[kind] = kindsOf.get(kind)
  visit(kinds[kind])
}
const sorted = Object.fromEntries(Object.keys(definitions).sort().map((name) => [name, definitions[name]]))
writeFileSync(OUT, JSON.stringify({ $comment: `Definitions of ${source}, for the kinds below; see scripts/vendor-kubernetes-schemas.mjs`, kinds, definitions: sorted }, null, 1) + '\n')
console.log(`${OUT}: ${Object.keys(kinds).length} kinds, ${Object.keys(sorted).length} definitions`)
