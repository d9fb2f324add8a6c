// `npm start`'s build step: builds dist/ as `npm run build` does, only when a source changed since the last build.
// A changed, added or removed file gives its file or its directory a newer mtime than dist/.build-stamp
// (so does a `git pull`, which writes the files it changes), and the stamp takes the time the build
// started, so an edit made during a build is seen at the next start. Plain JavaScript: no loader to wait for.
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from './build.mjs'

// the project's root, or the directory given (the tests build a small project of their own)
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname
const stamp = join(root, 'dist', '.build-stamp')
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']
const lock = join(root, 'dist', '.build-lock')
// a build takes seconds: a lock this old was left by a build that was killed
const STALE_LOCK_MS = 120_000

/** The newest mtime of a file, or of a directory and everything under it. */
function newest (path) {
  const s = statSync(path, { throwIfNoEntry: false })
  if (s === undefined) return 0
  let t = s.mtimeMs
  if (s.isDirectory()) for (const name of readdirSync(path)) t = Math.max(t, newest(join(path, name)))
  return t
}

/**
 * One build at a time: a second start (or a test) that finds a build under way waits for it, then finds
 * its stamp and builds nothing; two builds at once would write and delete each other's files.
 */
function takeLock () {
  mkdirSync(join(root, 'dist'), { recursive: true })
  for (;;) {
    try {
      mkdirSync(lock)
      return
    } catch (err) {
      if (err.code !== 'EEXIST') throw err
    }
    const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs
    if (since !== undefined && Date.now() - since > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true })
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
  }
}

/** Builds when an input is newer than the stamp; the exit status of the step that failed, else 0. */
function buildIfChanged () {
  const built = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0
  const changed = Math.max(...inputs.map((p) => newest(join(root, p))))
  if (changed < built) return 0
  const started = new Date()
  const status = build(root)
  if (status !== 0) return status
  writeFileSync(stamp, '')
  utimesSync(stamp, started, started)
  return 0
}

takeLock()
let status = 1
try {
  status = buildIfChanged()
} finally {
  rmSync(lock, { recursive: true, force: true })
}
process.exit(status)
