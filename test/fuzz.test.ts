import t from 'tap'
import { fuzz } from './fuzz/run.js'
import { listen, tokenFor } from './helper.js'

// A fixed seed and a bounded count, so that `npm test` is repeatable; `npm run fuzz -- --seed N --requests M`
// runs the same fuzzer for as long as one likes (scripts/fuzz.ts).
const SEED = 4242
const ADMIN = 'operator-secret-0123456789'

t.test('fuzzed requests over every operation of both documents and malformed raw HTTP: no 5xx, no internals, every error in the one shape, no success for invalid input', async (t) => {
  const { app } = await listen(t, { adminToken: ADMIN })
  const port = (app.server.address() as { port: number }).port
  const report = await fuzz(app, { seed: SEED, requests: 1200, raw: 120, port, credentials: { partner: await tokenFor(app), admin: ADMIN } })
  t.equal(report.failure, undefined, report.failure ?? 'no failure')
  t.ok(report.operations >= 25, `${report.operations} operations of the two documents`)
  t.equal(report.requests >= 1200, true, `${report.requests} requests`)
  t.equal(report.raw, 120, 'raw requests')
  t.ok(Object.keys(report.byStatus).some((s) => s.startsWith('2')) && Object.keys(report.byStatus).some((s) => s.startsWith('4')), `answers: ${JSON.stringify(report.byStatus)}`)
})
