// npm run bench, second part: the cost of the request journal (issue 12). W1 and W2 against two built
// sandboxes side by side, one with the journal at its default size and one with SANDBOX_JOURNAL_SIZE=0, in
// rounds of rotating order (bench/harness.ts); then the resident memory of a sandbox whose partners each filled
// their journal. Knobs: BENCH_DURATION (seconds per workload and sandbox, default 10, in 4 rounds),
// BENCH_WARMUP, BENCH_CONNECTIONS (50), BENCH_JOURNAL_PARTNERS (partners whose journals are filled, default
// 100), BENCH_JOURNAL_SIZE (the journal's size in the "on" sandbox; default the product's, 200).
// Writes bench/results/journal.json.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { ADMIN_TOKEN, CONNECTIONS, DURATION, MESSAGE, RESULTS, admin, clientToken, compareOnOff, positive, say, signedPercent, startSandbox, type Measured, type Server } from './harness.js'

const PARTNERS = positive('BENCH_JOURNAL_PARTNERS', 100)
const SIZE = positive('BENCH_JOURNAL_SIZE', 200)
const TARGET = 0.9

interface Registered { clientId: string, clientSecret: string, agentIds: string[] }

/** Registers PARTNERS partners (empty scenario) and fills each one's journal with SIZE W2 requests. */
async function fillJournals (s: Server): Promise<void> {
  for (let i = 0; i < PARTNERS; i++) {
    const p = await admin(s, 'POST', '/partners', { clientId: `journal-${i}`, scenario: 'empty' }) as Registered
    const headers = { authorization: `Bearer ${await clientToken(s, { id: p.clientId, secret: p.clientSecret })}`, 'agent-id': p.agentIds[0], 'content-type': 'application/json' }
    const created = await fetch(`${s.base}/api/customers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ defaultCustomer: { entityTypeId: '1', name1: 'BENCH', name2: 'JOURNAL', identifyingNumber: '8001015009087', taxNumber: '0001339050' } })
    })
    if (created.status !== 200) throw new Error(`customer of ${p.clientId}: ${created.status} ${await created.text()}`)
    const { customerId } = await created.json() as { customerId: string }
    await autocannon({ url: `${s.base}/api/customers/${customerId}/messages`, method: 'POST', headers, body: MESSAGE, connections: 10, amount: SIZE, skipAggregateResult: true })
    if ((i + 1) % 20 === 0) say(`filled the journals of ${i + 1} partners, RSS ${s.rssMb().toFixed(0)} MB`)
  }
}

const row = (label: string, m: Record<string, Measured>): string[][] => [
  [`${label}, journal on / off`, `${m.on.rps.toFixed(0)} / ${m.off.rps.toFixed(0)} req/s`, `${(100 * m.on.rps / m.off.rps).toFixed(1)}% (target >= ${TARGET * 100}%)`],
  [`${label} CPU per request, journal on / off`, `${m.on.cpuUsPerRequest.toFixed(0)} / ${m.off.cpuUsPerRequest.toFixed(0)} µs`, signedPercent(100 * (m.on.cpuUsPerRequest / m.off.cpuUsPerRequest - 1))]
]

const extra = { SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN }
const on = await startSandbox('journal-on', undefined, undefined, undefined, { ...extra, SANDBOX_JOURNAL_SIZE: String(SIZE) })
const off = await startSandbox('journal-off', undefined, undefined, undefined, { ...extra, SANDBOX_JOURNAL_SIZE: '0' })
try {
  const { w1, w2 } = await compareOnOff(on, off)
  await off.stop()
  const idle = on.rssMb()
  await fillJournals(on)
  const filled = on.rssMb()
  const rows = [
    ...row('W1 GET /api/banks', w1),
    ...row('W2 POST .../messages', w2),
    [`RSS before / after filling ${PARTNERS} partners' journals (${SIZE} entries each)`, `${idle.toFixed(0)} / ${filled.toFixed(0)} MB`, '']
  ]
  process.stdout.write(`\n| Journal figure | Value | Result |\n|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`)
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, 'journal.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, durationSeconds: DURATION, connections: CONNECTIONS, partners: PARTNERS, journalSize: SIZE, w1, w2, rssMb: { idle, filled } }, null, 2)}\n`)
} finally {
  await Promise.all([on.stop(), off.stop()])
}
