// Side by side: the sandbox's batched log output (src/plugins/log-stream.ts) against pino's own
// destination (sonic-boom) buffering with minLength, asynchronous and synchronous. Writes request-sized
// lines to standard output, 100 per turn of the event loop as finishing requests do, and prints the CPU
// per line on standard error:  npx tsx bench/log-destination.ts > /dev/null   (or | cat > /dev/null)
import pino from 'pino'
import { logDestination } from '../src/plugins/log-stream.js'

const LINE = '{"level":30,"time":1763900000000,"pid":1234,"hostname":"host","reqId":"a1b2c3","method":"POST",' +
  '"url":"/api/customers/1001100000001/messages","statusCode":200,"responseTime":1.2,"partner":"partner-a","agent":"1001","msg":"request completed"}\n'
const LINES = Number(process.env.BENCH_LOG_LINES ?? 300_000)

const candidates: Record<string, () => { write: (line: string) => unknown }> = {
  'log-stream.ts (hand-made batches)': logDestination,
  'sonic-boom sync: false, minLength 16000': () => pino.destination({ dest: 1, sync: false, minLength: 16000, periodicFlush: 50 }),
  'sonic-boom sync: true, minLength 16000': () => pino.destination({ dest: 1, sync: true, minLength: 16000, periodicFlush: 50 })
}

const which = process.argv[2]
if (which === undefined) {
  // each candidate in a process of its own (one owner of fd 1 at a time)
  const { execFileSync } = await import('node:child_process')
  for (const name of Object.keys(candidates)) {
    execFileSync(process.execPath, [...process.execArgv, process.argv[1], name], { stdio: ['ignore', 'inherit', 'inherit'] })
  }
} else {
  const dest = candidates[which]()
  const cpu = process.cpuUsage()
  for (let written = 0; written < LINES; written += 100) {
    for (let k = 0; k < 100; k++) dest.write(LINE)
    await new Promise((resolve) => setImmediate(resolve))
  }
  const used = process.cpuUsage(cpu)
  process.stderr.write(`${which}: ${((used.user + used.system) * 1000 / LINES).toFixed(0)} ns CPU per line\n`)
}
