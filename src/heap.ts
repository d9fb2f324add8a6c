import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** The major version of the V8 this process runs on: 12 on Node 22, 13 on Node 24. */
export const V8_MAJOR = Number(process.versions.v8.split('.')[0])

/**
 * The most V8's young generation (its new space: two semi-spaces) may grow to, in bytes: 8 MB semi-spaces.
 * Bare Fastify's reached 16 MB semi-spaces under W2 (Node 24, --trace-gc-nvp, 2026-11-27), but the sandbox
 * with V8 let grow that far (--max-semi-space-size=16) had a p99 of 13-15 ms against 10-12 with this cap, and
 * 15 MB more resident memory; with 4 MB semi-spaces 7-11 MB less memory but a p99 of 12.5 ms against 9
 * (docs/benchmarks.md). V8 doubles the new space each time the bytes that
 * survived its collections since the last growth add up to its size, up to 128 MB on Node 24 (32 MB on
 * Node 22). Every create the sandbox stores survives, so under a run of writes it grew to the most within
 * seconds: resident memory that bare Fastify never took, and collections that each copied the survivors of a
 * 64 MB semi-space (W2 on Node 24, 50 connections, --trace-gc-nvp: 1.5 MB survived each scavenge, median
 * pause 9-11 ms where bare Fastify's took about 1 ms, which made the sandbox's p99; docs/benchmarks.md).
 */
export const YOUNG_GENERATION_BYTES = 16 * 1024 * 1024

const GROWTH_FACTOR = 2
/** How often a young generation at its limit is looked at for a shrink (below), in ms. */
const SHRINK_POLL_MS = 1000

function newSpaceBytes (): number {
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size
  return 0
}

/** Whether the operator gave a V8 flag that `flag` matches, on the command line or in NODE_OPTIONS: theirs is kept. */
function operatorGave (flag: RegExp): boolean {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) => flag.test(arg))
}

/** What steering the young generation reads and sets: V8's and Node's in capYoungGeneration, a test's own in tests. */
export interface YoungGenerationControls {
  /** The new space's size in bytes. */
  size: () => number
  /** V8's growth factor for the new space, read at its next growth. */
  setFactor: (factor: number) => void
  /** true: call step after every collection; false: after a poll of SHRINK_POLL_MS instead. */
  watch: (everyCollection: boolean) => void
}

/**
 * The steering of capYoungGeneration: growth allowed (V8's factor, 2) while the new space is below the limit and
 * stopped (factor 1) once it is there. Below the limit any collection may grow it, so each one is looked at; at
 * the limit only a shrink needs undoing, which V8 makes when allocation slows down, and a poll sees it. Watched
 * under load, every collection cost Node a performance entry and a deprecated accessor made for it (about 1% of
 * W2's CPU in V8's profile, node:internal/perf/observe, 2026-11-27); the poll costs next to nothing.
 */
export class YoungGenerationSteering {
  /** Whether the new space was below the limit at the last step (undefined before the first). */
  private below: boolean | undefined
  constructor (private readonly limit: number, private readonly controls: YoungGenerationControls) {}

  step (): void {
    const below = this.controls.size() < this.limit
    if (below === this.below) return
    this.below = below
    this.controls.setFactor(below ? GROWTH_FACTOR : 1)
    this.controls.watch(below)
  }
}

/**
 * Keeps the young generation at most `limit` bytes for the life of the process. The size V8 may grow it to
 * is fixed when the process starts (--max-semi-space-size, a flag the sandbox cannot give itself when run as
 * `node dist/cli.js`), but the factor it grows by is read at every growth (YoungGenerationSteering above).
 * The observer runs between turns of the event loop, so collections within one long synchronous task could
 * grow it a doubling past the limit before it is stopped (the start's data load did not: 16 MB after it, and
 * under W2). V8 may still shrink it when allocation slows; it grows back to the limit under the next load
 * (within a poll of SHRINK_POLL_MS).
 */
export function capYoungGeneration (limit = YOUNG_GENERATION_BYTES): void {
  // any semi-space flag (--max-semi-space-size, --min-semi-space-size, ...)
  if (operatorGave(/semi-space/)) return
  let observer: PerformanceObserver | undefined
  let poll: NodeJS.Timeout | undefined
  const steering = new YoungGenerationSteering(limit, {
    size: newSpaceBytes,
    setFactor: (factor) => { setFlagsFromString(`--semi-space-growth-factor=${factor}`) },
    watch: (everyCollection) => {
      observer?.disconnect()
      clearInterval(poll)
      observer = poll = undefined
      if (everyCollection) {
        observer = new PerformanceObserver(step)
        observer.observe({ entryTypes: ['gc'] })
      } else {
        poll = setInterval(step, SHRINK_POLL_MS).unref()
      }
    }
  })
  const step = (): void => { steering.step() }
  step()
}

