import { performance } from 'node:perf_hooks'
import { startSandbox } from '../src/library.js'
import { hashPasswordSync } from '../src/store/credentials.js'

/*
 * What a password grant costs now that test passwords are kept as scrypt hashes (issue 50), beside a
 * client-credentials grant, whose secret check is a keyed hash (HMAC-SHA-256): token requests one after another
 * over HTTP against one sandbox in this process, and the scrypt hash alone. `npx tsx bench/password-grant.ts`
 * (BENCH_GRANTS: requests of each kind, default 40). Figures: docs/benchmarks.md, "Password grants".
 */

const N = Number(process.env.BENCH_GRANTS ?? 40)
const sandbox = await startSandbox({ maxEventLoopDelay: 60_000 })
const basic = `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`

async function grant (body: string): Promise<void> {
  const res = await fetch(sandbox.tokenUrl, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body })
  if (res.status !== 200) throw new Error(`token request answered ${res.status}: ${await res.text()}`)
  await res.arrayBuffer()
}

async function timed (name: string, run: () => Promise<void> | void): Promise<number> {
  await run()
  const start = performance.now()
  for (let i = 0; i < N; i++) await run()
  const ms = (performance.now() - start) / N
  process.stdout.write(`${name.padEnd(22)} ${ms.toFixed(2)} ms each (${N})\n`)
  return ms
}

try {
  const cc = await timed('client_credentials', async () => await grant('grant_type=client_credentials'))
  const pw = await timed('password', async () => await grant('grant_type=password&username=alice&password=alice-password&scope=openid'))
  const hash = await timed('scrypt hash alone', () => { hashPasswordSync('alice-password') })
  process.stdout.write(`a password grant costs ${(pw - cc).toFixed(1)} ms more than a client-credentials grant; the hash alone ${hash.toFixed(1)} ms\n`)
} finally {
  await sandbox.stop()
}
