import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { API_SCHEMAS } from '../../src/schemas/index.js'
import { createValidator } from '../../src/schemas/validation.js'
import { DataError } from '../../src/seed/check.js'
import { loadReference } from '../../src/seed/fixtures.js'
import { ScenarioLibrary } from '../../src/seed/scenarios.js'
import { checkEverything, loadVerified, sha256 } from '../../src/seed/verified.js'

/*
 * The list of built-in data files a build checked (scripts/verify-data.mjs, src/seed/verified.ts): a start
 * trusts a file only while its text is the one that was checked, and only while the fixtures the checks used
 * are unchanged; without a list everything is checked.
 */

const ROOT = new URL('../../', import.meta.url)
const EMPTY = readFileSync(new URL('scenarios/empty.json', ROOT), 'utf8')
// a scenario that breaks the Scenario schema (its seed must be an integer)
const BROKEN = EMPTY.replace(/"seed":\s*\d+/, '"seed": "not a number"')

/** A project directory with one scenario file, and a list of what the "build" checked. */
function project (scenarioText: string, listed: Record<string, string>): { dir: URL, list: URL } {
  const root = mkdtempSync(join(tmpdir(), 'verified-'))
  mkdirSync(join(root, 'scenarios'))
  mkdirSync(join(root, 'fixtures'))
  writeFileSync(join(root, 'scenarios', 'empty.json'), scenarioText)
  for (const name of ['banks.json', 'investment-types.json', 'products.json', 'public-accounts.json']) {
    writeFileSync(join(root, 'fixtures', name), readFileSync(new URL(`fixtures/${name}`, ROOT)))
  }
  writeFileSync(join(root, 'verified-data.json'), JSON.stringify({ files: listed }))
  return { dir: pathToFileURL(`${root}/scenarios/`), list: pathToFileURL(join(root, 'verified-data.json')) }
}

const fixtureHashes = (): Record<string, string> => Object.fromEntries(['banks.json', 'investment-types.json', 'products.json', 'public-accounts.json']
  .map((name) => [`fixtures/${name}`, sha256(readFileSync(new URL(`fixtures/${name}`, ROOT), 'utf8'))]))

const library = (dir: URL, verified = checkEverything): ScenarioLibrary => {
  const ajv = createValidator(API_SCHEMAS)
  return new ScenarioLibrary(ajv, loadReference(ajv), dir, verified)
}

t.test('a file whose text the build checked skips the checks; any other text gets them all', async (t) => {
  t.equal(BROKEN === EMPTY, false, 'the broken scenario differs from the real one')
  const listed = project(BROKEN, { ...fixtureHashes(), 'scenarios/empty.json': sha256(BROKEN) })
  const root = new URL('../', listed.dir)
  t.throws(() => library(listed.dir), DataError, 'checked in full, the broken file stops the load')
  t.doesNotThrow(() => library(listed.dir, loadVerified(listed.list, root)), 'listed with its own text, its checks are skipped (the build made them)')

  const edited = project(BROKEN, { ...fixtureHashes(), 'scenarios/empty.json': sha256(EMPTY) })
  t.throws(() => library(edited.dir, loadVerified(edited.list, new URL('../', edited.dir))), /scenarios\/empty\.json: seed/, 'edited since the build: every check, naming the field')
})

t.test('nothing is trusted when a fixture changed since the build, or when there is no list', async (t) => {
  const { dir, list } = project(EMPTY, { ...fixtureHashes(), 'scenarios/empty.json': sha256(EMPTY) })
  const root = new URL('../', dir)
  t.equal(loadVerified(list, root)('scenarios/empty.json', EMPTY), true, 'listed, fixtures unchanged: trusted')
  writeFileSync(new URL('fixtures/products.json', root), readFileSync(new URL('fixtures/products.json', ROOT), 'utf8').replace('"products"', ' "products"'))
  t.equal(loadVerified(list, root)('scenarios/empty.json', EMPTY), false, 'a fixture the checks read changed: nothing is trusted')
  t.equal(loadVerified(new URL('missing.json', root), root)('scenarios/empty.json', EMPTY), false, 'no list (running from the sources): nothing is trusted')
})
