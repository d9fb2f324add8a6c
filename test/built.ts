import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/*
 * The built sandbox (dist/, as `npm run build` makes it) run as a child process, for the tests that need the
 * real command: the crash test and the test of the bundle.
 */

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const CLI = join(ROOT, 'dist', 'cli.js')

/** dist/ as `npm run build` makes it, built again when a source changed (npm start's build step): the test runs today's code. */
export function ensureBuilt (): void {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-changed.mjs')], { cwd: ROOT, encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`the build failed: ${build.stdout}${build.stderr}`)
}

export interface Started { child: ChildProcess, port: number, stderr: () => string, stdout: () => string }

/**
 * Starts dist/cli.js on a free port of 127.0.0.1 with these variables (and these options of node's own before
 * it); resolves once it listens, or, when killAfterMs is given, once that SIGKILL ended it (port 0 if that came
 * before it listened).
 */
export function startCli (env: NodeJS.ProcessEnv, killAfterMs?: number, nodeOptions: string[] = []): Promise<Started> {
  const child = spawn(process.execPath, [...nodeOptions, CLI], {
    cwd: ROOT,
    // the management port (metrics) too on a free port: test files run side by side
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SANDBOX_MANAGEMENT_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let err = ''
  let out = ''
  let port = 0
  const started = (): Started => ({ child, port, stderr: () => err, stdout: () => out })
  child.stdout!.on('data', (d: Buffer) => { out += d.toString() })
  return new Promise((resolve, reject) => {
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /listening on [^\s:]+:(\d+)/.exec(err)
      if (m !== null && port === 0) {
        port = Number(m[1])
        if (killAfterMs === undefined) resolve(started())
      }
    })
    child.on('exit', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer)
      // killed on purpose: port 0 says the kill came before it listened
      if (signal === 'SIGKILL' && killAfterMs !== undefined) resolve(started())
      else reject(new Error(`the sandbox exited (${code ?? signal}) before listening:\n${err}`))
    })
  })
}

export async function kill (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/** A client_credentials access token from the built sandbox on this port (an error unless it answers 200). */
export async function clientToken (port: number, clientId: string, secret: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/auth/realms/sandbox/protocol/openid-connect/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded'
    },
    body: 'grant_type=client_credentials'
  })
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}
