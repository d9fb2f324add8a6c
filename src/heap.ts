import { IncomingMessage, ServerResponse } from './node-http.js'
import { Socket } from 'node:net'

/*
 * How the sandbox's command runs V8. All of it is in the flags the command is launched with: package.json's
 * `start` script, the `#!` line of dist/cli.js (the `banking-sandbox` bin) and the Dockerfile's CMD give
 * LAUNCH_FLAGS below, and test/launch-flags.test.ts keeps the three equal to this list and checks, on each
 * runtime CI runs (Node 22, 24 and 26), that the runtime knows every flag and that each still does what its
 * line below says. Nothing sets a V8 flag while the process runs, and the library (library.ts) sets none: a
 * sandbox inside someone else's process runs with their V8 as it is.
 * An operator's own flags win where they come later on the command line (`node <theirs> dist/cli.js` after
 * ours in a CMD of their own); NODE_OPTIONS is read before the command line, so there ours win.
 * Each flag was measured side by side on each runtime (bench/ab.ts, docs/benchmarks.md "V8 flags").
 */
export const LAUNCH_FLAGS = [
  // The young generation at most 16 MB (two semi-spaces of 8 MB; Node documents the flag). V8 grows it by
  // doublings while what it collects survives, and every create the sandbox stores survives: under a run of
  // writes it went to its most within seconds (64 MB on Node 26, 128 MB on Node 24), memory bare Fastify never
  // took, and each scavenge then copied the survivors of a large semi-space: pauses of 9-11 ms where bare
  // Fastify's took about 1 ms, which made the sandbox's p99.
  '--max-semi-space-size=8',
  // The old generation at most 1 GB (Node documents the flag), which also sets how far V8 lets it grow past what
  // its last full collection left alive: V8 scales that factor with the bound, 4x from a 2 GB bound up (Node's
  // own bound is half the memory of the machine or container, at most 4 GB), 1.6x at 1 GB. Every stored record
  // lives there: with V8's 4x, 40,000 messages stored grew a sandbox's resident memory by 45-97 MB (1.2-2.5 KB
  // each), with this bound by 19-35 MB, on Node 22, 24 and 26, the live heap 27-31 MB at the end either way
  // (bench/records.ts, issue 49). A sandbox whose live data outgrow 1 GB stops with "heap out of memory": an
  // operator gives a larger bound after ours (`node ... --max-old-space-size=4096 dist/cli.js`).
  '--max-old-space-size=1024',
  // Hot code compiled by V8's Sparkplug and TurboFan, not by Maglev (its mid tier, on by default on Node 24 and
  // 26): Maglev compiles many more functions on background threads, and glibc keeps the memory those compiles
  // used (17-28 MB more resident memory under W2 on Node 24, at the same CPU per request).
  '--no-maglev',
  // No idle-time collections by V8's memory reducer. After some 8 s without allocation (a test suite between
  // its steps) its footprint-reducing full collections kept no object layout that no live object had, and
  // threw away the request path's optimised code that embedded one (Node 24: 111-146 functions, Node 26: 28),
  // so the first seconds of the next load ran at half the throughput. Garbage is still collected when
  // allocation asks for it.
  '--no-memory-reducer'
] as const

/**
 * Objects of Node's request and response classes made at the start, before any request: V8 ends its in-object
 * slack tracking of a constructor at the seventh object it makes, and lays out every later object from what it
 * has seen by then.
 */
const SETTLING_OBJECTS = 16

/**
 * Makes V8 settle the layout of Node's request and response objects before the first request (the command
 * only: it shapes the process's own http objects). Left to the first requests, it settled in about two
 * processes of three that had answered single requests before a load (as a partner's test suite does) on a
 * layout in which every request and response object of the process was in dictionary mode from the seventh
 * request on, for the life of the process: 6 KB more allocated per request and 13-83% more CPU per request
 * (docs/benchmarks.md). Settled here, on objects the constructors alone made, none of sixteen processes had one
 * in dictionary mode.
 */
export function settleHttpObjectLayouts (): void {
  const made: object[] = []
  for (let i = 0; i < SETTLING_OBJECTS; i++) made.push(new ServerResponse(new IncomingMessage(new Socket())))
}
