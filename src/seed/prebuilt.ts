import { readFileSync } from 'node:fs'
import { CODE_DIR } from '../files.js'
import type { PartnerSnapshot } from '../store/records.js'
import type { PartnerIdentity } from './build.js'
import type { LoadedScenario } from './scenarios.js'

/*
 * The partners of the built-in scenarios as the build made them, each at its scenario's own seed:
 * scripts/verify-data.mjs builds them with every check a start makes and writes dist/prebuilt/<scenario>.json. A
 * start, a reset or the docs' examples that ask for exactly such a partner (the scenario's file the one the
 * build checked, its own seed, the partner's own identity in it) get a copy of it instead of generating the data
 * again: generating the default scenario ran in V8's interpreter at every start, and needed faker loaded
 * (together about a third of a start). Building is deterministic, so the copy is what the build would give;
 * test/prebuilt.test.ts checks that against a build made from the sources. Scenarios of much data (`large`)
 * are not prebuilt: their file would cost more to read than a start saves.
 */

/** Where the build writes them: one file per scenario, read when that scenario is first asked for. */
export const PREBUILT_DIR = new URL('prebuilt/', CODE_DIR)

/** A scenario's file: its seed and, per partner, the key of its identity and its snapshot as JSON text. */
export interface PrebuiltScenario {
  seed: number
  partners: Record<string, { identity: string, snapshot: string }>
}

/** The most JSON a scenario's partners may take to be prebuilt. */
export const PREBUILT_MAX_BYTES = 4 * 1024 * 1024

export class Prebuilt {
  private readonly read = new Map<string, PrebuiltScenario | null>()

  /** dir: the build's prebuilt partners; none at all for undefined (and where the build wrote none: the sources). */
  constructor (private readonly dir: URL | undefined = PREBUILT_DIR) {}

  private scenario (name: string): PrebuiltScenario | null {
    let scenario = this.read.get(name)
    if (scenario === undefined) {
      try {
        scenario = this.dir === undefined ? null : JSON.parse(readFileSync(new URL(`${name}.json`, this.dir), 'utf8')) as PrebuiltScenario
      } catch {
        scenario = null
      }
      this.read.set(name, scenario)
    }
    return scenario
  }

  /** Whether the build prebuilt this scenario (and its file is still the one it built from). */
  has (loaded: LoadedScenario): boolean {
    return loaded.checkedByBuild && this.scenario(loaded.scenario.name) !== null
  }

  /** A fresh copy of the partner as the build made it, when this is exactly what it made; else undefined. */
  partner (loaded: LoadedScenario, seed: number, identity: PartnerIdentity): PartnerSnapshot | undefined {
    if (!loaded.checkedByBuild) return undefined
    const scenario = this.scenario(loaded.scenario.name)
    if (scenario === null || scenario.seed !== seed) return undefined
    const built = scenario.partners[identity.id]
    if (built === undefined || built.identity !== identityKey(identity)) return undefined
    return JSON.parse(built.snapshot) as PartnerSnapshot
  }
}

/**
 * What of a partner's identity its data depends on, for a partner its scenario declares (the only ones
 * prebuilt): its id, number and whether it is registered; the rest comes from the scenario (build.ts
 * partnerSteps). So a reset, which names the partner as it stands, finds the start's copy.
 */
const identityKey = (identity: PartnerIdentity): string => JSON.stringify([identity.id, identity.number, identity.registered])

/** What the build writes for a scenario: its partners, unless they take more than PREBUILT_MAX_BYTES (then null). */
export function prebuiltScenario (seed: number, partners: Array<{ identity: PartnerIdentity, snapshot: PartnerSnapshot }>): PrebuiltScenario | null {
  const out: PrebuiltScenario = { seed, partners: {} }
  let bytes = 0
  for (const p of partners) {
    const snapshot = JSON.stringify(p.snapshot)
    bytes += snapshot.length
    out.partners[p.identity.id] = { identity: identityKey(p.identity), snapshot }
  }
  return bytes <= PREBUILT_MAX_BYTES ? out : null
}