/**
 * Compiles the sandbox's hot code with V8's two other tiers only (Sparkplug, then TurboFan), not with Maglev,
 * its mid-tier optimising compiler. Maglev compiles many more functions (it starts at a lower call count) on
 * background threads; their working memory (zones, malloc'd) is freed after each compile but kept by glibc's
 * arenas for the life of the process. Under the first W2 load the sandbox's larger code had 26 MB of zones at
 * once against bare Fastify's 11-15 (`v8.getHeapStatistics().peak_malloced_memory`), and 30 MB more resident
 * memory outside the heap (/proc/self/smaps). Without Maglev, side by side (bench/ab.ts, Node 24, five runs):
 * 17-28 MB less resident memory under W2 in four, 5 MB in one, and the same CPU per request within the noise
 * (docs/benchmarks.md). An operator who gives --maglev or --no-maglev keeps the choice.
 * Read at every tier-up decision, so switching it off at the start covers all the code the sandbox runs.
 */
export function skipMaglev (): void {
  if (!operatorGave(/^--(no[-_])?maglev$/)) setFlagsFromString('--no-maglev')
}

/**
 * Keeps the sandbox's compiled code through V8's idle-time collections. After some 8 s without allocation (a
 * test suite between its steps, a bench contender between rounds) V8's memory reducer runs two full collections
 * that reduce the footprint, and those keep no map (an object layout) that no object has: while idle, no request,
 * response or socket is alive, so every optimised function of the request path that had one of their layouts
 * embedded was thrown away (Node 24, --trace-deopt, three idles of 12-16 s after W2: 111-146 functions each
 * time, "embedded weak objects cleared"; 150-190 compiled again under the next load), and the first 2 s of
 * the next load ran at half the throughput with 2-3x the p99 (24,600-33,100 creates against 48,500 and p99
 * 14-15 ms against 6 ms). With the reducer's collections made ordinary ones, idle garbage is still collected
 * and the code stays: 44,000-56,000 creates, p99 4.6-6.7 ms in the same first 2 s; resident memory after idle
 * 144 MB against 111 (the young generation and freed pages are kept for the next load). V8 12 (Node 22) has no
 * such switch and ran no reducing collection in the same idles. An operator who gives a memory reducer flag
 * keeps V8's behaviour with it.
 */
export function keepCodeWhenIdle (): void {
  if (V8_MAJOR < 13 || operatorGave(/^--(no[-_])?memory[-_]reducer/)) return
  setFlagsFromString('--no-memory-reducer-favors-memory')
}

/**
 * How far V8 lets the old generation grow past what its last full collection left alive before it collects
 * again, in percent. V8 picks a factor of its own after each full collection, up to 4x when collections are
 * fast (which they are for a heap of the sandbox's size), and at least 8 MB more. What a sandbox stores lives
 * there, and what a reset drops is garbage there until the next full collection: under runs of creates
 * between resets (W2 without pauses, Node 22) the old generation grew round after round without one, to
 * 108 MB at the fourth where 34-50 MB were alive, and resident memory with it (238 MB; 163-170 at 20%).
 * A tighter bound trades CPU for memory: each full collection under load is a pause of 5-22 ms and some
 * 100 ms of marking on a background thread. The two runtimes sit differently on that trade, so each has its
 * own (side by side, bench/ab.ts w2, 2026-11-28, docs/benchmarks.md):
 * - Node 24 (V8 13): 50%. Against 25%, in three runs (one with twins of each), 5-13% less CPU per create and a
 *   p99 10-20% lower, for 6-18 MB more resident memory under W2; 100% bought little more, for 10-20 MB more.
 * - Node 22 (V8 12): 25%. 50% measured 7% less CPU, the same p99 within the noise, and 18 MB more memory,
 *   where memory is the tighter of Node 22's two figures (1.41-1.46x bare Fastify's, whose own is lower there).
 */
export const OLD_GENERATION_GROWTH_PERCENT = V8_MAJOR >= 13 ? 50 : 25

/**
 * Keeps the old generation within OLD_GENERATION_GROWTH_PERCENT (or 8 MB, V8's least step) of what is alive,
 * from the end of the start on. V8 reads the flag at each full collection, to set the next one's threshold;
 * the start's last one set it with V8's own factor, so one full collection follows at once (a task of its
 * own, after the current one): it also frees what the start's data load left behind. Not before the load,
 * which the bound would have collected many times over (the large scenario's start took 15% longer).
 * An operator who gives --heap-growing-percent keeps theirs, and V8's collections with it.
 */
export function boundOldGeneration (percent = OLD_GENERATION_GROWTH_PERCENT): void {
  if (operatorGave(/^--heap[-_]growing[-_]percent/)) return
  setFlagsFromString(`--heap-growing-percent=${percent}`)
  fullCollection()
}

