import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { CODE_DIR, ROOT } from '../files.js'

/*
 * The built-in data files (fixtures/, scenarios/) that passed every check when this build was made:
 * scripts/verify-data.mjs runs the checks of a start at the end of `npm run build` and lists each file's
 * SHA-256 in dist/verified-data.json. A start then skips the schema and rule checks of a file whose text is
 * still the one that was checked (their ajv compiling was a tenth of the start-up); an edited or added file
 * gets every check, as before. The scenario checks use the fixtures (banks, products), so an edited fixture
 * makes the start check everything. Running from the sources (tsx, the tests) there is no list: every file
 * is checked.
 */

/** Whether a data file with this text passed every check when the build was made. */
export type Verified = (file: string, text: string) => boolean

export const checkEverything: Verified = () => false

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

/** dist/verified-data.json in the built code; src/verified-data.json (never written) from the sources. */
export const VERIFIED_DATA = new URL('verified-data.json', CODE_DIR)

export interface VerifiedList { files: Record<string, string> }

/** The list of a build, checked against the fixtures as they are now; anything unreadable trusts nothing. */
export function loadVerified (list: URL = VERIFIED_DATA, root: URL = ROOT): Verified {
  let files: Record<string, string>
  try {
    files = (JSON.parse(readFileSync(list, 'utf8')) as VerifiedList).files
    for (const [file, hash] of Object.entries(files)) {
      if (file.startsWith('fixtures/') && sha256(readFileSync(new URL(file, root), 'utf8')) !== hash) return checkEverything
    }
  } catch {
    return checkEverything
  }
  return (file, text) => files[file] !== undefined && files[file] === sha256(text)
}
