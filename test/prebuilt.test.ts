import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { API_SCHEMAS } from '../src/schemas/index.js'
import { createValidator } from '../src/schemas/validation.js'
import { buildPartner } from '../src/seed/build.js'
import { loadFaker } from '../src/seed/faker.js'
import { loadReference } from '../src/seed/fixtures.js'
import { scenarioIdentity } from '../src/seed/identities.js'
import { Prebuilt } from '../src/seed/prebuilt.js'
import { ScenarioLibrary } from '../src/seed/scenarios.js'
import { ROOT, clientToken, ensureBuilt, kill, startCli } from './built.js'
import { withoutCredentials } from './helper.js'

/*
 * The built-in scenarios' partners as the build made them (src/seed/prebuilt.ts): the same as building them
 * from today's sources, and what a start of the built sandbox serves without loading faker, which it loads for
 * the first data it does generate.
 */

t.before(ensureBuilt)

const PREBUILT = pathToFileURL(join(ROOT, 'dist', 'prebuilt/'))

t.test('each prebuilt partner is what building it from the sources gives', async (t) => {
  await loadFaker()
  const validator = createValidator(API_SCHEMAS)
  const reference = loadReference(validator)
  const library = new ScenarioLibrary(validator, reference)
  const prebuilt = new Prebuilt(PREBUILT)
  const files = readdirSync(new URL(PREBUILT)).map((f) => f.replace(/\.json$/, ''))
  t.ok(files.includes('default') && files.includes('edge-cases'), `the build prebuilt the default and edge-cases scenarios (${files.join(', ')})`)
  t.notOk(files.includes('large'), 'not the large one')
  for (const name of files) {
    // as the build checked it (the sources' library checks every file itself)
    const loaded = { ...library.get(name), checkedByBuild: true }
    for (const def of loaded.scenario.partners) {
      const identity = scenarioIdentity(def)
      const copy = prebuilt.partner(loaded, loaded.scenario.seed, identity)
      // (credentials aside: each build hashes them with a salt of its own, and the start puts the partner's own in the copy)
      t.same(copy === undefined ? copy : withoutCredentials(copy), withoutCredentials(JSON.parse(JSON.stringify(buildPartner({ reference, validator }, loaded, loaded.scenario.seed, identity)))), `${name}: ${def.id}`)
    }
  }
})

t.test('a prebuilt partner is used only for exactly what was built', async (t) => {
  const validator = createValidator(API_SCHEMAS)
  const library = new ScenarioLibrary(validator, loadReference(validator))
  const prebuilt = new Prebuilt(PREBUILT)
  const loaded = { ...library.get('default'), checkedByBuild: true }
  const def = loaded.scenario.partners[0]
  const identity = scenarioIdentity(def)
  const seed = loaded.scenario.seed
  t.ok(prebuilt.partner(loaded, seed, identity), 'the scenario\'s own seed and identity')
  t.not(prebuilt.partner(loaded, seed, identity), prebuilt.partner(loaded, seed, identity), 'a fresh copy each time')
  t.equal(prebuilt.partner(loaded, seed + 1, identity), undefined, 'not another seed')
  t.equal(prebuilt.partner(loaded, seed, { ...identity, registered: true }), undefined, 'not another identity')
  t.equal(prebuilt.partner({ ...loaded, checkedByBuild: false }, seed, identity), undefined, 'not a scenario file the build did not check (edited since)')
  t.equal(new Prebuilt(undefined).partner(loaded, seed, identity), undefined, 'none without the build\'s files (running from the sources)')
})

/** The ES modules the built sandbox has loaded so far (test/fixtures/module-probe.mjs). */
async function modulesOf (started: Awaited<ReturnType<typeof startCli>>): Promise<string[]> {
  const from = started.stderr().length
  started.child.kill('SIGUSR2')
  for (let i = 0; i < 200 && !/MODULES .*\n/.test(started.stderr().slice(from)); i++) await new Promise((resolve) => setTimeout(resolve, 25))
  return JSON.parse(/MODULES (.*)\n/.exec(started.stderr().slice(from))![1]) as string[]
}

t.test('the built sandbox starts from the prebuilt data without loading faker, and loads it for the first data it generates', async (t) => {
  const started = await startCli({ LOG_LEVEL: 'warn' }, undefined, ['--import', join(ROOT, 'test', 'fixtures', 'module-probe.mjs')])
  t.teardown(() => kill(started.child))
  const faker = (urls: string[]): boolean => urls.some((u) => /\/bundle-en_ZA-[^/]+\.js$/.test(u))
  const token = await clientToken(started.port, 'partner-a', 'partner-a-secret')
  const auth = { authorization: `Bearer ${token}`, 'agent-id': '1001' }
  const base = `http://127.0.0.1:${started.port}`
  t.equal((await fetch(`${base}/api/customers/1001100000001`, { headers: auth })).status, 200, 'the default scenario\'s fixed customer is there')
  t.notOk(faker(await modulesOf(started)), 'faker is not loaded')
  const reset = await fetch(`${base}/__sandbox/reset`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  t.equal(reset.status, 200, 'a reset to the same scenario and seed')
  t.notOk(faker(await modulesOf(started)), 'comes prebuilt too: faker still not loaded')
  const reseeded = await fetch(`${base}/__sandbox/reset`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ seed: 77 }) })
  t.equal(reseeded.status, 200, 'a reset with another seed')
  t.ok(faker(await modulesOf(started)), 'is generated: faker is loaded for it')
  t.equal((await fetch(`${base}/api/customers/1001100000001`, { headers: auth })).status, 200, 'and the fixed customer is there again')
})
