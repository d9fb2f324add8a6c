import type { Ajv } from 'ajv'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ConfigError, type Config } from '../config.js'
import { API_SCHEMAS } from '../schemas/index.js'
import { createValidator } from '../schemas/validation.js'
import { ScenarioControl } from '../seed/control.js'
import type { Reference } from '../schemas/reference.js'
import { loadReference } from '../seed/fixtures.js'
import { ScenarioLibrary } from '../seed/scenarios.js'
import { loadVerified } from '../seed/verified.js'
import { createRepos, type Repos } from '../store/index.js'
import { FilePersistence } from '../store/persistence.js'
import { NamedSnapshots } from '../store/snapshots.js'
import { CHANGES } from '../store/changes.js'
import { LocalBackend, World } from '../store/world.js'

declare module 'fastify' {
  interface FastifyInstance {
    world: World
    repos: Repos
    control: ScenarioControl
    scenarios: ScenarioLibrary
    reference: Reference
    /** The API schemas without the API's scalar coercion: what scenario files and snapshots must pass. */
    dataValidator: Ajv
    snapshots: NamedSnapshots
  }
}

/**
 * The data: fixtures and scenarios checked against the API schemas (a file that could not be served
 * stops the start), then the partners from the data dir, or from the start scenario on a first start.
 */
async function storePlugin (fastify: FastifyInstance, opts: { config: Config }): Promise<void> {
  const { config } = opts
  const validator = createValidator(API_SCHEMAS)
  // the files this build already checked skip the schema and rule checks (seed/verified.ts)
  const verified = loadVerified()
  const reference = loadReference(validator, verified)
  const scenarios = new ScenarioLibrary(validator, reference, undefined, verified)
  if (!scenarios.has(config.scenario)) {
    throw new ConfigError(`invalid option --scenario / SANDBOX_SCENARIO = "${config.scenario}": expected one of ${scenarios.names().join(', ')}`)
  }
  const files = config.dataDir === undefined ? undefined : new FilePersistence(config.dataDir, undefined, (message) => fastify.log.error(message))
  const world = new World(reference, { maxRecords: config.maxRecords, maxAgents: config.maxAgents }, CHANGES, new LocalBackend(files))
  const control = new ScenarioControl(world, scenarios, { reference, validator }, { scenario: config.scenario, seed: config.seed })
  const saved = files === undefined ? [] : await files.loadAll((message) => fastify.log.warn(message))
  control.restore(saved)
  files?.adopt(world.partners.values())
  // every partner of the start scenario on a first start; afterwards only those without a file
  await control.loadStart()

  fastify.decorate('world', world)
  fastify.decorate('repos', createRepos(world))
  fastify.decorate('control', control)
  fastify.decorate('scenarios', scenarios)
  fastify.decorate('reference', reference)
  fastify.decorate('dataValidator', validator)
  fastify.decorate('snapshots', new NamedSnapshots(config.dataDir))
  // on close, every pending batch reaches the disk before the process may exit
  fastify.addHook('onClose', async () => { await world.close() })
}

export default fp(storePlugin, { name: 'sandbox-store' })
