// Many partners on one instance: BENCH_PARTNERS (default 5,000) partners registered on the default scenario
// through the operator API with a data dir; resident memory in total and per partner; then a restart, timed
// until every partner is served again (listed by the operator API, and a sample answering an API call
// with its own token). Smoke run: BENCH_PARTNERS=50 npx tsx bench/partners.ts
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { ADMIN_TOKEN, TOKEN_PATH, admin, fmt, positive, say, startSandbox, type Server } from './harness.js'

const PARALLEL = 8
const SAMPLE = 20

export interface PartnersFigures {
  count: number
  rssBeforeMb: number
  rssAfterMb: number
  mbPerPartner: number
  registerSeconds: number
  restartToHealthMs: number
  restartToAllServedMs: number
  diskMb: number
}

interface Registered { clientId: string, clientSecret: string, agentIds: string[] }

/** A partner is served: its own token, then a list of its first agent's customers. */
async function served (server: Server, p: Registered): Promise<void> {
  const res = await fetch(`${server.base}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${p.clientId}:${p.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  if (res.status !== 200) throw new Error(`token of ${p.clientId}: ${res.status}`)
  const { access_token: token } = await res.json() as { access_token: string }
  const list = await fetch(`${server.base}/api/customers?page=0&size=1`, { headers: { authorization: `Bearer ${token}`, 'agent-id': p.agentIds[0] } })
  if (list.status !== 200) throw new Error(`customers of ${p.clientId}: ${list.status}`)
  await list.arrayBuffer()
}

function duSizeMb (dir: string): number {
  let bytes = 0
  for (const name of readdirSync(dir)) bytes += statSync(join(dir, name)).size
  return bytes / 1024 / 1024
}

export async function manyPartners (count = positive('BENCH_PARTNERS', 5000)): Promise<PartnersFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-bench-partners-'))
  const env = { SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN, SANDBOX_MAX_EVENT_LOOP_DELAY: '60000' }
  let server = await startSandbox('sandbox-partners', dataDir, 'warn', undefined, env)
  try {
    const rssBeforeMb = server.rssMb()
    const registered: Registered[] = []
    const t0 = performance.now()
    let next = 0
    await Promise.all(Array.from({ length: PARALLEL }, async () => {
      while (next < count) {
        const i = next++
        registered.push(await admin(server, 'POST', '/partners', { clientId: `bench-${i}`, scenario: 'default' }) as Registered)
        if (registered.length % 500 === 0) say(`partners: ${registered.length} registered, RSS ${fmt(server.rssMb())} MB`)
      }
    }))
    const registerSeconds = (performance.now() - t0) / 1000
    const rssAfterMb = server.rssMb()
    await server.stop()
    const diskMb = duSizeMb(join(dataDir, 'partners'))

    say(`partners: restart with ${count} partners in the data dir (${fmt(diskMb)} MB)`)
    const restartT0 = performance.now()
    server = await startSandbox('sandbox-partners-restart', dataDir, 'warn', undefined, env)
    const restartToHealthMs = performance.now() - restartT0
    const listed = await admin(server, 'GET', '/partners') as { partners: Array<{ clientId?: string, id?: string }> }
    if (listed.partners.length < count) throw new Error(`after the restart ${listed.partners.length} partners are listed, not ${count}`)
    const step = Math.max(1, Math.floor(registered.length / SAMPLE))
    for (let i = 0; i < registered.length; i += step) await served(server, registered[i])
    const restartToAllServedMs = performance.now() - restartT0
    return { count, rssBeforeMb, rssAfterMb, mbPerPartner: (rssAfterMb - rssBeforeMb) / count, registerSeconds, restartToHealthMs, restartToAllServedMs, diskMb }
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const f = await manyPartners()
  process.stdout.write(`${JSON.stringify(f, null, 2)}\n`)
}
