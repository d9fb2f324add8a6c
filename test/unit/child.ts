import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * Runs an ES module's code in a child Node process from the repository's root (it imports './src/...ts'
 * through tsx) and answers what it printed. For what a test must measure with V8 flags of its own (V8's flags
 * are the process's): `nodeArgs` come first, `args` reach the code as process.argv's last; NODE_OPTIONS is emptied so that the caller's cannot leak in.
 */
export function runInChild (code: string, nodeArgs: string[] = [], args: string[] = []): string {
  return execFileSync(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', code, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
}

/**
 * Code for a child of runInChild run with --expose-gc: `bytesKeptEach(n, make)` keeps make(i) for i < n in an
 * array and answers the heap each one holds after full collections, less its 8-byte slot in the array.
 */
export const BYTES_KEPT_EACH = `
  const bytesKeptEach = (n, make) => {
    globalThis.gc()
    const before = process.memoryUsage().heapUsed
    const kept = new Array(n)
    for (let i = 0; i < n; i++) kept[i] = make(i)
    globalThis.gc()
    const bytes = (process.memoryUsage().heapUsed - before) / n - 8
    return kept.length === n ? bytes : NaN
  }
`
