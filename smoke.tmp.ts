import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
const scenario = process.argv[2]
const dir = mkdtempSync(join(tmpdir(), 'smoke-'))
const port = 20000 + Math.floor(Math.random() * 20000)
const t0 = performance.now()
const child = spawn(process.execPath, [process.env.CLI ?? 'dist/cli.js'], { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', SANDBOX_DATA_DIR: dir, SANDBOX_SCENARIO: scenario, LOG_LEVEL: 'warn' }, stdio: 'ignore' })
const base = `http://127.0.0.1:${port}`
for (;;) { try { if ((await fetch(`${base}/health`)).status === 200) break } catch {} await new Promise((r) => setTimeout(r, 50)) }
console.log(scenario, 'ready after', Math.round(performance.now() - t0), 'ms')
const tok = await (await fetch(`${base}/auth/realms/sandbox/protocol/openid-connect/token`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from('partner-a:partner-a-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })).json() as { access_token: string }
const r = await autocannon({ url: `${base}/api/customers/1001100000001/messages`, method: 'POST', headers: { authorization: `Bearer ${tok.access_token}`, 'agent-id': '1001', 'content-type': 'application/json' }, body: JSON.stringify({ message: 'HELLO', fromDepartment: 'X', fromPerson: 'Y' }), connections: 50, duration: 5 })
console.log(scenario, 'rps', Math.round(r.requests.average), 'p50', r.latency.p50, 'p99', r.latency.p99, 'non2xx', r.non2xx)
console.log(readdirSync(join(dir, 'partners')).map((f) => `${f} ${statSync(join(dir, 'partners', f)).size}`).join(', '))
child.kill('SIGTERM')
await new Promise((r) => child.once('exit', r))
rmSync(dir, { recursive: true, force: true })
