// npm run bench: the built sandbox (node dist/cli.js) against a bare Fastify baseline (bench/baseline.ts),
// each in a child process of its own on 127.0.0.1, measured with autocannon from this process in
// rounds of rotating order so that all see the same machine conditions. Prints a table and writes
// bench/results/latest.json. Knobs (environment): BENCH_DURATION (seconds per target and workload,
// default 10, split in 4 rounds), BENCH_WARMUP (default 3), BENCH_CONNECTIONS (default 50),
// BENCH_LOG_LEVEL (default: the product's default, info), BENCH_CPU_PROF=1 (V8 CPU profiles of the
// sandboxes in bench/results/profiles), BENCH_STRICT=1 (exit 1 when a target is missed), BENCH_PARTNERS
// (partners registered by bench/partners.ts, default 5000), BENCH_STARTS (cold starts of bench/startup.ts,
// default 3). bench/durable.ts measures creates on the large scenario's partner with a data dir.
// bench/journal.ts, which npm run bench runs next, has knobs of its own (BENCH_JOURNAL_PARTNERS,
// BENCH_JOURNAL_SIZE); docs/benchmarks.md lists every knob.
// W1 and W2 also run against a third sandbox at LOG_LEVEL=warn (no per-request log line) and against bare
// Fastify with the sandbox's answer batching (src/plugins/answer-batching.ts), for information only: the
// targets are judged on the sandbox at the product's log level against bare Fastify as it comes.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'
import { largePartnerCreates } from './durable.js'
import { manyPartners } from './partners.js'
import { coldStarts } from './startup.js'
import { AGENT_ID, CLIENT, CONNECTIONS, CPU_PROF, CUSTOMER_ID, DURATION, LOG_LEVEL, RESULTS, REWARM, ROUNDS, W1_PATH, W2_PATH, WARMUP, compare, fmt, once, pct, reset, say, startBaseline, startSandbox, table, verdict, w1Options, w2Options, apiHeaders, clientToken, tokenOptions as tokenOptionsOf, type Measured, type Server } from './harness.js'
import { LAUNCH_FLAGS } from '../src/heap.js'

const TOKEN_CONNECTIONS = 10
const TOKEN_DURATION = 5
const RESETS = 20
// the large scenario: 100,000 customers of agent 1001, so page 4999 of size 20 is the last one
const PAGE_SIZE = 20
const DEEP_PAGE = 4999
const PRODUCT_LOG_LEVEL = 'info'
const QUIET_LOG_LEVEL = 'warn'
const STRICT = process.env.BENCH_STRICT === '1'
// issue 14's goals: W1 and W2 against bare Fastify, W2 with a data dir against bare Fastify's W2, a create's
// p99 on the large partner against the default one, cold start against bare Fastify's, many partners
const TARGETS = { w1: 0.7, w2: 0.6, w2Disk: 0.5, resetMs: 50, largeP99: 2, start: 1.5, tokenAfterMs: 500, partnersMb: 1024, restartMs: 10_000 }
// issue 27's: the in-memory sandbox's W2 p99 and resident memory under W2 load against bare Fastify's
const TARGETS_27 = { w2P99: 1.5, w2Rss: 1.5 }
/** A page of agent 1001's customers (the paging-depth figure, on the large scenario). */
async function customerPage (server: Server, page: number): Promise<autocannon.Options> {
  return { url: `${server.base}/api/customers?page=${page}&size=${PAGE_SIZE}`, headers: await apiHeaders(server) }
}

interface ResetStats { count: number, medianMs: number, maxMs: number, minMs: number, cpuMsPerReset: number, allMs: number[] }

