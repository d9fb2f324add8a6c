import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { logGenerations, readPartnerFiles } from '../src/store/persistence.js'
import type { PartnerSnapshot } from '../src/store/records.js'
import { clientToken, ensureBuilt, kill, startCli, type Started } from './built.js'

/*
 * The durability promise, tested for real: the built server runs as a child process with a data dir, a
 * client writes continuously, and the server is killed with SIGKILL at a random moment, then restarted.
 * After every kill the partner files (snapshot + log) must read and hold every create that had been
 * answered 200: on the default scenario, and on the large one (an 84 MB snapshot beside a small log).
 */

const CYCLES = 20
// each start of the large scenario reads its 84 MB snapshot: a few cycles keep the test short
const LARGE_CYCLES = 3
const WRITERS = 6

/** The built CLI with a data dir and scenario (see startCli). */
function startServer (dataDir: string, scenario: string, killAfterMs?: number): Promise<Started> {
  return startCli({
    SANDBOX_DATA_DIR: dataDir,
    SANDBOX_SCENARIO: scenario,
    LOG_LEVEL: 'warn',
    // a busy CI machine must not turn creates into 503s: this test is about the disk
    SANDBOX_MAX_EVENT_LOOP_DELAY: '60000'
  }, killAfterMs)
}

const PARTNERS = {
  'partner-a': { secret: 'partner-a-secret', agents: ['1001', '1002'] },
  'partner-b': { secret: 'partner-b-secret', agents: ['2001'] }
} as const
type PartnerId = keyof typeof PARTNERS

const token = async (port: number, partner: PartnerId): Promise<string> => await clientToken(port, partner, PARTNERS[partner].secret)

/** A create that the server answered 200: it must be on disk from then on. */
interface Acked { partner: PartnerId, agent: string, kind: 'customers' | 'messages', id: string }

let serial = 0

