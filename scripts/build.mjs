// `npm run build`, and `npm start`'s build when a source changed (build-if-changed.mjs): the one list of the
// build's steps. TypeScript to dist/, the modules bundled (dist/cli.js loads the bundle, bundle.mjs), then the
// built-in data checked once and listed for the starts of this build (verify-data.mjs). Plain JavaScript: no
// loader to wait for.
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'

const tsc = new URL('../node_modules/typescript/bin/tsc', import.meta.url).pathname
const script = (name) => new URL(name, import.meta.url).pathname

/** Runs the steps in the project at root; the exit status of the step that failed, else 0. */
export function build (root) {
  const steps = [[tsc, '-p', 'tsconfig.build.json'], [script('bundle.mjs'), root], [script('verify-data.mjs'), root]]
  for (const args of steps) {
    const step = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
    if (step.status !== 0) return step.status ?? 1
  }
  return 0
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(build(new URL('..', import.meta.url).pathname))
