import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const LIMIT_MB = 8

/*
 * A run of creates as the young generation sees it: what is allocated survives (kept, as stored records are),
 * with short-lived garbage beside it. Answers the largest new space seen, in MB. In a child process, because
 * V8's flags are the process's; the load without the cap is the control that shows the same load grows the
 * young generation by doublings (8 MB to 16, 32 and, on Node 24, 64). V8 may add a page or two to the new
 * space between collections (Node 24: 8.25-9.75 MB at an 8 MB cap), never a doubling.
 */
const largestNewSpaceMb = (capped: boolean, nodeArgs: string[] = []): number => Number(execFileSync(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', `
  import { getHeapSpaceStatistics } from 'node:v8'
  import { capYoungGeneration } from './src/heap.ts'
  if (${String(capped)}) capYoungGeneration(${LIMIT_MB} * 1048576)
  const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
  const kept = []
  let most = 0
  for (let i = 0; i < 400000; i++) {
    kept.push({ id: String(i), text: 'message ' + i, at: [i, i + 1] })
    JSON.stringify({ garbage: i })
    if (i % 1000 === 0) { most = Math.max(most, newSpace()); await new Promise((resolve) => setImmediate(resolve)) }
  }
  console.log(most / 1048576)
`], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }))

t.test('a load whose allocations survive grows the young generation no further than the cap', async (t) => {
  t.ok(largestNewSpaceMb(false) >= 4 * LIMIT_MB, 'without the cap V8 grows it by doublings under the same load')
  t.ok(largestNewSpaceMb(true) < 2 * LIMIT_MB, 'with it, it stays at the limit')
})

t.test('an operator\'s own young generation flags are kept', async (t) => {
  t.ok(largestNewSpaceMb(true, ['--max-semi-space-size=16']) >= 4 * LIMIT_MB, 'the cap steps aside for --max-semi-space-size')
})