/** One writer: creates customers and messages back to back until the server dies under it. */
async function writer (port: number, tokens: Record<PartnerId, string>, acked: Acked[], counts: { interrupted: number, refused: number }): Promise<void> {
  const partners = Object.keys(PARTNERS) as PartnerId[]
  let last: { partner: PartnerId, agent: string, customerId: string } | undefined
  for (;;) {
    const partner = partners[serial % 3 === 2 ? 1 : 0]
    const agents = PARTNERS[partner].agents
    const agent = agents[serial % agents.length]
    serial += 1
    const message = last !== undefined && serial % 3 === 0
    const target = message ? last! : { partner, agent, customerId: '' }
    const url = message
      ? `http://127.0.0.1:${port}/api/customers/${target.customerId}/messages`
      : `http://127.0.0.1:${port}/api/customers`
    const body = message
      ? { message: `CRASH TEST ${serial}`, fromDepartment: 'CRASH', fromPerson: 'TEST' }
      : { customerReference: `CRASH-${serial}`, defaultCustomer: { entityTypeId: '5', name1: `CRASH ${serial} (PTY) LTD`, identifyingNumber: '2010/123456/07', taxNumber: '9001234567' } }
    let res: Response
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[target.partner]}`, 'agent-id': target.agent, 'content-type': 'application/json' },
        body: JSON.stringify(body)
      })
    } catch {
      counts.interrupted += 1 // the server died with this request in flight: it was never acknowledged
      return
    }
    let json: { customerId?: string, id?: string }
    try {
      json = await res.json() as { customerId?: string, id?: string }
    } catch {
      counts.interrupted += 1
      return
    }
    if (res.status !== 200) {
      counts.refused += 1
      continue
    }
    if (message) {
      acked.push({ partner: target.partner, agent: target.agent, kind: 'messages', id: json.id! })
    } else {
      acked.push({ partner: target.partner, agent: target.agent, kind: 'customers', id: json.customerId! })
      last = { partner: target.partner, agent: target.agent, customerId: json.customerId! }
    }
  }
}

/** Every partner's files read (snapshot + logs, as the start reads them); every acknowledged create is in them. */
async function checkFiles (dataDir: string, acked: Acked[]): Promise<{ missing: Acked[], problems: string[] }> {
  const problems: string[] = []
  const ids = new Map<string, Set<string>>()
  // a kill before the first start made its directory leaves none
  const dir = join(dataDir, 'partners')
  const names = existsSync(dir) ? readdirSync(dir) : []
  const logs = logGenerations(names)
  for (const name of names.filter((f) => f.endsWith('.json'))) {
    let file: PartnerSnapshot
    try {
      file = (await readPartnerFiles(dir, name.slice(0, -5), logs.get(name.slice(0, -5)) ?? [])).data
    } catch (err) {
      problems.push(`${name}: ${(err as Error).message}`)
      continue
    }
    for (const a of file.agents) {
      ids.set(`${file.id}/${a.id}/customers`, new Set(a.customers.map((c) => c.customerId)))
      ids.set(`${file.id}/${a.id}/messages`, new Set(a.messages.map((m) => m.id)))
    }
  }
  const missing = acked.filter((c) => ids.get(`${c.partner}/${c.agent}/${c.kind}`)?.has(c.id) !== true)
  return { missing, problems }
}

async function crashCycles (t: Test, scenario: string, cycles: number): Promise<void> {
  ensureBuilt()
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-crash-'))
  let server: Started | undefined
  t.teardown(async () => {
    if (server !== undefined) await kill(server.child)
    rmSync(dataDir, { recursive: true, force: true })
  })

  const acked: Acked[] = []
  const counts = { interrupted: 0, refused: 0 }
  let startKills = 0
  for (let cycle = 0; cycle < cycles; cycle++) {
    // every tenth cycle the kill may land while the server is still starting (restoring, or on the very
    // first cycle writing its first files)
    if (cycle % 10 === 0) {
      const early = await startServer(dataDir, scenario, Math.floor(Math.random() * 1500))
      if (early.port === 0) startKills++
      const after = await checkFiles(dataDir, acked)
      t.same(after.problems, [], `cycle ${cycle}: the files parse after a kill during the start`)
    }
    server = await startServer(dataDir, scenario)
    const { port, child } = server
    t.notOk(readdirSync(join(dataDir, 'partners')).some((f) => f.endsWith('.tmp')), `cycle ${cycle}: no temporary file survives the start`)
    const tokens = { 'partner-a': await token(port, 'partner-a'), 'partner-b': await token(port, 'partner-b') }
    const before = acked.length
    const writers = Array.from({ length: WRITERS }, () => writer(port, tokens, acked, counts))
    // amid writes: once the first create of the cycle is answered (on the large scenario the first write
    // to the 84 MB partner took longer than the whole random delay on a busy CI machine, so every kill landed
    // before any create), then at a random moment: most of a batch's life is its write and fsync, so kills
    // land inside batches
    for (let waited = 0; acked.length === before && waited < 60_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10))
    const delay = 50 + Math.floor(Math.random() * 400)
    await new Promise((resolve) => setTimeout(resolve, delay))
    await kill(child)
    await Promise.all(writers)
    server = undefined

    const { missing, problems } = await checkFiles(dataDir, acked)
    t.same(problems, [], `cycle ${cycle}: every partner file parses`)
    t.same(missing.slice(0, 5), [], `cycle ${cycle}: all ${acked.length} acknowledged creates on disk (${acked.length - before} new, killed after ${delay} ms)`)
    if (missing.length > 0 || problems.length > 0) break
  }
  t.ok(acked.length >= cycles, `${acked.length} creates were acknowledged across the cycles`)
  t.ok(counts.interrupted >= cycles, `${counts.interrupted} requests were in flight when the server died`)
  t.equal(counts.refused, 0, 'no create was refused')
  t.comment(`kills during the start: ${startKills}`)

  // and the restarted sandbox serves them
  server = await startServer(dataDir, scenario)
  const tokens = { 'partner-a': await token(server.port, 'partner-a'), 'partner-b': await token(server.port, 'partner-b') }
  const sample = acked.filter((_c, i) => i % Math.max(1, Math.floor(acked.length / 40)) === 0)
  let served = 0
  for (const c of sample) {
    const url = c.kind === 'customers' ? `/api/customers/${c.id}` : undefined
    if (url === undefined) continue
    const res = await fetch(`http://127.0.0.1:${server.port}${url}`, { headers: { authorization: `Bearer ${tokens[c.partner]}`, 'agent-id': c.agent } })
    if (res.status === 200) served++
    else t.fail(`${c.partner} ${c.agent} ${c.id}: ${res.status}`)
  }
  t.ok(served > 0, `${served} sampled customers served after the last restart`)
}

t.test(`${CYCLES} SIGKILLs amid continuous writes lose no create that was answered 200`, (t) => crashCycles(t, 'default', CYCLES))

t.test('on the large scenario (an 84 MB partner), SIGKILLs amid writes lose no create that was answered 200', (t) => crashCycles(t, 'large', LARGE_CYCLES))
