import type { Faker } from '@faker-js/faker'
// The locale entry point loads one locale instead of all seventy (about 170 ms less start-up);
// we only borrow its class and definitions to make a fresh, separately seeded instance per load.
import { faker as enZa } from '@faker-js/faker/locale/en_ZA'

const FakerClass = enZa.constructor as new (options: { locale: Faker['rawDefinitions'] }) => Faker

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
  const faker = new FakerClass({ locale: enZa.rawDefinitions })
  faker.seed(seed)
  return faker
}
