import { execFileSync } from 'node:child_process'
import t from 'tap'
import { runInChild } from './child.js'
import { DroppedRecordRelease, YoungGenerationSteering } from '../../src/heap.js'

const LIMIT_MB = 8

/*
 * A run of creates as the young generation sees it: what is allocated survives (kept, as stored records are),
 * with short-lived garbage beside it. Answers the largest new space seen, in MB. In a child process, because
 * V8's flags are the process's; the load without the cap is the control that shows the same load grows the
 * young generation by doublings (8 MB to 16, 32 and, on Node 24, 64). On Node 22 the capped one stays at 8 MB.
 * On Node 24 it takes more pages beside its semi-spaces under this load, where every object survives (11.5-23.75
 * MB at an 8 MB cap in ten runs, 2026-11-27, while --trace-gc-nvp gave a semi-space capacity of 4 MB, the cap's,
 * at every collection): not a doubling, so it is held to half of what the same load grows to without the cap.
 */
const largestNewSpaceMb = (capped: boolean, nodeArgs: string[] = []): number => Number(runInChild(`
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
`, nodeArgs))

t.test('a load whose allocations survive grows the young generation no further than the cap', async (t) => {
  const uncapped = largestNewSpaceMb(false)
  const capped = largestNewSpaceMb(true)
  t.ok(uncapped >= 4 * LIMIT_MB, `without the cap V8 grows it by doublings under the same load (${uncapped} MB)`)
  t.ok(capped <= uncapped / 2, `with it, it grows no doubling past the limit (${capped} MB against ${uncapped})`)
})

t.test('an operator\'s own young generation flags are kept', async (t) => {
  t.ok(largestNewSpaceMb(true, ['--max-semi-space-size=16']) >= 4 * LIMIT_MB, 'the cap steps aside for --max-semi-space-size')
})

t.test('at the cap the young generation is polled, not watched at every collection, and grows again after a shrink', async (t) => {
  const MB = 1048576
  let size = 2 * MB
  const calls: string[] = []
  const steering = new YoungGenerationSteering(16 * MB, {
    size: () => size,
    setFactor: (factor) => { calls.push(`factor ${factor}`) },
    watch: (everyCollection) => { calls.push(everyCollection ? 'every collection' : 'poll') }
  })
  const step = (mb: number): string[] => { size = mb * MB; calls.length = 0; steering.step(); return [...calls] }
  t.same(step(2), ['factor 2', 'every collection'], 'below the cap: growth on, each collection looked at')
  t.same(step(8), [], 'still below: nothing changes')
  t.same(step(16), ['factor 1', 'poll'], 'at the cap: growth off, and the observer gives way to the poll')
  t.same(step(16.5), [], 'a page over it (V8 adds one between collections): nothing changes')
  t.same(step(4), ['factor 2', 'every collection'], 'after V8 shrank it: growth on again, watched again')
})

t.test('a full collection follows once enough records were dropped, at most one per interval', async (t) => {
  let now = 0
  const log: string[] = []
  const waiting: Array<{ run: () => void, at: number }> = []
  const release = new DroppedRecordRelease({
    collect: () => { log.push(`collect at ${now}`) },
    now: () => now,
    later: (run, ms) => { log.push(`wait ${ms}`); waiting.push({ run, at: now + ms }) }
  }, 1000, 10_000)
  const drop = (records: number, at = now): string[] => { now = at; log.length = 0; release.note(records); return [...log] }
  t.same(drop(600), [], 'below the threshold: nothing')
  t.same(drop(400), ['collect at 0'], 'the threshold reached: a collection at once')
  t.same(drop(900, 4000), [], 'counted afresh from the collection')
  t.same(drop(200, 6000), ['wait 4000'], 'reached again within the interval: waits for its end')
  t.same(drop(5000, 7000), [], 'more drops meanwhile: still the one wait')
  now = waiting[0].at
  log.length = 0
  waiting[0].run()
  t.same(log, ['collect at 10000'], 'one collection at the end of the interval')
  t.same(drop(999, 12_000), [], 'and the count starts again')
})

/*
 * Which of V8's optimising tiers compiled a hot function, in a child process (V8's flags are the process's):
 * the bits of %GetOptimizationStatus seen while it warms up (32: Maglev code, 64: TurboFan code).
 */
