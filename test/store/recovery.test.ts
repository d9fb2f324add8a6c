import { spawn } from 'node:child_process'
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import t, { type Test } from 'tap'
import { AgentStore } from '../../src/store/agent.js'
import { Partner } from '../../src/store/partner.js'
import { DataFileError, FilePersistence, logGenerations, readPartnerFiles } from '../../src/store/persistence.js'
import type { PartnerSnapshot } from '../../src/store/records.js'
import { customer, emptyPartner } from './log-writer.js'

// The data dir's recovery cases: a torn last record, corruption, and a compaction cut by SIGKILL.

function dataDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const partners = (dir: string): string => join(dir, 'partners')
const names = (dir: string): string[] => readdirSync(partners(dir)).sort()

async function onDisk (dir: string, id = 'p-log'): Promise<PartnerSnapshot> {
  return (await readPartnerFiles(partners(dir), id, logGenerations(readdirSync(partners(dir))).get(id) ?? [])).data
}

/** Commits `count` single-customer batches (every third one a record replaced in place). */
async function writeBatches (files: FilePersistence, partner: Partner, count: number): Promise<void> {
  const agent = partner.agents.get('1001')!
  for (let i = 0; i < count; i++) {
    const version = Number(agent.nextId('customer').slice(-8))
    if (agent.customers.length > 0 && version % 3 === 0) agent.replaceCustomer(customer(agent.customers[version % agent.customers.length].customerId, version))
    else agent.addCustomer(customer(`c${version}`, version))
    await files.commit(partner)
  }
}

const plain = (p: Partner): unknown => JSON.parse(JSON.stringify(p.snapshot()))

/** A data dir whose first log is past 4096 bytes, the compaction threshold the next start is given. */
async function logPastThreshold (dir: string): Promise<void> {
  const files = new FilePersistence(dir, 1 << 30)
  const partner = new Partner(emptyPartner())
  const log = join(partners(dir), 'p-log.1.log')
  while (statSync(log, { throwIfNoEntry: false }) === undefined || statSync(log).size <= 4096) await writeBatches(files, partner, 1)
  await files.close()
}

/** A start on the data dir with a compaction threshold of 4096 bytes: the persistence and its partner. */
async function reopen (dir: string, report?: (message: string) => void): Promise<{ files: FilePersistence, partner: Partner }> {
  const files = new FilePersistence(dir, 4096, report)
  const partner = new Partner((await files.loadAll())[0])
  files.adopt([partner])
  return { files, partner }
}

t.test('every kind of change reaches the log and comes back at the start: lists, records in place, agents, partner fields', async (t) => {
  const dir = dataDir(t)
  const files = new FilePersistence(dir, 1 << 30)
  const partner = new Partner(emptyPartner())
  await writeBatches(files, partner, 10)
  const agent = partner.agents.get('1001')!
  // no request shortens a list; the log can say it, and does when a list is shorter than it was
  const customers = agent.snapshot().customers
  customers.length = 7
  partner.sandbox = { ...partner.sandbox, faultSeq: 3 }
  partner.users = [{ username: 'u', passwordHash: '$scrypt$ln=14,r=8,p=5$c2FsdA$aGFzaA', name: 'U', email: 'u@example.com', agentId: '1001', customerIds: [] }]
  partner.guarantees.set('G1', { guaranteeId: 'G1', state: 'VALID' })
  partner.agents.set('1002', new AgentStore({ ...agent.snapshot(), id: '1002', customers: [] }))
  await files.commit(partner)
  partner.agents.delete('1001')
  partner.agents.set('1001', new AgentStore(agent.snapshot()))
  await files.commit(partner)
  // a partner field that comes and goes (an optional one): gone again after the replay
  const snapshot = partner.snapshot.bind(partner)
  partner.snapshot = () => ({ ...snapshot(), note: 'for a while' }) as PartnerSnapshot
  await files.commit(partner)
  partner.snapshot = snapshot
  await files.commit(partner)
  await files.close()
  t.same(names(dir), ['p-log.1.log', 'p-log.json'], 'one snapshot and one log, no snapshot rewritten')
  t.same(await onDisk(dir), plain(partner), 'the snapshot with its log replayed is the partner, agents in their order')
})

