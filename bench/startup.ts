// Cold start: process start to the first 200 on /health, the sandbox (in memory, default scenario) against
// the bare Fastify baseline, BENCH_STARTS times each (default 3, alternating; medians), and for the
// sandbox the time from that answer to its first issued token. Smoke run: npx tsx bench/startup.ts <banks.json>
import { performance } from 'node:perf_hooks'
import { CLIENT, TOKEN_PATH, positive, startBaseline, startSandbox, type Server } from './harness.js'

export interface StartFigures {
  sandboxMs: number
  baselineMs: number
  /** from the sandbox's first /health 200 to its first token (client_credentials) */
  tokenAfterMs: number
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

async function firstToken (server: Server): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(`${server.base}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  if (res.status !== 200) throw new Error(`${server.name}: first token answered ${res.status}`)
  await res.arrayBuffer()
  return performance.now() - t0
}

export async function coldStarts (banksFile: string, count = positive('BENCH_STARTS', 3)): Promise<StartFigures> {
  const sandbox: number[] = []
  const baseline: number[] = []
  const token: number[] = []
  for (let i = 0; i < count; i++) {
    const s = await startSandbox(`sandbox-cold-${i}`)
    try {
      sandbox.push(s.startupMs)
      token.push(await firstToken(s))
    } finally {
      await s.stop()
    }
    const b = await startBaseline(banksFile)
    baseline.push(b.startupMs)
    await b.stop()
  }
  return { sandboxMs: median(sandbox), baselineMs: median(baseline), tokenAfterMs: median(token) }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  process.stdout.write(`${JSON.stringify(await coldStarts(process.argv[2]), null, 2)}\n`)
}