const tiersSeen = (skip: boolean, nodeArgs: string[] = []): { maglev: boolean, turbofan: boolean } => JSON.parse(runInChild(`
  import { skipMaglev } from './src/heap.ts'
  if (${String(skip)}) skipMaglev()
  function hot (a, b) { return { sum: a + b, text: 'x' + a } }
  let seen = 0
  for (let i = 0; i < 200000; i++) {
    hot(i, i + 1)
    if (i % 500 === 0) { seen |= %GetOptimizationStatus(hot); await new Promise((resolve) => setImmediate(resolve)) }
  }
  console.log(JSON.stringify({ maglev: (seen & 32) !== 0, turbofan: (seen & 64) !== 0 }))
`, [...nodeArgs, '--allow-natives-syntax']))

/** Whether this runtime's V8 uses Maglev unless told otherwise (Node 24 does, Node 22 does not). */
const maglevByDefault = /--maglev \(.*\)\s+type: bool\s+default: --maglev\b/.test(execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }))

t.test('hot code is optimised by TurboFan alone, never by Maglev', async (t) => {
  if (maglevByDefault) t.ok(tiersSeen(false).maglev, 'without the switch this runtime compiles the function with Maglev first')
  const skipped = tiersSeen(true)
  t.notOk(skipped.maglev, 'no Maglev code')
  t.ok(skipped.turbofan, 'TurboFan still optimises it')
})

t.test('an operator\'s own choice of tiers is kept', { skip: !maglevByDefault && 'this runtime compiles nothing with Maglev, even when told to (Node 22)' }, async (t) => {
  t.ok(tiersSeen(true, ['--maglev']).maglev, 'the switch steps aside for --maglev')
})

/*
 * Runs of creates between resets as the old generation sees them: records kept, and now and then most of them
 * dropped at once (a reset). Answers the largest old space seen and the full collections counted, in a child
 * process (V8's flags are the process's). The load without the bound is the control: V8's own growth factor
 * lets garbage pile up to several times what is alive before it collects (600,000 records a round: with 300,000
 * Node 24's own growth measured 61-122 MB at its largest against 58-83 with the bound, five runs each, and a
 * single pair could come out either way; with 600,000 165-205 against 91-121 at a bound of 25%, and at Node 24's
 * 50% 165-226 against 94-137, six runs). atOnce counts the full collections
 * asked for in the first 100 ms (V8 marks those forced): the start's own. V8 may collect of its own accord in
 * that time on a loaded machine (a CI run met one with --heap-growing-percent=400), which says nothing of ours.
 */
const oldGeneration = (bounded: boolean, nodeArgs: string[] = []): { mostMb: number, fullCollections: number, atOnce: number } => JSON.parse(runInChild(`
  import { getHeapSpaceStatistics } from 'node:v8'
  import { PerformanceObserver, constants } from 'node:perf_hooks'
  import { boundOldGeneration } from './src/heap.ts'
  let fullCollections = 0
  let askedFor = 0
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.detail.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue
      fullCollections++
      if (e.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) askedFor++
    }
  }).observe({ entryTypes: ['gc'] })
  if (${String(bounded)}) boundOldGeneration()
  await new Promise((resolve) => setTimeout(resolve, 100))
  const atOnce = askedFor
  const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size
  let kept = []
  let most = 0
  for (let round = 0; round < 6; round++) {
    kept = kept.slice(0, 1000)
    for (let i = 0; i < 600000; i++) {
      kept.push({ id: String(i), text: 'message ' + i, round })
      if (i % 2000 === 0) { most = Math.max(most, oldSpace()); await new Promise((resolve) => setImmediate(resolve)) }
    }
  }
  console.log(JSON.stringify({ mostMb: most / 1048576, fullCollections, atOnce }))
`, nodeArgs))

t.test('what a reset drops is collected before the old generation grows far past what is alive', async (t) => {
  const unbounded = oldGeneration(false)
  const bounded = oldGeneration(true)
  t.equal(unbounded.atOnce, 0, 'without the bound no full collection is asked for')
  t.ok(bounded.atOnce >= 1, 'with the bound, one follows at once (the start\'s threshold was set without it)')
  t.ok(bounded.fullCollections > unbounded.fullCollections, `more full collections with the bound (${bounded.fullCollections} against ${unbounded.fullCollections})`)
  t.ok(bounded.mostMb < unbounded.mostMb, `a smaller old generation at its largest (${bounded.mostMb.toFixed(0)} MB against ${unbounded.mostMb.toFixed(0)})`)
})

t.test('an operator\'s own heap growth flag is kept', async (t) => {
  const theirs = oldGeneration(true, ['--heap-growing-percent=400'])
  const ours = oldGeneration(true)
  t.equal(theirs.atOnce, 0, 'no full collection of the sandbox\'s own')
  t.ok(theirs.fullCollections < ours.fullCollections, `the bound steps aside for --heap-growing-percent (${theirs.fullCollections} full collections against ${ours.fullCollections})`)
})
