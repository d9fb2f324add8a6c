import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { LAUNCH_FLAGS } from '../src/heap.js'
import { ROOT } from './built.js'

/*
 * The V8 flags the sandbox's command is launched with (src/heap.ts LAUNCH_FLAGS): the same in every place that
 * launches it, known to the runtime this test runs on (CI runs it on Node 22, 24 and 26), and each still doing
 * what src/heap.ts says it does, measured against the same code without it in a child process of its own.
 */

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8')

t.test('every launch of the command gives the same flags', async (t) => {
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> }
  t.equal(pkg.scripts.start, `node ${LAUNCH_FLAGS.join(' ')} dist/cli.js`, 'npm start')
  t.equal(read('src/cli.ts').split('\n')[0], `#!/usr/bin/env -S node ${LAUNCH_FLAGS.join(' ')}`, 'the banking-sandbox bin (dist/cli.js keeps the #! line of src/cli.ts)')
  const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))
  t.ok(cmd, 'the Dockerfile has a CMD')
  t.same(JSON.parse(cmd![1]), ['node', ...LAUNCH_FLAGS, 'dist/cli.js'], 'the container image')
  // Node keeps a compile cache per set of V8 flags: the image's is filled with the flags it runs with
  t.match(read('Dockerfile'), `runuser -u node -- node ${LAUNCH_FLAGS.join(' ')} -e `, "the image's compile cache")
})

t.test('this runtime knows every flag and says nothing about any', async (t) => {
  for (const flag of LAUNCH_FLAGS) {
    const run = spawnSync(process.execPath, [flag, '-e', '0'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
    t.equal(run.status, 0, `${flag}: node starts`)
    t.equal(run.stderr, '', `${flag}: nothing on stderr`)
  }
})

/** Runs code with these node flags (and no NODE_OPTIONS) and answers what it printed. */
const runWith = (flags: string[], code: string): string =>
  execFileSync(process.execPath, [...flags, '-e', code], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })

/*
 * A run of creates as the young generation sees it: what is allocated survives (kept, as stored records are),
 * with short-lived garbage beside it. Answers the largest new space seen, in MB.
 */
const LARGEST_NEW_SPACE = `
  const { getHeapSpaceStatistics } = require('node:v8')
  const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
  const kept = []
  let most = 0
  for (let i = 0; i < 1500000; i++) {
    kept.push({ id: String(i), text: 'message ' + i, at: [i, i + 1] })
    JSON.stringify({ garbage: i })
    if (i % 1000 === 0) most = Math.max(most, newSpace())
  }
  console.log(most / 1048576)
`

/*
 * Node 24's V8 counts pages it adds beside the semi-spaces under a load where everything survives (16-24 MB seen
 * at this cap while its semi-spaces stayed at 8 MB), so the bound checked is the next doubling's.
 */
t.test('--max-semi-space-size=8: a load whose allocations survive grows the young generation no doubling past 16 MB', async (t) => {
  const flag = LAUNCH_FLAGS.find((f) => f.startsWith('--max-semi-space-size='))!
  const uncapped = Number(runWith([], LARGEST_NEW_SPACE))
  const capped = Number(runWith([flag], LARGEST_NEW_SPACE))
  t.ok(uncapped >= 32, `without it V8 grows it by doublings under the same load (${uncapped} MB)`)
  t.ok(capped < 32, `with it, less than 32 MB (${capped} MB)`)
})

/** Which of V8's optimising tiers compiled a hot function while it warmed up. */
const TIERS_SEEN = `
  function hot (a, b) { return { sum: a + b, text: 'x' + a } }
  let maglev = false
  let turbofan = false
  for (let i = 0; i < 200000; i++) {
    hot(i, i + 1)
    if (i % 500 === 0) { maglev ||= %ActiveTierIsMaglev(hot); turbofan ||= %ActiveTierIsTurbofan(hot) }
  }
  console.log(JSON.stringify({ maglev, turbofan }))
`

/** Whether this runtime's V8 uses Maglev unless told otherwise (Node 24 and 26 do, Node 22 does not). */
const maglevByDefault = /--maglev \(.*\)\s+type: bool\s+default: --maglev\b/.test(execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }))

t.test('--no-maglev: hot code is optimised by TurboFan alone, never by Maglev', async (t) => {
  const seen = (flags: string[]): { maglev: boolean, turbofan: boolean } => JSON.parse(runWith(['--allow-natives-syntax', ...flags], TIERS_SEEN))
  if (maglevByDefault) t.ok(seen([]).maglev, 'without it this runtime compiles the function with Maglev first')
  const skipped = seen(['--no-maglev'])
  t.notOk(skipped.maglev, 'no Maglev code')
  t.ok(skipped.turbofan, 'TurboFan still optimises it')
})

/*
 * Records kept, then a full collection: with --trace-gc-verbose V8 prints the factor by which it lets the old
 * generation grow past what that collection left alive before the next one ("[HeapController] factor 1.6 ...").
 * V8 picks the factor from the collection's speed against the program's, up to a most that it scales with the
 * old generation's bound: 4 from a 2 GB bound up, which is V8's own on a machine (or container) of 4 GB or more.
 */
const KEPT_THEN_COLLECTED = `
  const kept = []
  for (let i = 0; i < 100000; i++) kept.push({ id: String(i), message: 'YOUR STATEMENT IS READY. ' + i })
  gc()
  console.log(kept.length)
`
const growthFactors = (flags: string[]): number[] =>
  [...runWith(['--expose-gc', '--trace-gc-verbose', ...flags], KEPT_THEN_COLLECTED).matchAll(/\[HeapController\] factor ([\d.]+)/g)].map((m) => Number(m[1]))

t.test('--max-old-space-size=1024: V8 lets the old generation grow at most 1.6x past what a full collection left alive', async (t) => {
  const flag = LAUNCH_FLAGS.find((f) => f.startsWith('--max-old-space-size='))
  t.ok(flag, 'the launch flags bound the old generation')
  const bounded = growthFactors([...LAUNCH_FLAGS])
  t.ok(bounded.length > 0, `V8 said its factor (${bounded.join(', ')})`)
  t.ok(bounded.every((f) => f <= 1.6), `with the launch flags at most 1.6 (${bounded.join(', ')})`)
  // V8's own bound is half the memory Node sees, at most 4 GB: from 2 GB up its factor may reach 4
  const ownBoundMb = Number(runWith([], 'console.log(require("node:v8").getHeapStatistics().heap_size_limit / 1048576)'))
  const own = growthFactors(LAUNCH_FLAGS.filter((f) => f !== flag))
  if (ownBoundMb >= 2048) t.ok(own.some((f) => f > 1.6), `without it (V8's bound ${Math.round(ownBoundMb)} MB) V8 let it grow further (${own.join(', ')})`)
  else t.comment(`without it V8's own bound is ${Math.round(ownBoundMb)} MB here, its factor ${own.join(', ')}`)
})