t.test('a torn last record is dropped and reported; the file is cut back so that the next batch follows whole records', async (t) => {
  const dir = dataDir(t)
  const files = new FilePersistence(dir, 1 << 30)
  const partner = new Partner(emptyPartner())
  await writeBatches(files, partner, 5)
  await files.close()
  const before = await onDisk(dir)
  const log = join(partners(dir), 'p-log.1.log')
  const size = statSync(log).size
  const cases: Array<[string, string]> = [
    ['a record cut short', '0123abcd [["add","1001","customers",5,[{"custo'],
    ['a whole line whose checksum does not match', '00000000 [["cut","1001","customers",0]]\n'],
    ['zeros where the record should be', '\0\0\0\0\0\0\0\0\0\0\0\0']
  ]
  for (const [label, tail] of cases) {
    appendFileSync(log, tail)
    const reports: string[] = []
    const again = new FilePersistence(dir, 1 << 30)
    const [loaded] = await again.loadAll((m) => reports.push(m))
    t.same(loaded, before, `${label}: the data as it was before the torn write`)
    t.equal(reports.length, 1, `${label}: reported`)
    t.match(reports[0], `${log}: dropped a torn last record at byte ${size}`, `${label}: the report names the file and offset`)
    t.equal(statSync(log).size, size, `${label}: the torn bytes are gone from the file`)
    const p = new Partner(loaded)
    again.adopt([p])
    await writeBatches(again, p, 2)
    await again.close()
    t.same(await onDisk(dir), plain(p), `${label}: later batches follow the whole records`)
    writeFileSync(log, readFileSync(log).subarray(0, size))
  }
})

t.test('any other damage stops the start, naming the file and the byte offset, and changes no file', async (t) => {
  const dir = dataDir(t)
  const files = new FilePersistence(dir, 1 << 30)
  await writeBatches(files, new Partner(emptyPartner()), 6)
  await files.close()
  const log = join(partners(dir), 'p-log.1.log')
  const good = readFileSync(log)
  const lines = good.toString().split('\n')
  const third = lines.slice(0, 3).join('\n').length + 1
  const record = (json: string): string => {
    const crc = crc32(Buffer.from(json))
    return `${crc.toString(16).padStart(8, '0')} ${json}\n`
  }
  const cases: Array<[string, Buffer, number, RegExp]> = [
    ['a flipped byte in a record with others after it', Buffer.from(lines.map((l, i) => i === 3 ? l.replace('"c', '"x') : l).join('\n')), third, /checksum does not match/],
    ['a record that does not follow (records added at the wrong index)', Buffer.concat([good, Buffer.from(record('[["add","1001","customers",99,[]]]'))]), good.length, /added at 99/],
    ['a change to an agent that does not exist', Buffer.concat([good, Buffer.from(record('[["set","9999","customers",0,{}]]'))]), good.length, /9999/],
    ['a header of another log format', Buffer.from(record('{"log":9,"partner":"p-log","generation":1}')), 0, /log format 9 is not 1/]
  ]
  for (const [label, bytes, offset, why] of cases) {
    writeFileSync(log, bytes)
    const listing = names(dir)
    await t.rejects(new FilePersistence(dir).loadAll(), new DataFileError(`data file ${log} is corrupt at byte ${offset}`), label)
    await t.rejects(new FilePersistence(dir).loadAll(), { message: why }, `${label}: and says what is wrong`)
    t.same(readFileSync(log), bytes, `${label}: the file is left as it was`)
    t.same(names(dir), listing)
  }
  // a torn record in a log that a newer one follows cannot come from a crash
  writeFileSync(log, Buffer.concat([good, Buffer.from('0badc0de [["cu')]))
  writeFileSync(join(partners(dir), 'p-log.2.log'), record('{"log":1,"partner":"p-log","generation":2}'))
  await t.rejects(new FilePersistence(dir).loadAll(), { message: `data file ${log} is corrupt at byte ${good.length} (a record cut short in a log that is not the newest` })
})

t.test('a compaction stopped at any step loses nothing: before the rename, after it, before the old logs are deleted', async (t) => {
  const dir = dataDir(t)
  // past the threshold of the next start, whose first batch starts a compaction
  await logPastThreshold(dir)
  const before = join(dir, 'before')
  cpSync(partners(dir), before, { recursive: true })
  const { files: again, partner: p } = await reopen(dir)
  // a batch with nothing new: the compaction starts from the files copied above
  await again.commit(p)
  await writeBatches(again, p, 3)
  await again.close()
  t.same(names(dir), ['p-log.2.log', 'p-log.json'], 'the compaction wrote a snapshot, deleted generation 1 and went on in generation 2')
  const after = join(dir, 'after')
  cpSync(partners(dir), after, { recursive: true })
  const want = plain(p)

  const states: Array<[string, (into: string) => void]> = [
    ['killed before the snapshot was renamed (a temporary file, the old snapshot, both logs)', (into) => {
      cpSync(before, into, { recursive: true })
      cpSync(join(after, 'p-log.2.log'), join(into, 'p-log.2.log'))
      writeFileSync(join(into, 'p-log.json.4242.tmp'), readFileSync(join(after, 'p-log.json')).subarray(0, 100))
    }],
    ['killed after the rename, before the old log was deleted', (into) => {
      cpSync(after, into, { recursive: true })
      cpSync(join(before, 'p-log.1.log'), join(into, 'p-log.1.log'))
    }],
    ['killed while the new generation\'s first record was written', (into) => {
      cpSync(before, into, { recursive: true })
      writeFileSync(join(into, 'p-log.2.log'), readFileSync(join(after, 'p-log.2.log')).subarray(0, 30))
    }]
  ]
  for (const [label, make] of states) {
    rmSync(partners(dir), { recursive: true })
    make(partners(dir))
    const reports: string[] = []
    const restart = new FilePersistence(dir, 4096)
    const [loaded] = await restart.loadAll((m) => reports.push(m))
    if (label.includes('first record')) t.same(loaded, JSON.parse(JSON.stringify((await readPartnerFiles(before, 'p-log', [1])).data)), `${label}: the data of the last whole batch`)
    else t.same(loaded, want, `${label}: every batch is there`)
    t.notOk(names(dir).some((n) => n.endsWith('.tmp')), `${label}: no temporary file is left`)
    const restarted = new Partner(loaded)
    restart.adopt([restarted])
    await writeBatches(restart, restarted, 2)
    await restart.close()
    t.same(await onDisk(dir), plain(restarted), `${label}: and the data dir goes on from there`)
  }
})

