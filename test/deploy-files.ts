import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { parseAllDocuments } from 'yaml'
import { ROOT } from './built.js'

/*
 * The files under deploy/ as test/deploy.test.ts reads them, and the schemas each kind of file is checked
 * against (their sources: test/fixtures/schemas/README.md):
 * - the Compose file: the Compose Specification's schema, as the dclint package ships it;
 * - Kubernetes objects: the definitions of Kubernetes' OpenAPI document for their kind, made strict the way
 *   kubeconform's -strict schemas are (an unknown field is an error, as `kubectl apply` makes it);
 * - kustomization.yaml: SchemaStore's schema.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

export const DEPLOY = join(ROOT, 'deploy')

/**
 * The management port the image fixes (its Dockerfile's ENV): where every manifest of deploy/ has Prometheus
 * scrape. The command's own default is a free port, which no scrape config could name.
 */
export function imageManagementPort (): number {
  const set = /^ +SANDBOX_MANAGEMENT_PORT=(\d+)/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
  if (set === null) throw new Error('the Dockerfile sets no SANDBOX_MANAGEMENT_PORT')
  return Number(set[1])
}

export interface YamlDoc {
  /** path under deploy/, and the document's index when the file holds several */
  name: string
  file: string
  value: any
}

/** Every YAML document of every file under deploy/; a file that does not parse throws, naming the file and line. */
export function yamlDocuments (): YamlDoc[] {
  const out: YamlDoc[] = []
  for (const file of readdirSync(DEPLOY, { recursive: true, encoding: 'utf8' }).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    const docs = parseAllDocuments(readFileSync(join(DEPLOY, file), 'utf8'), { prettyErrors: true, uniqueKeys: true })
    if (!Array.isArray(docs)) throw new Error(`deploy/${file}: not YAML documents`)
    docs.forEach((doc, i) => {
      const problems = [...doc.errors, ...doc.warnings]
      if (problems.length > 0) throw new Error(`deploy/${file}: ${problems.map((e) => e.message).join('; ')}`)
      out.push({ name: docs.length > 1 ? `deploy/${file} #${i + 1}` : `deploy/${file}`, file, value: doc.toJS({ maxAliasCount: 10 }) })
    })
  }
  return out
}

const require = createRequire(import.meta.url)
const fixture = (name: string): any => JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'schemas', name), 'utf8'))

function newAjv (): Ajv {
  // the upstream schemas use keywords of later drafts (deprecated) and of OpenAPI (format int32)
  const ajv = new Ajv({ allErrors: true, strict: false })
  addFormats(ajv)
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 })
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) })
  return ajv
}

/** A schema of another draft, checked with the draft-07 validator: without the keys that name its draft. */
function withoutDraft (schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _draft, id: _id, $id: _dollarId, ...rest } = schema
  return rest
}

/**
 * Kubernetes' OpenAPI definitions as strict JSON Schema: what openapi2jsonschema --strict does for
 * kubeconform. An object with declared properties admits no other; IntOrString and Quantity (strings in
 * OpenAPI with a format) take what the API server takes, a number or a string.
 */
function strictKubernetes (definitions: Record<string, any>): Record<string, any> {
  const tighten = (node: any): any => {
    if (Array.isArray(node)) return node.map(tighten)
    if (node === null || typeof node !== 'object') return node
    const out: Record<string, any> = {}
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, tighten(v)])) : tighten(value)
    }
    if (out.properties !== undefined && out.additionalProperties === undefined) out.additionalProperties = false
    return out
  }
  const out = tighten(definitions)
  out['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] = { anyOf: [{ type: 'string' }, { type: 'integer' }] }
  out['io.k8s.apimachinery.pkg.api.resource.Quantity'] = { anyOf: [{ type: 'string' }, { type: 'number' }] }
  return out
}

export type Check = (value: unknown) => string[]

function check (validate: ValidateFunction): Check {
  return (value) => validate(value) ? [] : (validate.errors ?? []).map(describe)
}

function describe (e: ErrorObject): string {
  const where = e.instancePath === '' ? '(top)' : e.instancePath
  const what = e.keyword === 'additionalProperty' || e.keyword === 'additionalProperties' ? `unknown field "${String(e.params.additionalProperty)}"` : e.message
  return `${where}: ${what ?? e.keyword}`
}

