// npm run fuzz -- --seed N --requests M [--raw K]: the fuzzer of test/fuzz.test.ts for as long as one likes,
// against the app in this process (in memory, default scenario, port 0 on 127.0.0.1). Prints what it sent
// and what came back; exits 1 with the (shrunk) failing case when an answer breaks a rule.
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.js'
import { buildServer } from '../src/server.js'
import { fuzz } from '../test/fuzz/run.js'

const ADMIN = 'operator-secret-fuzz-0123456789'

const { values } = parseArgs({ options: { seed: { type: 'string' }, requests: { type: 'string' }, raw: { type: 'string' } } })
const seed = Number(values.seed ?? Date.now() % 2_147_483_647)
const requests = Number(values.requests ?? 10_000)
const raw = Number(values.raw ?? Math.max(100, Math.round(requests / 10)))
if (![seed, requests, raw].every((n) => Number.isInteger(n) && n >= 0)) {
  process.stderr.write('usage: npm run fuzz -- --seed <integer> --requests <count> [--raw <count>]\n')
  process.exit(2)
}

const app = await buildServer(loadConfig({ logLevel: 'silent', host: '127.0.0.1', adminToken: ADMIN, maxEventLoopDelay: 60_000, publicUrl: 'http://127.0.0.1', managementPort: 0 }))
await app.listen({ port: 0, host: '127.0.0.1' })
const port = (app.server.address() as { port: number }).port
const token = await app.inject({
  method: 'POST',
  url: '/auth/realms/sandbox/protocol/openid-connect/token',
  headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
  payload: 'grant_type=client_credentials&scope=openid'
})
const started = Date.now()
const report = await fuzz(app, { seed, requests, raw, port, credentials: { partner: (token.json() as { access_token: string }).access_token, admin: ADMIN } })
await app.close()
process.stdout.write(`fuzz: seed ${seed}, ${report.requests} requests over ${report.operations} operations, ${report.raw} raw requests, ${((Date.now() - started) / 1000).toFixed(1)} s\n` +
  `answers: ${JSON.stringify(report.byStatus)}\n${report.failure === undefined ? 'no rule broken\n' : `FAILED: ${report.failure}\n`}`)
process.exit(report.failure === undefined ? 0 : 1)
