import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { ConfigError, OPTIONS, fromEnv, loadConfig, type Config } from './config.js'
import { PACKAGE_JSON } from './files.js'
import { publishedCredentials } from './seed/published.js'
import { tracingSettings, type TracingSettings } from './observe/tracing.js'

const NAME = 'banking-sandbox'

function help (): string {
  const width = Math.max(...OPTIONS.map((o) => o.flag.length)) + 10
  const lines = OPTIONS.map((o) => {
    const flag = `  --${o.flag} <${o.type === 'integer' ? 'n' : 'value'}>`.padEnd(width + 4)
    const hosted = o.hosted === undefined ? '' : `; hosted profile: ${String(o.hosted)}`
    const def = o.default === undefined ? (hosted === '' ? '' : ` (${hosted.slice(2)})`) : ` (default ${String(o.default)}${hosted})`
    return `${flag}${o.description}${def}\n${''.padEnd(width + 4)}env ${o.env}`
  })
  return `Usage: ${NAME} [options]\n       ${NAME} parity --target <url> ... (probes another implementation against this sandbox: parity --help)\n\nA sandbox of the Banking Agent REST Service 4.1.0 with an embedded OpenID Connect provider.\n` +
    'Every option can also be set by its environment variable; a flag wins over the variable.\n\nOptions:\n' +
    `${lines.join('\n')}\n${'  --help'.padEnd(width + 4)}Show this help\n${'  --version'.padEnd(width + 4)}Show the version\n`
}

/** --flag value and --flag=value pairs, by the flags of the config schema. */
export function parseFlags (argv: string[]): Record<string, string> | 'help' | 'version' {
  const out: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') return 'help'
    if (arg === '--version') return 'version'
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    const option = m === null ? undefined : OPTIONS.find((o) => o.flag === m[1])
    if (m === null || option === undefined) throw new ConfigError(`unknown argument "${arg}" (see --help)`)
    const value = m[2] ?? argv[++i]
    if (value === undefined) throw new ConfigError(`option --${option.flag} needs a value`)
    out[option.key] = value
  }
  return out
}

/** Where the data lives, for the banner (a Redis URL's password is not shown). */
function storeOf (config: Config): string {
  if (config.redisUrl !== undefined) {
    const url = new URL(config.redisUrl)
    return `shared through ${config.redisCluster === 1 ? 'the Redis Cluster of' : 'Redis at'} ${url.host}, prefix ${config.redisPrefix}`
  }
  return config.dataDir === undefined ? 'in memory' : `data in ${config.dataDir}`
}

function banner (config: Config, fastify: FastifyInstance): void {
  const url = config.publicUrl!
  // the scenario's partners and their published credentials, when those work here (a hosted sandbox shows none)
  const partners = config.publishedSecrets === 'on' ? [...fastify.world.partners.values()].filter((p) => !p.registered).slice(0, 4) : []
  const lines = [
    `Banking Agent Sandbox listening on ${config.host}:${config.port}`,
    `  API        ${url}/api`,
    `  docs       ${url}/api/docs/apidocs`,
    `  console    ${url}/console`,
    `  discovery  ${url}/auth/realms/sandbox/.well-known/openid-configuration`,
    ...(fastify.management.url === undefined ? [] : [`  metrics    ${fastify.management.url}/metrics (management port: /health, /ready)`]),
    `  scenario   ${config.scenario} (${storeOf(config)})${config.profile === 'local' ? '' : `, profile ${config.profile}`}`,
    ...partners.map((p) => {
      // (the scenario's published values: the sandbox keeps hashes only; a rotated secret is the operator's to tell)
      const published = publishedCredentials(fastify.world, fastify.scenarios, p)
      const users = published?.users ?? []
      return `  client     ${p.id} / ${published?.secret ?? '(secret rotated)'}  agents ${[...p.agents.keys()].join(', ')}${users.length > 0 ? `  users ${users.map((u) => `${u.username} / ${u.password}`).join(', ')}` : ''}`
    })
  ]
  process.stderr.write(`${lines.join('\n')}\n`)
}

/**
 * Runs the sandbox as this process: the only place that touches the process itself. It listens, prints the
 * banner, and stops gracefully on SIGTERM/SIGINT (the drain, the requests in flight, the store flushed), then
 * exits 0, or 1 when the stop took longer than the shutdown timeout.
 */
async function run (config: Config, traces: TracingSettings | null): Promise<void> {
  // loaded only now: --help, --version and configuration errors answer at once
  const [{ listenSandbox, startTracing, stopSandbox }, { settleHttpObjectLayouts }] = await Promise.all([import('./server.js'), import('./heap.js')])
  settleHttpObjectLayouts()
  // traces only when the standard OTEL_* variables ask for them: the SDK is the process's, so the command's
  const tracing = traces === null ? undefined : await startTracing(traces)
  const fastify = await listenSandbox(config, { tracing })
  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    fastify.log.info({ signal, drainMs: config.shutdownDrain }, 'stopping')
    stopSandbox(fastify, config).then((inTime) => {
      if (inTime) fastify.log.info('stopped')
      else fastify.log.error({ timeoutMs: config.shutdownTimeout }, 'stop took too long; connections still open were closed')
      process.exit(inTime ? 0 : 1)
    }, (err: unknown) => {
      fastify.log.error({ err }, 'error while stopping')
      process.exit(1)
    })
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
  banner(config, fastify)
}

async function main (): Promise<void> {
  // a subcommand: the parity kit (docs/parity.md), a client of some bank API; loaded only when asked for
  if (process.argv[2] === 'parity') {
    const [{ parityMain }, { runParity }] = await Promise.all([import('./parity/cli.js'), import('./library.js')])
    process.exitCode = await parityMain(process.argv.slice(3), runParity)
    return
  }
  let config: Config
  let tracing: TracingSettings | null
  try {
    const flags = parseFlags(process.argv.slice(2))
    if (flags === 'help') {
      process.stdout.write(help())
      return
    }
    if (flags === 'version') {
      const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }
      process.stdout.write(`${pkg.version}\n`)
      return
    }
    config = loadConfig({ ...fromEnv(process.env), ...flags })
    tracing = tracingSettings(process.env)
  } catch (err) {
    process.stderr.write(`${NAME}: ${(err as Error).message}\n`)
    process.exit(2)
  }
  try {
    await run(config, tracing)
  } catch (err) {
    // a configuration or data problem found while loading: its message names the option or file
    const e = err as Error & { code?: string }
    process.stderr.write(`${NAME}: cannot start: ${e.message}\n`)
    process.exit(e instanceof ConfigError ? 2 : 1)
  }
}

await main()
