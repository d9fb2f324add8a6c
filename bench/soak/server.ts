import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { freePort } from '../../test/ports.js'
import { LAUNCH_FLAGS } from '../../src/heap.js'

// The sandbox as a separate process for the soak: the built command (dist/cli.js), optionally on one core.
export interface Sandbox {
  child: ChildProcess
  port: number
  base: string
  exited: Promise<number | null>
}

function health (port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0) })
    req.on('error', () => resolve(0))
    req.end()
  })
}

/** Starts `node dist/cli.js` (on CPU `core` with taskset when given; nodeArgs such as --cpu-prof) and waits for /health. */
export async function startSandbox (env: Record<string, string>, core?: number, nodeArgs: string[] = []): Promise<Sandbox> {
  const port = await freePort()
  const args = [process.execPath, ...nodeArgs, ...LAUNCH_FLAGS, 'dist/cli.js']
  const cmd = core === undefined ? args : ['taskset', '-c', String(core), ...args]
  const child = spawn(cmd[0], cmd.slice(1), {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn', SANDBOX_MANAGEMENT_PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'ignore']
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const deadline = Date.now() + 60_000
  while (await health(port) !== 200) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('the sandbox did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { child, port, base: `http://127.0.0.1:${port}`, exited }
}

export async function clientToken (base: string, client: string, secret: string): Promise<string> {
  const res = await fetch(`${base}/auth/realms/sandbox/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}` },
    body: 'grant_type=client_credentials&scope=openid'
  })
  if (res.status !== 200) throw new Error(`token for ${client}: ${res.status}`)
  return (await res.json() as { access_token: string }).access_token
}
