// `npm run build`'s last step: the checks a start makes of the built-in data (fixtures/, scenarios/), run
// once on the build just made (a file the sandbox could not serve fails the build), and dist/verified-data.json
// listing each checked file's SHA-256, so that a start of this build does not check them again
// (src/seed/verified.ts); then each built-in scenario's partners built at its own seed, with the checks of
// every generated record, into dist/prebuilt-data.json, so that a start or a reset to them does not generate
// them again (src/seed/prebuilt.ts). Plain JavaScript over dist/: no loader to wait for.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

// the project's root, or the directory given (the tests build a small project of their own, without data)
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname
const dist = join(root, 'dist')
if (!existsSync(join(dist, 'seed', 'verified.js'))) process.exit(0)
const load = async (path) => await import(pathToFileURL(join(dist, path)).href)

const { API_SCHEMAS } = await load('schemas/index.js')
const { createValidator } = await load('schemas/validation.js')
const { loadReference } = await load('seed/fixtures.js')
const { ScenarioLibrary } = await load('seed/scenarios.js')
const { sha256 } = await load('seed/verified.js')
const { buildPartner } = await load('seed/build.js')
const { loadFaker } = await load('seed/faker.js')
const { scenarioIdentity } = await load('seed/identities.js')
const { prebuiltScenario } = await load('seed/prebuilt.js')
const { settingsFor } = await load('seed/scenarios.js')

// scenarios of more generated customers than this are not built here (prebuilt.ts keeps only small ones)
const PREBUILD_CUSTOMERS = 20_000

const prebuilt = new Map()
try {
  const validator = createValidator(API_SCHEMAS)
  const reference = loadReference(validator)
  const library = new ScenarioLibrary(validator, reference)
  await loadFaker()
  for (const name of library.names()) {
    const loaded = library.get(name)
    const { scenario } = loaded
    const customers = scenario.partners.flatMap((p) => p.agents).reduce((n, a) => n + settingsFor(scenario, a.id).customers, 0)
    if (customers > PREBUILD_CUSTOMERS) continue
    const partners = scenario.partners.map((def) => {
      const identity = scenarioIdentity(def)
      return { identity, snapshot: buildPartner({ reference, validator }, loaded, scenario.seed, identity) }
    })
    const file = prebuiltScenario(scenario.seed, partners)
    if (file !== null) prebuilt.set(name, file)
  }
} catch (err) {
  process.stderr.write(`verify-data: ${err.message}\n`)
  process.exit(1)
}
const files = {}
for (const dir of ['fixtures', 'scenarios']) {
  for (const name of readdirSync(join(root, dir)).filter((f) => f.endsWith('.json')).sort()) {
    files[`${dir}/${name}`] = sha256(readFileSync(join(root, dir, name), 'utf8'))
  }
}
writeFileSync(join(dist, 'verified-data.json'), `${JSON.stringify({ files }, null, 2)}\n`)
rmSync(join(dist, 'prebuilt'), { recursive: true, force: true })
mkdirSync(join(dist, 'prebuilt'))
for (const [name, file] of prebuilt) writeFileSync(join(dist, 'prebuilt', `${name}.json`), JSON.stringify(file))
