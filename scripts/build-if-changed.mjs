// `npm start`'s build step: compiles src/ to dist/ only when a source changed since the last build.
// A changed, added or removed file gives its file or its directory a newer mtime than dist/.build-stamp
// (so does a `git pull`, which writes the files it changes), and the stamp takes the time the build
// started, so an edit made during a build is seen at the next start. Plain JavaScript: no loader to wait for.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

// the project's root, or the directory given (the tests build a small project of their own)
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname
const stamp = join(root, 'dist', '.build-stamp')
const tsc = new URL('../node_modules/typescript/bin/tsc', import.meta.url).pathname
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']

/** The newest mtime of a file, or of a directory and everything under it. */
function newest (path) {
  const s = statSync(path, { throwIfNoEntry: false })
  if (s === undefined) return 0
  let t = s.mtimeMs
  if (s.isDirectory()) for (const name of readdirSync(path)) t = Math.max(t, newest(join(path, name)))
  return t
}

const built = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0
const changed = Math.max(...inputs.map((p) => newest(join(root, p))))
if (changed >= built) {
  const started = new Date()
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
  // as `npm run build`: the built-in data checked once, and listed for the starts of this build
  const verify = spawnSync(process.execPath, [new URL('verify-data.mjs', import.meta.url).pathname, root], { cwd: root, stdio: 'inherit' })
  if (verify.status !== 0) process.exit(verify.status ?? 1)
  writeFileSync(stamp, '')
  utimesSync(stamp, started, started)
}
