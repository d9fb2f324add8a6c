import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import t from 'tap'
import { V8_MAJOR } from '../src/heap.js'
import { clientToken, ensureBuilt, kill, startCli } from './built.js'

/*
 * The built sandbox idle after a load, as a partner's test suite leaves it between its steps: V8's memory
 * reducer collects then (some 8-18 s after the load, when its timer finds allocation low; the test waits for
 * the reducer's own trace saying it is done), and its collections must not throw away the request path's
 * optimised code (src/heap.ts keepCodeWhenIdle), which made the first seconds of the next load run at half
 * speed. Read from V8's own traces of the real process: no
 * footprint-reducing full collection ("Mark-Compact (reduce)") and no optimised code dropped because the object
 * layouts it embedded were ("embedded weak objects cleared"). An operator's own --memory-reducer-favors-memory
 * (V8's default, which the sandbox then keeps) is the control: the same idle does both, so the test can tell.
 * V8 13 (Node 24) only: V8 12 (Node 22) has no such switch and ran no reducing collection in the same idles.
 */
const TRACES = ['--trace-gc', '--trace-deopt', '--trace-memory-reducer']
/** The most the reducer may take to be done after the load (its timer waits 8 s, then until allocation is low). */
const IDLE_LIMIT_MS = 45_000
const DONE = /Memory reducer: finished GC #\d+ \(done\)/
const MESSAGE = JSON.stringify({ message: 'YOUR STATEMENT IS READY.', fromDepartment: 'CARD SERVICES', fromPerson: 'THANDI MOKOENA' })
const hasSwitch = V8_MAJOR >= 13

t.before(ensureBuilt)

interface Idle { reducing: number, dropped: number, load: number }

/** A load of creates, then an idle until the memory reducer is done: what V8 traced meanwhile. */
async function idleAfterLoad (nodeOptions: string[] = []): Promise<Idle> {
  const { child, port, stdout } = await startCli({ LOG_LEVEL: 'warn', NODE_OPTIONS: '' }, undefined, [...TRACES, ...nodeOptions])
  try {
    const headers = { authorization: `Bearer ${await clientToken(port, 'partner-a', 'partner-a-secret')}`, 'agent-id': '1001', 'content-type': 'application/json' }
    const load = await autocannon({ url: `http://127.0.0.1:${port}/api/customers/1001100000001/messages`, method: 'POST', headers, body: MESSAGE, connections: 20, duration: 2 })
    if (load['2xx'] === 0 || load.non2xx > 0) throw new Error(`the load was not answered: ${load['2xx']} 2xx, ${load.non2xx} others`)
    const from = stdout().length
    const idleSince = Date.now()
    while (!DONE.test(stdout().slice(from))) {
      if (Date.now() - idleSince > IDLE_LIMIT_MS) throw new Error(`V8's memory reducer was not done ${IDLE_LIMIT_MS} ms after the load`)
      await sleep(200)
    }
    const idle = stdout().slice(from)
    const count = (pattern: RegExp): number => idle.match(pattern)?.length ?? 0
    return { reducing: count(/Mark-Compact \(reduce\)/g), dropped: count(/embedded weak objects cleared/g), load: load['2xx'] }
  } finally {
    await kill(child)
  }
}

t.test('an idle sandbox keeps its compiled request path', { skip: !hasSwitch && 'V8 12 (Node 22): no such switch, and no reducing collection when idle' }, async (t) => {
  // side by side: the two idles take as long as one
  const [control, shipped] = await Promise.all([idleAfterLoad(['--memory-reducer-favors-memory']), idleAfterLoad()])
  t.ok(control.reducing > 0, `with V8's default the idle had footprint-reducing collections (${control.reducing}, after ${control.load} creates)`)
  t.ok(control.dropped > 0, `and they dropped optimised code (${control.dropped} functions)`)
  t.equal(shipped.reducing, 0, `as shipped: no footprint-reducing collection (after ${shipped.load} creates)`)
  t.equal(shipped.dropped, 0, 'and no optimised code dropped for its object layouts')
})