/** RESETS resets of the partner's data to the default scenario, one after another (no body: current scenario). */
async function resets (server: Server): Promise<ResetStats> {
  const authorization = `Bearer ${await clientToken(server)}`
  const times: number[] = []
  const cpu0 = server.cpuSeconds()
  for (let i = 0; i < RESETS; i++) {
    const t0 = performance.now()
    const res = await fetch(`${server.base}/__sandbox/reset`, { method: 'POST', headers: { authorization } })
    await res.arrayBuffer()
    const ms = performance.now() - t0
    if (res.status !== 200) throw new Error(`${server.name}: reset answered ${res.status}`)
    times.push(ms)
  }
  const cpuMsPerReset = (server.cpuSeconds() - cpu0) * 1000 / RESETS
  const sorted = [...times].sort((a, b) => a - b)
  const mid = sorted.length / 2
  const median = sorted.length % 2 === 0 ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[Math.floor(mid)]
  return { count: times.length, medianMs: median, maxMs: sorted[sorted.length - 1], minMs: sorted[0], cpuMsPerReset, allMs: times }
}

async function messageCount (server: Server): Promise<number> {
  const o = await w2Options(server)
  const res = await once({ url: `${server.base}${W2_PATH}?page=0&size=1`, headers: o.headers })
  if (res.status !== 200) throw new Error(`${server.name}: message list answered ${res.status}`)
  return (JSON.parse(res.text) as { page: { totalElements: number } }).page.totalElements
}

// ---------------------------------------------------------------------------------------------------

