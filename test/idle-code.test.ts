import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import t from 'tap'
import { LAUNCH_FLAGS } from '../src/heap.js'
import { clientToken, ensureBuilt, kill, startCli } from './built.js'

/*
 * The built sandbox idle after a load, as a partner's test suite leaves it between its steps: V8's memory
 * reducer collects then (some 8-18 s after the load, when its timer finds allocation low), and its collections
 * threw away the request path's optimised code, which made the first seconds of the next load run at half
 * speed; the command is launched with --no-memory-reducer (src/heap.ts LAUNCH_FLAGS). Read from V8's own traces
 * of the real process: no footprint-reducing full collection ("Mark-Compact (reduce)") and no optimised code
 * dropped because the object layouts it embedded were ("embedded weak objects cleared"). The same launch
 * without that one flag is the control, idle for as long: its reducer runs such collections (Node 24 and 26,
 * and Node 22 in some runs), which then usually drop optimised code.
 */
const TRACES = ['--trace-gc', '--trace-deopt', '--trace-memory-reducer']
/** The longest idle (its timer waits 8 s, then until allocation is low; a quiet machine is done in 10-20 s). */
const IDLE_LIMIT_MS = 60_000
const DONE = /Memory reducer: finished GC #\d+ \(done\)/
const MESSAGE = JSON.stringify({ message: 'YOUR STATEMENT IS READY.', fromDepartment: 'CARD SERVICES', fromPerson: 'THANDI MOKOENA' })

t.before(ensureBuilt)

interface Idle { reducing: number, dropped: number, load: number }

/**
 * A load of creates, then an idle until `over` resolves (or, given none, until the memory reducer says it is
 * done, or IDLE_LIMIT_MS): what V8 traced meanwhile. `loaded` resolves when the load is over.
 */
async function idleAfterLoad (launchFlags: readonly string[], loaded: () => void, over?: Promise<unknown>): Promise<Idle> {
  const { child, port, stdout } = await startCli({ LOG_LEVEL: 'warn', NODE_OPTIONS: '' }, undefined, [...TRACES, ...launchFlags])
  try {
    const headers = { authorization: `Bearer ${await clientToken(port, 'partner-a', 'partner-a-secret')}`, 'agent-id': '1001', 'content-type': 'application/json' }
    const load = await autocannon({ url: `http://127.0.0.1:${port}/api/customers/1001100000001/messages`, method: 'POST', headers, body: MESSAGE, connections: 20, duration: 2 })
    if (load['2xx'] === 0 || load.non2xx > 0) throw new Error(`the load was not answered: ${load['2xx']} 2xx, ${load.non2xx} others`)
    loaded()
    const from = stdout().length
    if (over !== undefined) {
      await over
    } else {
      // until its reducer has collected and is done, or has had IDLE_LIMIT_MS: on a busy machine (a CI run's
      // other tests) it can keep finding allocation high and put its collections off for longer than that
      const idleSince = Date.now()
      while (!DONE.test(stdout().slice(from)) && Date.now() - idleSince < IDLE_LIMIT_MS) await sleep(200)
    }
    const idle = stdout().slice(from)
    const count = (pattern: RegExp): number => idle.match(pattern)?.length ?? 0
    return { reducing: count(/Mark-Compact \(reduce\)/g), dropped: count(/embedded weak objects cleared/g), load: load['2xx'] }
  } finally {
    await kill(child)
  }
}

t.test('an idle sandbox keeps its compiled request path', async (t) => {
  // side by side, the launch as shipped idle for as long as the control's memory reducer takes to be done
  let controlLoaded = (): void => {}
  const controlLoading = new Promise<void>((resolve) => { controlLoaded = resolve })
  const controlIdle = idleAfterLoad(LAUNCH_FLAGS.filter((f) => f !== '--no-memory-reducer'), controlLoaded)
  const shippedIdle = idleAfterLoad(LAUNCH_FLAGS, () => {}, controlLoading.then(async () => await controlIdle))
  const [control, shipped] = await Promise.all([controlIdle, shippedIdle])
  // what the control did says whether the idle was long enough to tell; how much optimised code its
  // collections drop varies from run to run (none in some runs on Node 22), so it is told, not asserted
  if (control.reducing > 0) t.comment(`without --no-memory-reducer: ${control.reducing} footprint-reducing collections in the idle after ${control.load} creates, ${control.dropped} optimised functions dropped`)
  else t.comment(`without --no-memory-reducer this runtime ran no footprint-reducing collection in the idle (after ${control.load} creates): the idle tells nothing`)
  t.equal(shipped.reducing, 0, `as launched: no footprint-reducing collection (after ${shipped.load} creates)`)
  t.equal(shipped.dropped, 0, 'and no optimised code dropped for its object layouts')
})