// Prometheus' durations as the Prometheus Operator's CRDs take them (1h30m, 15s, 500ms)
const DURATION = '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$'
const META = { $ref: 'kubernetes#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }
const strings = { type: 'object', additionalProperties: { type: 'string' } }
const closed = (properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> => ({ type: 'object', additionalProperties: false, required, properties })

/**
 * The Prometheus Operator's kinds (monitoring.coreos.com/v1), which Kubernetes' own document lacks: the fields the
 * manifests of deploy/kubernetes/monitoring/ may use, as the operator's CRDs declare them, strict as the others
 * (an unknown field fails). The CRDs themselves (thousands of lines each) are not vendored.
 */
const OPERATOR_KINDS: Record<string, Record<string, unknown>> = {
  ServiceMonitor: closed({
    apiVersion: { const: 'monitoring.coreos.com/v1' },
    kind: { const: 'ServiceMonitor' },
    metadata: META,
    spec: closed({
      jobLabel: { type: 'string' },
      targetLabels: { type: 'array', items: { type: 'string' } },
      podTargetLabels: { type: 'array', items: { type: 'string' } },
      sampleLimit: { type: 'integer', minimum: 0 },
      selector: { $ref: 'kubernetes#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
      namespaceSelector: closed({ any: { type: 'boolean' }, matchNames: { type: 'array', items: { type: 'string' } } }),
      endpoints: {
        type: 'array',
        minItems: 1,
        items: closed({
          port: { type: 'string' },
          path: { type: 'string' },
          scheme: { enum: ['http', 'https'] },
          interval: { type: 'string', pattern: DURATION },
          scrapeTimeout: { type: 'string', pattern: DURATION },
          honorLabels: { type: 'boolean' },
          honorTimestamps: { type: 'boolean' }
        })
      }
    }, ['selector', 'endpoints'])
  }, ['apiVersion', 'kind', 'metadata', 'spec']),
  PrometheusRule: closed({
    apiVersion: { const: 'monitoring.coreos.com/v1' },
    kind: { const: 'PrometheusRule' },
    metadata: META,
    spec: closed({
      groups: {
        type: 'array',
        items: closed({
          name: { type: 'string', minLength: 1 },
          interval: { type: 'string', pattern: DURATION },
          rules: {
            type: 'array',
            items: closed({
              record: { type: 'string' },
              alert: { type: 'string' },
              expr: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
              for: { type: 'string', pattern: DURATION },
              labels: strings,
              annotations: strings
            }, ['expr'])
          }
        }, ['name', 'rules'])
      }
    }, ['groups'])
  }, ['apiVersion', 'kind', 'metadata', 'spec'])
}

export interface Schemas {
  compose: Check
  kustomization: Check
  /** the check of a Kubernetes object, by "apiVersion kind"; undefined for a kind the vendored definitions lack */
  kubernetes: (apiVersion: string, kind: string) => Check | undefined
}

export function loadSchemas (): Schemas {
  const ajv = newAjv()
  const composeFile = join(dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json')
  const compose = ajv.compile(withoutDraft(JSON.parse(readFileSync(composeFile, 'utf8'))))
  const kustomization = ajv.compile(withoutDraft(fixture('kustomization.json')))
  const k8s = fixture('kubernetes.json') as { kinds: Record<string, string>, definitions: Record<string, unknown> }
  ajv.addSchema({ $id: 'kubernetes', definitions: strictKubernetes(k8s.definitions) })
  const byKind = new Map<string, Check>()
  return {
    compose: check(compose),
    kustomization: check(kustomization),
    kubernetes: (apiVersion, kind) => {
      const key = `${apiVersion} ${kind}`
      const operator = apiVersion === 'monitoring.coreos.com/v1' ? OPERATOR_KINDS[kind] : undefined
      const definition = k8s.kinds[key]
      if (definition === undefined && operator === undefined) return undefined
      if (!byKind.has(key)) byKind.set(key, check(ajv.compile(operator ?? { $ref: `kubernetes#/definitions/${definition}` })))
      return byKind.get(key)
    }
  }
}
