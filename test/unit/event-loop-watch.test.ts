import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { EventLoopWatch } from '../../src/plugins/event-loop-watch.js'

/** Keeps the loop busy for `ms` in slices of `sliceMs`, letting timers run between them. */
async function busy (ms: number, sliceMs: number): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    const slice = Date.now() + sliceMs
    while (Date.now() < slice);
    await new Promise((resolve) => setImmediate(resolve))
  }
}

t.test('the event-loop watch counts no delay before countFrom, reports a loop that lags, and clears once it keeps up', async (t) => {
  const watch = new EventLoopWatch(50, 300)
  t.teardown(() => watch.stop())
  await busy(1000, 100)
  t.equal(watch.overloaded, false, 'delays before countFrom (a start) are not overload')
  watch.countFrom(0)
  await busy(1000, 100)
  t.equal(watch.overloaded, true, 'a mean delay above the limit is overload')
  // (a busy test machine can lag on its own for a while: wait for an interval that keeps up)
  for (let i = 0; i < 40 && watch.overloaded; i++) await sleep(100)
  t.equal(watch.overloaded, false, 'an interval that keeps up clears it')
  watch.stop()
  t.equal(watch.overloaded, false)
})
