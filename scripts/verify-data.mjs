// `npm run build`'s last step: the checks a start makes of the built-in data (fixtures/, scenarios/), run
// once on the build just made (a file the sandbox could not serve fails the build), and dist/verified-data.json
// listing each checked file's SHA-256, so that a start of this build does not check them again
// (src/seed/verified.ts). Plain JavaScript over dist/: no loader to wait for.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
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

try {
  const validator = createValidator(API_SCHEMAS)
  new ScenarioLibrary(validator, loadReference(validator)) // eslint-disable-line no-new
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
