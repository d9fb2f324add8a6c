// npm run soak [-- --seconds S --rounds R --rate-limit N]: a bounded soak of the built sandbox (dist/cli.js).
// 1. fair share: partner-b's paced requests (50/s), quiet and while partner-a floods on 32 connections,
//    without a rate limit and with SANDBOX_RATE_LIMIT; the sandbox on CPU 0, this process on CPU 1.
// 2. stop: R rounds of SIGTERM under load (32 keep-alive connections), counting failed and reset requests.
import { execFileSync } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { fairness, type FairnessRun } from './fairness.js'
import { stopRound } from './stop.js'

const { values } = parseArgs({ options: { seconds: { type: 'string' }, rounds: { type: 'string' }, 'rate-limit': { type: 'string' }, 'skip-stop': { type: 'boolean' } } })
const seconds = Number(values.seconds ?? 15)
const rounds = values['skip-stop'] === true ? 0 : Number(values.rounds ?? 5)
const rateLimit = Number(values['rate-limit'] ?? 200)
const say = (line: string): void => { process.stdout.write(`${line}\n`) }

// the sandbox on one core, the load generators on the other (when the machine has two and taskset)
let core: number | undefined
if (availableParallelism() >= 2) {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
    core = 0
  } catch { /* no taskset: both share every core */ }
}
say(`soak: ${seconds} s per phase, ${rounds} stop rounds, sandbox ${core === undefined ? 'unpinned' : 'on CPU 0, load on CPU 1'}`)

const show = (run: FairnessRun): void => {
  say(`  SANDBOX_RATE_LIMIT=${run.rateLimit}: partner-b p50/p99 quiet ${run.quiet.p50}/${run.quiet.p99} ms (${run.quiet.count} requests), ` +
    `loaded ${run.loaded.p50}/${run.loaded.p99} ms (${run.loaded.count}, ${run.loaded.failed} failed): p99 x${run.ratio}`)
  say(`    partner-a flood: ${run.flood.perSecond} answers/s (${run.flood.ok} 200, ${run.flood.limited} 429, ${run.flood.other} other); ` +
    `sandbox busy ${run.cpuShare}% of a core, ${run.cpuMicrosPerRequest} us CPU per answer`)
}
say('fair share (partner-a floods on 32 connections, partner-b sends 50 requests/s):')
const open = await fairness({ rateLimit: 0, seconds, connections: 32, core })
show(open)
const limited = await fairness({ rateLimit, seconds, connections: 32, core })
show(limited)
say(`  the flood's CPU: ${open.cpuShare}% of a core unlimited, ${limited.cpuShare}% with SANDBOX_RATE_LIMIT=${rateLimit} (refusals are held until the partner's window ends)`)

say('SIGTERM under load (32 keep-alive connections, reads and creates):')
const totals = { failed: 0, resets: 0 }
for (let i = 1; i <= rounds; i++) {
  const r = await stopRound({ connections: 32, loadMs: 1500, core })
  totals.failed += r.failedAnswers
  totals.resets += r.resetsOnReusedConnection + r.resetsOnNewConnection
  say(`  round ${i}: ${r.answered} answered (${r.failedAnswers} not 200), ${r.resetsOnReusedConnection + r.resetsOnNewConnection} reset, ` +
    `${r.refused} refused after the stop, exit ${r.exitCode} in ${r.stopMs} ms`)
}
say(`  total: ${totals.failed} failed answers, ${totals.resets} resets in ${rounds} rounds`)
process.exit(totals.failed === 0 && totals.resets === 0 ? 0 : 1)
