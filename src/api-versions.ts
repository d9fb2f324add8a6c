// spec 9: the versions of the API, as data: the versions plugin serves them, the docs describe them
// (a floor below both, so that the docs need not import a plugin).

/** spec 9: the versions of the API and their status. */
export const VERSIONS: Record<string, 'latest' | 'deprecated' | 'supported'> = {
  4.1: 'latest',
  '4.0': 'deprecated',
  3.1: 'deprecated',
  '3.0': 'deprecated',
  2.1: 'deprecated',
  '2.0': 'deprecated',
  1.3: 'supported'
}
export const LATEST_VERSION = '4.1'

const VERSION_ALTERNATION = Object.keys(VERSIONS).map((v) => v.replace('.', '\\.')).join('|')
export const KNOWN_VERSION_PATH = new RegExp(`^/(${VERSION_ALTERNATION})/api(/|\\?|$)`)
export const UNKNOWN_VERSION_PATH = /^\/\d+(\.\d+)*\/api(\/|\?|$)/
