import type { Faker } from '@faker-js/faker'

/*
 * Faker, loaded when data is first generated (loadFaker), not at start: a start of a built-in scenario takes its
 * partners as the build made them (seed/prebuilt.ts), and faker's locale data was a tenth of the start.
 * Every generating path (resets, fresh agents, registrations, the start of a scenario the build did not
 * prebuild) awaits loadFaker() first; seededFaker() then answers synchronously.
 */
// the locale entry point loads one locale instead of all seventy; we only borrow its class and definitions to
// make a fresh, separately seeded instance per load
type Locale = typeof import('@faker-js/faker/locale/en_ZA')
let locale: Locale | undefined
let loading: Promise<Locale> | undefined

/** Loads faker once; resolves when seededFaker() can be called. */
export async function loadFaker (): Promise<void> {
  locale ??= await (loading ??= import('@faker-js/faker/locale/en_ZA'))
}

/** 32-bit FNV-1a: turns "seed:agent" into a faker seed, so each agent's data depends only on its own seed. */
export function hashSeed (...parts: Array<string | number>): number {
  let h = 0x811c9dc5
  for (const ch of parts.join(':')) {
    h ^= ch.charCodeAt(0)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/** A new faker instance (South African English) seeded for one load: never a shared, module-global one. */
export function seededFaker (seed: number): Faker {
  if (locale === undefined) throw new Error('faker is not loaded yet: await loadFaker() before generating data')
  const FakerClass = locale.faker.constructor as new (options: { locale: Faker['rawDefinitions'] }) => Faker
  const faker = new FakerClass({ locale: locale.faker.rawDefinitions })
  faker.seed(seed)
  return faker
}
