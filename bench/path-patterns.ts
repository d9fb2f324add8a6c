// The journal filter over a partner's journal at its most (SANDBOX_JOURNAL_SIZE=10000, 4 KiB an entry on average:
// about 2,300 entries when each URL is as long as Node's 16 KiB head allows), in process: how long one filter
// holds the event loop, per pattern (the matcher of src/path-patterns.ts; issue 50). Knobs: BENCH_PATH_LENGTH
// (default 16,000), BENCH_ROUNDS (5). Prints, per filter, the median CPU time it took (process.cpuUsage: the machine's
// other load left out), the longest the event loop was held meanwhile (the scan yields: store/journal.ts), and the
// matcher's steps per character of a path.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { PathPattern } from '../src/path-patterns.js'
import { BYTES_PER_ENTRY, select, type Recorded } from '../src/store/journal.js'
import { positive } from './harness.js'

const LENGTH = positive('BENCH_PATH_LENGTH', 16_000)
const ROUNDS = positive('BENCH_ROUNDS', 5)
const MAX_ENTRIES = 10_000
// what an entry of such a URL counts against the journal's bytes (store/journal.ts's sizeOf: 1,500 and the URL)
const ENTRIES = Math.min(MAX_ENTRIES, Math.floor(MAX_ENTRIES * BYTES_PER_ENTRY / (1500 + LENGTH)))

const entry = (i: number, url: string): Recorded => ({ id: i, requestId: String(i), at: Date.now(), method: 'GET', url, route: null, agentId: '1001', status: 404, durationMs: 1, fault: null, requestHead: [], requestBody: null, responseHead: '', responseBody: null })

const paths = {
  'a...a': '/' + 'a'.repeat(LENGTH - 1),
  'a/a/...': '/a'.repeat(LENGTH / 2),
  'api/...': '/api/customers/' + '1234567890/'.repeat(Math.floor((LENGTH - 15) / 11))
}
const patterns = [
  '/**a**a**a**a**a**a**a**a**a**a**a**a**b',
  '/**a*a*a*a*a*a*a*a*b**',
  '/**/a/*/a/*/a/*/a/*/b/**',
  '/api/customers/**',
  '/api/customers/*/accounts',
  '/**/' + 'a/'.repeat(500) + 'b'
]
for (const [name, path] of Object.entries(paths)) {
  const journal = Array.from({ length: ENTRIES }, (_, i) => entry(i, path))
  for (const pattern of patterns) {
    const times: number[] = []
    let total = 0
    const held = monitorEventLoopDelay({ resolution: 1 })
    held.enable()
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = process.cpuUsage()
      total = (await select(journal, { path: pattern })).total
      const used = process.cpuUsage(t0)
      times.push((used.user + used.system) / 1000)
    }
    held.disable()
    const p = new PathPattern(pattern)
    p.test(path)
    times.sort((a, b) => a - b)
    console.log(`${name} x ${ENTRIES}  ${pattern.slice(0, 40).padEnd(40)}  ${times[times.length >> 1].toFixed(1).padStart(7)} ms CPU, loop held at most ${(held.max / 1e6).toFixed(0).padStart(3)} ms  ${(p.steps / path.length).toFixed(2)} steps/char  matched ${total}`)
  }
}
