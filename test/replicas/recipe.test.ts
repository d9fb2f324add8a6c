import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { OPTIONS } from '../../src/config.js'
import { ROOT } from '../built.js'
import { call } from '../calls.js'
import { replicaSkip, token } from './harness.js'

/*
 * docs/replicas.md's "Trying it on one machine", its commands run as written (taken from the page: a change of
 * the page changes what runs): a Redis, a signing key, three replicas started with `npm start` and nothing but
 * their PORTs apart. They run in a directory of their own that links to the checkout's package.json, scripts/
 * and dist/ (what `npm start` reads), so that the key and Redis's files stay out of the checkout; the build
 * `npm start` makes, when a source changed, is the checkout's own. The recipe's ports are fixed (6379, 8081-8083;
 * the public URL's 8080): where one is taken the test cannot run, and fails saying so where it must run.
 */

/** The page's ```sh block under "## Trying it on one machine". */
function recipe (): string {
  const page = readFileSync(join(ROOT, 'docs', 'replicas.md'), 'utf8')
  const section = page.split(/^## /m).find((s) => s.startsWith('Trying it on one machine\n'))
  const block = section === undefined ? null : /```sh\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error('docs/replicas.md: no ```sh block under "## Trying it on one machine"')
  return block[1]
}

/** The ports the recipe's commands take: Redis's, the replicas', the public URL's (none may be in use). */
function portsOf (commands: string): { redis: number, replicas: number[], publicUrl: string } {
  const redis = /redis-server --port (\d+)/.exec(commands)
  const replicas = /for port in ([\d ]+);/.exec(commands)
  const publicUrl = /PUBLIC_URL=(\S+)/.exec(commands)
  if (redis === null || replicas === null || publicUrl === null) throw new Error(`the recipe no longer reads as this test expects:\n${commands}`)
  return { redis: Number(redis[1]), replicas: replicas[1].trim().split(/ +/).map(Number), publicUrl: publicUrl[1] }
}

async function inUse (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(true))
    probe.listen(port, () => probe.close(() => resolve(false)))
  })
}

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

/** Whether any process of this process group is still running. */
function groupAlive (pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

const commands = recipe()
const { redis, replicas, publicUrl } = portsOf(commands)

/** false when the recipe can run here, else why not (an error where the replica tests must run). */
async function recipeSkip (): Promise<string | false> {
  const skip = replicaSkip()
  if (skip !== false) return skip
  const ports = [redis, ...replicas, Number(new URL(publicUrl).port)]
  const taken = (await Promise.all(ports.map(async (p) => await inUse(p) ? p : undefined))).filter((p) => p !== undefined)
  const missing = ['openssl', 'npm'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
  const cannot = [...taken.length > 0 ? [`the recipe's ports ${taken.join(', ')} are in use`] : [], ...missing.map((tool) => `${tool} is missing`)]
  if (cannot.length === 0) return false
  if (process.env.SANDBOX_REPLICA_TESTS === 'required') throw new Error(cannot.join('; '))
  return cannot.join('; ')
}

t.test("docs/replicas.md's recipe for one machine, run as written: three replicas on one Redis, all serving", { skip: await recipeSkip() }, async (t) => {
  t.equal(replicas.length, 3, 'three replicas')

  const dir = mkdtempSync(join(tmpdir(), 'sandbox-recipe-'))
  for (const name of ['package.json', 'scripts', 'dist']) symlinkSync(join(ROOT, name), join(dir, name))
  // a shell as a partner's: none of the sandbox's variables set, this Node first on PATH
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` }
  for (const o of OPTIONS) delete env[o.env]
  // detached: the shell and the replicas it leaves running in the background are one process group
  const shell = spawn('sh', ['-c', commands], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  shell.stdout.on('data', (d: Buffer) => { output += d.toString() })
  shell.stderr.on('data', (d: Buffer) => { output += d.toString() })
  t.teardown(async () => {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (groupAlive(shell.pid!)) process.kill(-shell.pid!, signal)
      for (let i = 0; i < 100 && groupAlive(shell.pid!); i++) await sleep(100)
    }
    // redis-server daemonized itself (a session of its own)
    spawnSync('redis-cli', ['-p', String(redis), 'shutdown', 'nosave'])
    rmSync(dir, { recursive: true, force: true })
  })

  const bases = replicas.map((port) => `http://127.0.0.1:${port}`)
  const until = Date.now() + 180_000
  const waiting = new Set(bases)
  while (waiting.size > 0) {
    // a replica that cannot start says so and exits: no use waiting for it
    if (/cannot start/.test(output)) break
    if (Date.now() > until) break
    for (const base of waiting) {
      if (await fetch(`${base}/ready`).then((r) => r.status === 200, () => false)) waiting.delete(base)
    }
    await sleep(250)
  }
  t.same([...waiting], [], waiting.size === 0 ? 'every replica ready' : `every replica ready:\n${output.slice(-4000)}`)
  t.notMatch(output, /cannot start/, 'none refused to start')
  if (waiting.size > 0) return

  for (const base of bases) t.equal((await fetch(`${base}/health`)).status, 200, `${base}/health`)
  const banners = [...output.matchAll(/^ {2}metrics +(http:\/\/\S+)\/metrics/gm)].map((m) => m[1])
  t.equal(new Set(banners).size, 3, `a management port each: ${banners.join(', ')}`)
  // one sandbox: a token of one replica is good on the others (the same keys, the same partners, from Redis)
  const bearer = await token(bases[0])
  for (const base of bases.slice(1)) t.equal((await call(base, bearer, '/api/banks')).status, 200, `${base} takes ${bases[0]}'s token`)
  const keys = spawnSync('redis-cli', ['-p', String(redis), '--scan', '--pattern', 'sbx:*'], { encoding: 'utf8' }).stdout.split('\n').filter((k) => k !== '')
  t.ok(keys.length > 0, `the state is in the recipe's Redis (${keys.length} keys)`)
})