/**
 * Asks V8 for one full collection, run as a task of its own. Node gives no call for it without --expose-gc
 * on its command line; the flag is read when a context is made, so it is switched on for one new context,
 * whose gc function is called, and off again.
 */
function fullCollection (): void {
  setFlagsFromString('--expose-gc')
  // with execution 'async' V8 posts the collection as a task and answers a promise of it, waited for by no one
  const gc = runInNewContext('gc') as (options: { type: 'major', execution: 'async' }) => unknown
  setFlagsFromString('--no-expose-gc')
  gc({ type: 'major', execution: 'async' })
}

/**
 * Records dropped (resets, restored snapshots, deleted partners and agents; with replicas, those made elsewhere
 * too) after which one full collection is asked for: what they held is garbage in the old generation, which V8
 * collects only when the old generation next grows past its bound (above), so a sandbox held that memory on
 * top of its next data. Under W2 between resets (bench/run.ts, Node 22, 150,000 creates a round) the rounds
 * after the first peaked at 161-163 MB against the first's 152; with a collection after each reset all at
 * 152-153. A test suite's resets of the default scenario (a few hundred records each) add up to this many
 * only over hundreds of resets, and then cost one collection (5-15 ms) among them.
 */
export const RELEASE_AFTER_DROPPED_RECORDS = 50_000
/** At most one such collection in this many ms; drops meanwhile wait for the end of it. */
export const RELEASE_INTERVAL_MS = 10_000

/** What the release reads and calls: V8's and the clock's in releaseDroppedRecords, a test's own in tests. */
export interface ReleaseControls {
  collect: () => void
  now: () => number
  later: (run: () => void, ms: number) => void
}

/** Counts dropped records and asks for a full collection once RELEASE_AFTER_DROPPED_RECORDS have gone. */
export class DroppedRecordRelease {
  private dropped = 0
  private last = -Infinity
  private waiting = false
  constructor (private readonly controls: ReleaseControls, private readonly threshold = RELEASE_AFTER_DROPPED_RECORDS, private readonly intervalMs = RELEASE_INTERVAL_MS) {}

  note (records: number): void {
    this.dropped += records
    if (this.dropped < this.threshold || this.waiting) return
    const wait = this.last + this.intervalMs - this.controls.now()
    if (wait <= 0) return this.release()
    this.waiting = true
    this.controls.later(() => this.release(), wait)
  }

  private release (): void {
    this.waiting = false
    this.dropped = 0
    this.last = this.controls.now()
    this.controls.collect()
  }
}

/**
 * The sandbox's release (server.ts gives it to the world): full collections as boundOldGeneration asks for one.
 * None when the operator gave --heap-growing-percent: then the old generation is theirs to manage.
 */
export function releaseDroppedRecords (): (records: number) => void {
  if (operatorGave(/^--heap[-_]growing[-_]percent/)) return () => {}
  const release = new DroppedRecordRelease({ collect: fullCollection, now: Date.now, later: (run, ms) => { setTimeout(run, ms).unref() } })
  return (records) => release.note(records)
}

/**
 * V8 allocates in the old generation straight away ("pretenures") where most of what a place in the code
 * allocated survived its first collections. A process that starts lean (the shipped data is checked by the
 * build, not at start) meets its first load with a small young generation, in which every request's objects
 * survive: V8 then pretenured per-request objects for good, and such a process served W1 and W2 a third
 * slower than its twins, in every full bench run of 2026-11-23 (bench/run.ts, its in-memory sandbox:
 * 51 / 70 us of CPU per request against 28-31 / 45-50). Switched off once the data are loaded (the load
 * itself keeps it), requests are served at the same cost whatever the first load was like.
 */
export function servingHeap (): void {
  setFlagsFromString('--no-allocation-site-pretenuring')
}

/**
 * Objects of Node's request and response classes made at the start, before any request: V8 ends its in-object
 * slack tracking of a constructor at the seventh object it makes, and lays out every later object from what it
 * has seen by then.
 */
const SETTLING_OBJECTS = 16

/**
 * Makes V8 settle the layout of Node's request and response objects before the first request. Left to the
 * first requests, it settled in about two processes of three that had answered single requests before a load
 * (as a partner's test suite does, and as `bench/run.ts`'s checks did) on a layout in which every request and
 * response object of the process was in dictionary mode from the seventh request on, for the life of the
 * process (`%HasFastProperties` on Node's http.server channels: all of 64,000-92,000 answers, against none in
 * their twins): 6 KB more allocated per request and 13-83% more CPU per request (docs/benchmarks.md). Which
 * seventh request makes that layout was not found; settled here, on objects the constructors alone made, none
 * of sixteen processes had one in dictionary mode (eight of them answered the same single requests first).
 */
export function settleHttpObjectLayouts (): void {
  const made: ServerResponse[] = []
  for (let i = 0; i < SETTLING_OBJECTS; i++) made.push(new ServerResponse(new IncomingMessage(new Socket())))
}