interface Acked { adds: Set<string>, versions: Map<number, number> }

/** Runs the writer until it is killed after `ms`; returns what it acknowledged. */
function runWriter (dir: string, ms: number, acked: Acked): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./log-writer.ts', import.meta.url).pathname, dir, '3000'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => { out += d.toString() })
    child.stderr.on('data', (d: Buffer) => { err += d.toString() })
    // the clock starts at its first acknowledged write (the loader takes a while to start)
    const started = setInterval(() => {
      if (out.length === 0) return
      clearInterval(started)
      setTimeout(() => child.kill('SIGKILL'), ms)
    }, 5)
    child.once('exit', (_code, signal) => {
      clearInterval(started)
      if (signal !== 'SIGKILL') return reject(new Error(`the writer stopped by itself: ${err}`))
      for (const line of out.split('\n')) {
        // a line cut by the kill was never complete: not counted
        const [kind, what, version] = line.split(' ')
        if (version === undefined) continue
        if (kind === 'add') acked.adds.add(what)
        else acked.versions.set(Number(what), Number(version))
      }
      resolve()
    })
  })
}

t.test('SIGKILL at random moments of a writer that compacts every few kilobytes loses no acknowledged write', async (t) => {
  const dir = dataDir(t)
  const acked: Acked = { adds: new Set(), versions: new Map() }
  const cycles = 12
  for (let cycle = 0; cycle < cycles; cycle++) {
    await runWriter(dir, 20 + Math.floor(Math.random() * 250), acked)
    const data = await onDisk(dir)
    const customers = data.agents[0].customers as unknown as Array<{ customerId: string, defaultCustomer: { name1: string } }>
    const ids = new Set(customers.map((c) => c.customerId))
    const missing = [...acked.adds].filter((id) => !ids.has(id))
    // a replaced record holds the acknowledged version or a later one (a batch on disk whose answer the kill cut)
    const older = [...acked.versions].filter(([i, v]) => Number(customers[i]?.defaultCustomer.name1.slice(1)) < v)
    t.same({ missing: missing.slice(0, 5), older: older.slice(0, 5) }, { missing: [], older: [] },
      `cycle ${cycle}: ${acked.adds.size} acknowledged adds and ${acked.versions.size} replaced records on disk (${names(dir).join(', ')})`)
    if (missing.length > 0 || older.length > 0) break
  }
  t.ok(acked.adds.size > cycles, `${acked.adds.size} writes acknowledged in all`)
})

t.test('a compaction that fails (the snapshot cannot be written) is reported, loses nothing, and is tried again later', async (t) => {
  const dir = dataDir(t)
  await logPastThreshold(dir)
  const reports: string[] = []
  const { files: again, partner: p } = await reopen(dir, (message) => reports.push(message))
  // the snapshot's temporary file cannot be made: a directory is in its place
  const blocker = join(partners(dir), `p-log.json.${process.pid}.tmp`)
  mkdirSync(blocker)
  await again.commit(p)
  await writeBatches(again, p, 3)
  await again.close()
  t.equal(reports.length, 1, 'one report')
  t.match(reports[0], /^compaction of partner p-log failed, its snapshot and logs stay as they were and it is tried again later: EISDIR/)
  t.same(names(dir), ['p-log.1.log', 'p-log.2.log', 'p-log.json', `p-log.json.${process.pid}.tmp`], 'the old snapshot and both logs stay')
  t.same(await onDisk(dir), plain(p), 'a start replays snapshot + both logs: nothing lost')

  rmSync(blocker, { recursive: true })
  const { files: third, partner: q } = await reopen(dir, (message) => reports.push(message))
  const log2 = join(partners(dir), 'p-log.2.log')
  while (statSync(log2, { throwIfNoEntry: false }) !== undefined && statSync(log2).size <= 4096) await writeBatches(third, q, 1)
  await writeBatches(third, q, 1)
  await third.close()
  t.equal(reports.length, 1, 'no further report')
  t.notOk(names(dir).includes('p-log.1.log'), 'once the current log outgrew the threshold in its turn, the compaction ran and removed the older logs')
  t.same(await onDisk(dir), plain(q))
})