async function main (): Promise<void> {
  const started = new Date()
  const load0 = loadavg()
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-bench-data-'))
  const work = mkdtempSync(join(tmpdir(), 'sandbox-bench-'))
  mkdirSync(RESULTS, { recursive: true })
  const servers: Server[] = []
  const track = (s: Server): Server => { servers.push(s); return s }
  try {
    say(`starting a reference sandbox (not measured), the sandbox (in memory), the sandbox (SANDBOX_DATA_DIR=${dataDir}), the sandbox at LOG_LEVEL=${QUIET_LOG_LEVEL}, the baseline and the baseline with answer batching, one after another`)
    // the reference issues the baseline's tokens and gives the W1 bytes: no measured sandbox answers requests
    // of another contender's (a sandbox that had answered a GET before its W2 run was at times measured a
    // fifth slower, bench/ab.ts)
    const reference = track(await startSandbox('sandbox-reference'))
    const memory = track(await startSandbox('sandbox-memory'))
    const disk = track(await startSandbox('sandbox-disk', dataDir))
    const quiet = track(await startSandbox('sandbox-quiet', undefined, QUIET_LOG_LEVEL))

    // the baseline answers the bytes the sandbox answers for W1
    const sandboxW1 = await once(await w1Options(reference))
    if (sandboxW1.status !== 200) throw new Error(`sandbox W1 answered ${sandboxW1.status}: ${sandboxW1.text}`)
    const banksFile = join(work, 'banks.json')
    writeFileSync(banksFile, sandboxW1.text)
    const baseline = track(await startBaseline(banksFile))
    const baselineBatched = track(await startBaseline(banksFile, true))

    for (const bare of [baseline, baselineBatched]) {
      if ((await once(await w1Options(bare, reference))).text !== sandboxW1.text) throw new Error(`${bare.name} does not answer W1 with the sandbox's bytes`)
    }
    const memoryW1 = await once(await w1Options(memory))
    if (memoryW1.text !== sandboxW1.text) throw new Error('the measured sandbox does not answer W1 with the reference\'s bytes')
    const w2Memory = await w2Options(memory)
    const w2Disk = await w2Options(disk)
    const w2Baseline = await w2Options(baseline, reference)
    const shapes = await Promise.all([w2Memory, w2Disk, w2Baseline].map(async (o) => {
      const r = await once(o)
      if (r.status !== 200) throw new Error(`W2 check answered ${r.status}: ${r.text}`)
      return Object.keys(JSON.parse(r.text) as object).join(',')
    }))
    if (new Set(shapes).size !== 1) throw new Error(`W2 answers differ in shape: ${shapes.join(' | ')}`)
    say(`checked: W1 answers are byte-identical (${sandboxW1.text.length} bytes); W2 answers have the keys ${shapes[0]}`)

    const idleRss = { sandboxMemory: memory.rssMb(), sandboxDisk: disk.rssMb(), baseline: baseline.rssMb() }

    const w1 = await compare('W1', [
      { key: 'sandbox', server: memory, options: () => w1Options(memory) },
      { key: 'baseline', server: baseline, options: () => w1Options(baseline, reference) },
      { key: 'sandboxQuiet', server: quiet, options: () => w1Options(quiet) },
      { key: 'baselineBatched', server: baselineBatched, options: () => w1Options(baselineBatched, reference) }
    ])
    // every W2 round of a sandbox starts from the default data (reset first), so that no round writes a
    // partner file grown by the rounds before it; the file size each disk round reached is reported
    const partnerFile = join(dataDir, 'partners', `${CLIENT.id}.json`)
    const w2 = await compare('W2', [
      { key: 'sandbox', server: memory, options: () => w2Options(memory), before: () => reset(memory) },
      { key: 'baseline', server: baseline, options: () => w2Options(baseline, reference) },
      { key: 'sandboxDisk', server: disk, options: () => w2Options(disk), before: () => reset(disk), after: () => statSync(partnerFile).size },
      { key: 'sandboxQuiet', server: quiet, options: () => w2Options(quiet), before: () => reset(quiet) },
      { key: 'baselineBatched', server: baselineBatched, options: () => w2Options(baselineBatched, reference) }
    ])
    const diskFileBytes = Math.max(...w2.sandboxDisk.rounds.map((r) => r.after))
    const loadedRss = { sandboxMemory: memory.rssMb(), sandboxDisk: disk.rssMb(), baseline: baseline.rssMb() }
    for (const done of [quiet, reference, baselineBatched]) {
      await done.stop()
      servers.splice(servers.indexOf(done), 1)
    }
    const diskMessages = await messageCount(disk)

    say(`token endpoint: client_credentials for ${TOKEN_DURATION} s, ${TOKEN_CONNECTIONS} connections`)
    const tokenOptions = tokenOptionsOf(memory)
    await autocannon({ ...tokenOptions, connections: TOKEN_CONNECTIONS, duration: 1, skipAggregateResult: true })
    const tokenBefore = memory.cpuSeconds()
    const tokenRun = await autocannon({ ...tokenOptions, connections: TOKEN_CONNECTIONS, duration: TOKEN_DURATION })
    const tokenCpu = memory.cpuSeconds() - tokenBefore
    const tokens = {
      perSecond: tokenRun['2xx'] / tokenRun.duration,
      ok: tokenRun['2xx'],
      non2xx: tokenRun.non2xx,
      errors: tokenRun.errors,
      latencyMs: { p50: tokenRun.latency.p50, p99: tokenRun.latency.p99 },
      cpuUsPerToken: tokenRun['2xx'] > 0 ? tokenCpu * 1e6 / tokenRun['2xx'] : Number.NaN
    }

    say(`restart of the data-dir sandbox holding the W2 data (${diskMessages} messages of customer ${CUSTOMER_ID})`)
    await disk.stop()
    servers.splice(servers.indexOf(disk), 1)
    const diskAgain = track(await startSandbox('sandbox-disk-restart', dataDir))
    const restoredMessages = await messageCount(diskAgain)
    if (restoredMessages !== diskMessages) throw new Error(`after the restart the data dir holds ${restoredMessages} messages, not ${diskMessages}`)

    say(`paging depth: the large scenario (100,000 customers of agent ${AGENT_ID}), page 0 against page ${DEEP_PAGE} (size ${PAGE_SIZE})`)
    const large = track(await startSandbox('sandbox-large', undefined, undefined, 'large'))
    const deepPage = await once(await customerPage(large, DEEP_PAGE))
    if (deepPage.status !== 200 || (JSON.parse(deepPage.text) as { customers: unknown[] }).customers.length !== PAGE_SIZE) {
      throw new Error(`page ${DEEP_PAGE} of the large scenario answered ${deepPage.status}: ${deepPage.text.slice(0, 300)}`)
    }
    const paging = await compare('Paging', [
      { key: 'first', server: large, options: () => customerPage(large, 0) },
      { key: 'deep', server: large, options: () => customerPage(large, DEEP_PAGE) }
    ])
    await large.stop()
    servers.splice(servers.indexOf(large), 1)

    const largeW2 = await largePartnerCreates()
    say('cold starts: the sandbox and the baseline, one after another')
    const starts = await coldStarts(banksFile)
    say(`many partners: ${process.env.BENCH_PARTNERS ?? 5000} registered with a data dir, then a restart`)
    const partners = await manyPartners()

    say(`resets: ${RESETS} in memory, ${RESETS} with a data dir`)
    const resetMemory = await resets(memory)
    const resetDisk = await resets(diskAgain)
    const finalRss = { sandboxMemory: memory.rssMb(), sandboxDisk: diskAgain.rssMb(), baseline: baseline.rssMb() }

    const ratios = {
      w1: w1.sandbox.rps / w1.baseline.rps,
      w2: w2.sandbox.rps / w2.baseline.rps,
      w2Disk: w2.sandboxDisk.rps / w2.baseline.rps,
      w2DiskOfMemory: w2.sandboxDisk.rps / w2.sandbox.rps,
      largeP99: largeW2.latencyMs.p99 / w2.sandboxDisk.latencyMs.p99,
      start: starts.sandboxMs / starts.baselineMs,
      w1Cpu: w1.baseline.cpuUsPerRequest / w1.sandbox.cpuUsPerRequest,
      w2Cpu: w2.baseline.cpuUsPerRequest / w2.sandbox.cpuUsPerRequest,
      w1Quiet: w1.sandboxQuiet.rps / w1.baseline.rps,
      w2Quiet: w2.sandboxQuiet.rps / w2.baseline.rps,
      w1OfBatched: w1.sandbox.rps / w1.baselineBatched.rps,
      w2OfBatched: w2.sandbox.rps / w2.baselineBatched.rps,
      w2P99: w2.sandbox.latencyMs.p99 / w2.baseline.latencyMs.p99,
      w2Rss: w2.sandbox.rssUnderLoadMb / w2.baseline.rssUnderLoadMb
    }
    const met = {
      w1: ratios.w1 >= TARGETS.w1,
      w2: ratios.w2 >= TARGETS.w2,
      w2Disk: ratios.w2Disk >= TARGETS.w2Disk,
      largeP99: ratios.largeP99 <= TARGETS.largeP99,
      start: ratios.start <= TARGETS.start,
      tokenAfter: starts.tokenAfterMs <= TARGETS.tokenAfterMs,
      partnersMemory: partners.rssBeforeMb + partners.mbPerPartner * 5000 <= TARGETS.partnersMb,
      partnersRestart: partners.restartToAllServedMs <= TARGETS.restartMs,
      resetMemory: resetMemory.medianMs < TARGETS.resetMs,
      resetDisk: resetDisk.medianMs < TARGETS.resetMs,
      w2P99: ratios.w2P99 <= TARGETS_27.w2P99,
      w2Rss: ratios.w2Rss <= TARGETS_27.w2Rss
    }
    const load1 = loadavg()
    const logLevel = LOG_LEVEL ?? `${PRODUCT_LOG_LEVEL} (the product default; stdout to /dev/null)`

    const lat = (m: Measured): string => `${fmt(m.latencyMs.p50, 1)} / ${fmt(m.latencyMs.p99, 1)}`
    const bad = (m: Measured): string => m.non2xx + m.errors + m.timeouts > 0 ? `  !! non-2xx ${m.non2xx} ${JSON.stringify(m.statusCodes)}, errors ${m.errors}, timeouts ${m.timeouts}` : ''
    const lines: string[] = []
    lines.push('Banking Agent Sandbox benchmark')
    lines.push(`  ${started.toISOString()}, Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'CPU'}`)
    lines.push(`  load average before ${load0.map((x) => x.toFixed(2)).join(' ')}, after ${load1.map((x) => x.toFixed(2)).join(' ')} (other work on the machine makes the figures noisy)`)
    lines.push(`  sandbox: node ${LAUNCH_FLAGS.join(' ')} dist/cli.js (as npm start), scenario default, LOG_LEVEL ${logLevel}${CPU_PROF ? ', with --cpu-prof' : ''}`)
    lines.push('  baseline: bare Fastify (no logger, no schemas, no token check) sent the same request bytes (token included, issued by a reference sandbox that is not measured)')
    lines.push(`  autocannon in this process, ${CONNECTIONS} connections, ${WARMUP} s warm-up, then ${ROUNDS} rounds of ${DURATION / ROUNDS} s per contender (order rotated each round, each after ${REWARM} s of unmeasured load); loopback only`)
    lines.push('  W2 rounds of a sandbox start from the default data (POST /__sandbox/reset before each)')
    lines.push('')
    lines.push(table([
      ['Workload', 'sandbox req/s', 'baseline req/s', 'ratio', 'target', 'sandbox p50/p99 ms', 'baseline p50/p99 ms', 'CPU us/req sandbox', 'CPU us/req baseline'],
      [`W1 GET ${W1_PATH}`, fmt(w1.sandbox.rps), fmt(w1.baseline.rps), pct(ratios.w1), `>=70% ${verdict(met.w1)}`, lat(w1.sandbox), lat(w1.baseline), fmt(w1.sandbox.cpuUsPerRequest), fmt(w1.baseline.cpuUsPerRequest)],
      ['W2 POST /api/customers/{id}/messages', fmt(w2.sandbox.rps), fmt(w2.baseline.rps), pct(ratios.w2), `>=60% ${verdict(met.w2)}`, lat(w2.sandbox), lat(w2.baseline), fmt(w2.sandbox.cpuUsPerRequest), fmt(w2.baseline.cpuUsPerRequest)],
      [`W1, sandbox at LOG_LEVEL=${QUIET_LOG_LEVEL} (info only)`, fmt(w1.sandboxQuiet.rps), fmt(w1.baseline.rps), pct(ratios.w1Quiet), '', lat(w1.sandboxQuiet), lat(w1.baseline), fmt(w1.sandboxQuiet.cpuUsPerRequest), fmt(w1.baseline.cpuUsPerRequest)],
      [`W2, sandbox at LOG_LEVEL=${QUIET_LOG_LEVEL} (info only)`, fmt(w2.sandboxQuiet.rps), fmt(w2.baseline.rps), pct(ratios.w2Quiet), '', lat(w2.sandboxQuiet), lat(w2.baseline), fmt(w2.sandboxQuiet.cpuUsPerRequest), fmt(w2.baseline.cpuUsPerRequest)],
      ['W1, baseline with answer batching (info only)', fmt(w1.sandbox.rps), fmt(w1.baselineBatched.rps), pct(ratios.w1OfBatched), '', lat(w1.sandbox), lat(w1.baselineBatched), fmt(w1.sandbox.cpuUsPerRequest), fmt(w1.baselineBatched.cpuUsPerRequest)],
      ['W2, baseline with answer batching (info only)', fmt(w2.sandbox.rps), fmt(w2.baselineBatched.rps), pct(ratios.w2OfBatched), '', lat(w2.sandbox), lat(w2.baselineBatched), fmt(w2.sandbox.cpuUsPerRequest), fmt(w2.baselineBatched.cpuUsPerRequest)]
    ]))
    lines.push(`  (baseline CPU per request / sandbox CPU per request: W1 ${pct(ratios.w1Cpu)}, W2 ${pct(ratios.w2Cpu)} - the same comparison, less moved by other load;`)
    lines.push(`   the LOG_LEVEL=${QUIET_LOG_LEVEL} rows show what the one log line per request costs; the answer-batching rows compare the`)
    lines.push('   sandbox with bare Fastify that writes the answers of one event-loop turn together, as the sandbox does: what the rest')
    lines.push('   of the sandbox costs. None of these rows are the targets\' figures)')
    lines.push('')
    lines.push(table([
      ['Figure', 'value', 'target'],
      ['W2-disk (SANDBOX_DATA_DIR) req/s', fmt(w2.sandboxDisk.rps), ''],
      ['W2-disk as a share of in-memory W2', pct(ratios.w2DiskOfMemory), ''],
      ['W2-disk latency p50 / p99 ms', lat(w2.sandboxDisk), ''],
      ['W2-disk CPU us/req', fmt(w2.sandboxDisk.cpuUsPerRequest), ''],
      ['W2-disk partner file size at the end of a round (largest) KB', fmt(diskFileBytes / 1024), ''],
      [`Token endpoint, client_credentials (${TOKEN_CONNECTIONS} conn.) tokens/s`, fmt(tokens.perSecond), ''],
      [`Paging, large scenario: page 0 / page ${DEEP_PAGE} of 100,000 customers, req/s`, `${fmt(paging.first.rps)} / ${fmt(paging.deep.rps)} (${pct(paging.deep.rps / paging.first.rps)})`, ''],
      [`Paging, large scenario: page 0 / page ${DEEP_PAGE}, p50 / p99 ms`, `${lat(paging.first)} and ${lat(paging.deep)}`, ''],
      ['Token endpoint latency p50 / p99 ms, CPU us/token', `${fmt(tokens.latencyMs.p50, 1)} / ${fmt(tokens.latencyMs.p99, 1)}, ${fmt(tokens.cpuUsPerToken)}`, ''],
      [`Reset default scenario, one partner, in memory (median / max of ${RESETS}) ms`, `${fmt(resetMemory.medianMs, 1)} / ${fmt(resetMemory.maxMs, 1)}`, `<50 ms ${verdict(met.resetMemory)}`],
      [`Reset default scenario, one partner, data dir (median / max of ${RESETS}) ms`, `${fmt(resetDisk.medianMs, 1)} / ${fmt(resetDisk.maxMs, 1)}`, `<50 ms ${verdict(met.resetDisk)}`],
      ['Reset, server CPU per reset ms: in memory / data dir', `${fmt(resetMemory.cpuMsPerReset, 1)} / ${fmt(resetDisk.cpuMsPerReset, 1)}`, ''],
      ['Start-up to first 200 on /health, in memory ms (CPU ms)', `${fmt(memory.startupMs)} (${fmt(memory.startupCpuMs)})`, ''],
      ['Start-up to first 200 on /health, empty data dir ms (CPU ms)', `${fmt(disk.startupMs)} (${fmt(disk.startupCpuMs)})`, ''],
      [`Start-up to first 200 on /health, data dir after load (${fmt(diskMessages)} messages) ms (CPU ms)`, `${fmt(diskAgain.startupMs)} (${fmt(diskAgain.startupCpuMs)})`, ''],
      ['Start-up to first 200 on /health, baseline (tsx) ms (CPU ms)', `${fmt(baseline.startupMs)} (${fmt(baseline.startupCpuMs)})`, ''],
      ['RSS idle MB: sandbox memory / sandbox disk / baseline', `${fmt(idleRss.sandboxMemory)} / ${fmt(idleRss.sandboxDisk)} / ${fmt(idleRss.baseline)}`, ''],
      ['RSS after load MB: sandbox memory / sandbox disk / baseline', `${fmt(loadedRss.sandboxMemory)} / ${fmt(loadedRss.sandboxDisk)} / ${fmt(loadedRss.baseline)}`, ''],
      ['RSS under W1 load MB (largest at the end of a measured round): sandbox / baseline', `${fmt(w1.sandbox.rssUnderLoadMb)} / ${fmt(w1.baseline.rssUnderLoadMb)}`, ''],
      ['RSS under W2 load MB (the same): sandbox memory / sandbox disk / baseline', `${fmt(w2.sandbox.rssUnderLoadMb)} / ${fmt(w2.sandboxDisk.rssUnderLoadMb)} / ${fmt(w2.baseline.rssUnderLoadMb)}`, ''],
      ['RSS at the end MB (after resets; disk sandbox restarted)', `${fmt(finalRss.sandboxMemory)} / ${fmt(finalRss.sandboxDisk)} / ${fmt(finalRss.baseline)}`, '']
    ]))
    lines.push('')
    lines.push('Issue 14 figures, beside bare Fastify and the goal:')
    lines.push(table([
      ['Figure', 'sandbox', 'bare Fastify', 'result', 'goal'],
      ['W1 req/s', fmt(w1.sandbox.rps), fmt(w1.baseline.rps), pct(ratios.w1), `>=70% ${verdict(met.w1)}`],
      ['W2 in memory req/s', fmt(w2.sandbox.rps), fmt(w2.baseline.rps), pct(ratios.w2), `>=60% ${verdict(met.w2)}`],
      ['W2 with a data dir req/s', fmt(w2.sandboxDisk.rps), fmt(w2.baseline.rps), pct(ratios.w2Disk), `>=50% ${verdict(met.w2Disk)}`],
      ['W2 with a data dir, p99 ms: large partner / default partner', `${fmt(largeW2.latencyMs.p99, 1)} / ${fmt(w2.sandboxDisk.latencyMs.p99, 1)}`, fmt(w2.baseline.latencyMs.p99, 1), `${fmt(ratios.largeP99, 2)}x`, `<=2x ${verdict(met.largeP99)}`],
      ['Cold start to the first /health 200 ms (median)', fmt(starts.sandboxMs), `${fmt(starts.baselineMs)} (tsx)`, `${fmt(ratios.start, 2)}x`, `<=1.5x ${verdict(met.start)}`],
      ['then to the first issued token ms', fmt(starts.tokenAfterMs), '', '', `<=500 ms ${verdict(met.tokenAfter)}`],
      [`${fmt(partners.count)} partners (default scenario, data dir): RSS MB, MB per partner`, `${fmt(partners.rssAfterMb)}, ${fmt(partners.mbPerPartner, 3)}`, '', `${fmt(partners.rssBeforeMb + partners.mbPerPartner * 5000)} MB at 5,000`, `<=1 GB ${verdict(met.partnersMemory)}`],
      ['restart until every partner is served ms (to /health)', `${fmt(partners.restartToAllServedMs)} (${fmt(partners.restartToHealthMs)})`, '', `data dir ${fmt(partners.diskMb)} MB`, `<=10 s ${verdict(met.partnersRestart)}`]
    ]))
    lines.push('')
    const rounds = (m: Measured, figure: (r: Measured['rounds'][number]) => number, digits = 0): string => m.rounds.map((r) => fmt(figure(r), digits)).join(' ')
    lines.push('Issue 27 figures, W2 in memory beside bare Fastify and the goal:')
    lines.push(table([
      ['Figure', 'sandbox', 'bare Fastify', 'result', 'goal'],
      ['W2 p99 ms (of every answer\'s own latency)', fmt(w2.sandbox.latencyMs.p99, 2), fmt(w2.baseline.latencyMs.p99, 2), `${fmt(ratios.w2P99, 2)}x`, `<=1.5x ${verdict(met.w2P99)}`],
      ['W2 p99 ms as autocannon\'s histogram keeps it (whole ms, cut)', fmt(w2.sandbox.latencyMs.p99Autocannon), fmt(w2.baseline.latencyMs.p99Autocannon), `${fmt(w2.sandbox.latencyMs.p99Autocannon / w2.baseline.latencyMs.p99Autocannon, 2)}x`, ''],
      ['W2 p99.9 ms', fmt(w2.sandbox.latencyMs.p99_9, 2), fmt(w2.baseline.latencyMs.p99_9, 2), `${fmt(w2.sandbox.latencyMs.p99_9 / w2.baseline.latencyMs.p99_9, 2)}x`, ''],
      ['RSS under W2 load MB (largest at the end of a measured round)', fmt(w2.sandbox.rssUnderLoadMb), fmt(w2.baseline.rssUnderLoadMb), `${fmt(ratios.w2Rss, 2)}x`, `<=1.5x ${verdict(met.w2Rss)}`],
      // a slower machine in one contender's round shows here, not only in the pooled p99 above
      ['W2 p99 ms of each round, in the order run (info only)', rounds(w2.sandbox, (r) => r.p99Ms, 1), rounds(w2.baseline, (r) => r.p99Ms, 1), '', ''],
      ['W2 CPU us per create of each round (info only)', rounds(w2.sandbox, (r) => r.cpuUsPerRequest), rounds(w2.baseline, (r) => r.cpuUsPerRequest), '', '']
    ]))
    const problems = [bad(w1.sandbox), bad(w1.baseline), bad(w1.sandboxQuiet), bad(w1.baselineBatched), bad(w2.sandbox), bad(w2.baseline), bad(w2.sandboxDisk), bad(w2.sandboxQuiet), bad(w2.baselineBatched), bad(largeW2), bad(paging.first), bad(paging.deep)].filter((x) => x !== '')
    if (tokens.non2xx + tokens.errors > 0) problems.push(`  !! token endpoint: non-2xx ${tokens.non2xx}, errors ${tokens.errors}`)
    if (problems.length > 0) lines.push('', 'Failed requests (not counted in req/s):', ...problems)
    const missed = Object.entries(met).filter(([, ok]) => !ok).map(([k]) => k)
    lines.push('', missed.length === 0 ? 'All targets met.' : `Targets missed: ${missed.join(', ')}`)
    process.stdout.write(`${lines.join('\n')}\n`)

    const json = {
      date: started.toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      loadAverage: { before: load0, after: load1 },
      settings: { durationSeconds: DURATION, rounds: ROUNDS, warmupSeconds: WARMUP, connections: CONNECTIONS, logLevel: LOG_LEVEL ?? PRODUCT_LOG_LEVEL, cpuProfile: CPU_PROF },
      targets: { ...TARGETS, ...TARGETS_27 },
      w1: { path: W1_PATH, ...w1, ratio: ratios.w1, cpuRatio: ratios.w1Cpu, quietRatio: ratios.w1Quiet, ofBatchedBaseline: ratios.w1OfBatched },
      w2: { path: W2_PATH, ...w2, ratio: ratios.w2, cpuRatio: ratios.w2Cpu, diskRatio: ratios.w2Disk, quietRatio: ratios.w2Quiet, ofBatchedBaseline: ratios.w2OfBatched },
      quietLogLevel: QUIET_LOG_LEVEL,
      tokens,
      paging: { pageSize: PAGE_SIZE, deepPage: DEEP_PAGE, ...paging },
      resets: { memory: resetMemory, dataDir: resetDisk },
      largeW2,
      coldStarts: starts,
      partners,
      w2DiskFileBytes: diskFileBytes,
      startupMs: { memory: memory.startupMs, emptyDataDir: disk.startupMs, dataDirAfterLoad: diskAgain.startupMs, dataDirMessages: diskMessages, baseline: baseline.startupMs },
      startupCpuMs: { memory: memory.startupCpuMs, emptyDataDir: disk.startupCpuMs, dataDirAfterLoad: diskAgain.startupCpuMs, baseline: baseline.startupCpuMs },
      rssMb: { idle: idleRss, afterLoad: loadedRss, end: finalRss },
      met,
      missed
    }
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`)
    say(`results written to ${join(RESULTS, 'latest.json')}`)
    if (STRICT && missed.length > 0) process.exitCode = 1
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
