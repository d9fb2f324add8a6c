// A/B of builds: W1, W2 or client-credentials token requests (token: no bare Fastify, which issues none) against several built sandboxes and bare Fastify, in rounds of rotating order
// (bench/harness.ts), to measure one change: copy dist/ elsewhere before the change (the copy must sit in a
// directory beside a package.json and node_modules, e.g. a symlinked checkout), rebuild, then
//   npx tsx bench/ab.ts w1 'before|/tmp/ab/dist|' 'after|dist|' 'after-no-journal|dist|SANDBOX_JOURNAL_SIZE=0'
//   npx tsx bench/ab.ts token 'before|/tmp/ab/dist|' 'after|dist|'
// Each sandbox is 'name|dist directory|KEY=value KEY=value|node flags' (the last two may be left out), e.g.
//   'serial-compiles|dist||--no-concurrent-recompilation'. BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS apply.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Server, freePort, sandboxEnv, startBaseline, w1Options, w2Options, tokenOptions, compare, once, reset, type Contender } from './harness.js'

const which = process.argv[2]
const specs = process.argv.slice(3).map((s) => {
  const [name, dist, env = '', flags = ''] = s.split('|')
  return { name, dist, flags: flags.split(' ').filter(Boolean), env: Object.fromEntries(env.split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])) }
})
const servers: Server[] = []
for (const s of specs) {
  const port = await freePort()
  servers.push(await Server.start(s.name, [...s.flags, `${s.dist}/cli.js`], { ...sandboxEnv(port), ...s.env }, port))
}
// a sandbox of the first build of its own serves the baseline's tokens and the W1 bytes: a measured sandbox
// that had answered them first (a GET before a run of POSTs) was measured up to a fifth slower
const refPort = await freePort()
const reference = await Server.start('reference', [`${specs[0].dist}/cli.js`], sandboxEnv(refPort), refPort)
const banks = join(mkdtempSync(join(tmpdir(), 'ab-')), 'banks.json')
writeFileSync(banks, (await once(await w1Options(reference))).text)
const baseline = which === 'token' ? undefined : await startBaseline(banks)
const opt = which === 'w1' ? w1Options : which === 'w2' ? w2Options : async (s: Server) => tokenOptions(s)
const contenders: Contender[] = servers.map((s) => ({ key: s.name, server: s, options: () => opt(s), before: which === 'w2' ? () => reset(s) : undefined }))
if (baseline !== undefined) contenders.push({ key: 'baseline', server: baseline, options: () => opt(baseline, reference) })
const out = await compare(which, contenders)
// token requests: each against the first contender, as bare Fastify issues no tokens
const against = out.baseline ?? out[specs[0].name]
for (const [k, m] of Object.entries(out)) {
  console.log(`${k.padEnd(14)} ${Math.round(m.rps).toString().padStart(6)} req/s  ${(m.rps / against.rps * 100).toFixed(1)}%  ${m.cpuUsPerRequest.toFixed(1)} µs/req  p99 ${m.latencyMs.p99.toFixed(2)} (autocannon ${m.latencyMs.p99Autocannon})  RSS under load ${Math.round(m.rssUnderLoadMb)} MB`)
  // the machine's speed moves from round to round (a fifth or more on a shared VM): a contender's slow round shows here
  console.log(`${''.padEnd(14)} rounds: µs/req ${m.rounds.map((r) => r.cpuUsPerRequest.toFixed(0)).join(' ')}, p99 ms ${m.rounds.map((r) => r.p99Ms.toFixed(1)).join(' ')}`)
}
for (const s of [...servers, reference, ...(baseline === undefined ? [] : [baseline])]) await s.stop()
