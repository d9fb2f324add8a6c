import { loadConfig, type Config } from './config.js'
import type { LogSink } from './app.js'
import { REALM_PATH, ROUTES } from './auth/realm.js'
import { publishedCredentials } from './seed/published.js'
import { hostTracing, listenSandbox, stopSandbox } from './server.js'
import { SandboxClient } from './client/index.js'
import { runParity as runParityAgainst, type ParityOptions, type ParityResult } from './parity/index.js'

/*
 * The package's root export: a sandbox started inside the caller's process, for a test suite. A guest there:
 * it sets no V8 flag, installs no signal handler, never exits the process and writes nothing unless asked
 * (`log`); several can run at once, each on its own port; after stop() nothing of it is left running (no
 * socket, timer or file handle), so a process that only ran sandboxes ends by itself.
 */

/** The sandbox's configuration keys (README "Configuration"; the same as the command's options and variables). */
export type SandboxConfig = Partial<Config>

export interface SandboxOptions extends SandboxConfig {
  /**
   * Where the JSON log lines go: true for standard output, or any object with write(line). Off by default: a
   * library writes nothing of its own to a test runner's output.
   */
  log?: boolean | LogSink
}

export interface SandboxUser {
  username: string
  password: string
}

/** A partner of the scenario: an OAuth client with its own agents and test users. */
export interface SandboxPartner {
  clientId: string
  clientSecret: string
  name: string
  agents: string[]
  users: SandboxUser[]
}

export interface StartedSandbox {
  /** Where it answers, e.g. http://127.0.0.1:43117 (the public URL: issuer and docs links use it). */
  url: string
  /** The OpenID Connect issuer, `{url}/auth/realms/sandbox`. */
  issuer: string
  /** The token endpoint. */
  tokenUrl: string
  /** The scenario's partners, as the sandbox started. */
  partners: SandboxPartner[]
  /**
   * A SandboxClient of a partner (the scenario's first by default), its Agent-Id the partner's first agent
   * (banking-agent-sandbox/client, docs/from-code.md).
   */
  client: (clientId?: string) => SandboxClient
  /** Stops it: requests in flight finish (for at most the shutdown timeout), then everything is closed. */
  stop: () => Promise<void>
}

/**
 * Where the library's defaults differ from the command's: a free port of loopback (a test suite's sandbox is no
 * service of the machine's), no overload guard (the event loop is the host's: a test that blocks it for a
 * second must not make the sandbox answer 503), and no management port (metrics are for operators: give
 * managementPort 0 for one on a free port).
 */
const GUEST_DEFAULTS: SandboxConfig = { port: 0, host: '127.0.0.1', maxEventLoopDelay: 60_000, managementPort: 'off' }

/** Lines the library drops: what pino writes when `log` is off. */
const NOWHERE: LogSink = { write: () => {} }

/**
 * Starts a sandbox in this process: on a free port of 127.0.0.1 unless `port`/`host` say otherwise, in memory,
 * the default scenario. Resolves once it is ready to serve (data loaded, listening).
 */
export async function startSandbox (options: SandboxOptions = {}): Promise<StartedSandbox> {
  const { log = false, ...keys } = options
  const config = loadConfig({ ...GUEST_DEFAULTS, logLevel: log === false ? 'silent' : 'info', ...keys })
  const publicUrlOf = keys.publicUrl === undefined ? (port: number) => `http://${urlHost(config.host)}:${port}` : undefined
  if (publicUrlOf !== undefined) config.publicUrl = publicUrlOf(config.port)
  // traces over the host's own tracer provider, when it registered one (docs/observability.md); no SDK of its own
  const fastify = await listenSandbox(config, { log: log === false ? NOWHERE : log === true ? undefined : log, publicUrlOf, tracing: await hostTracing() })
  const url = config.publicUrl!
  let stopped: Promise<void> | undefined
  const partners = [...fastify.world.partners.values()].flatMap((p) => {
    // (the scenario's published values: the sandbox keeps hashes only)
    const published = publishedCredentials(fastify.world, fastify.scenarios, p)
    return published === undefined ? [] : [{ clientId: p.id, clientSecret: published.secret, name: p.name, agents: [...p.agents.keys()], users: published.users }]
  })
  return {
    url,
    issuer: `${url}${REALM_PATH}`,
    tokenUrl: `${url}${REALM_PATH}${ROUTES.token}`,
    partners,
    client: (clientId) => {
      const partner = clientId === undefined ? partners[0] : partners.find((p) => p.clientId === clientId)
      if (partner === undefined) throw new TypeError(`client: no partner ${String(clientId)} in this sandbox's scenario`)
      return new SandboxClient({ baseUrl: url, clientId: partner.clientId, clientSecret: partner.clientSecret, agentId: partner.agents[0] })
    },
    stop: async () => { await (stopped ??= stopSandbox(fastify, config).then(() => {})) }
  }
}

/** The host of a URL for an interface to listen on: a wildcard is reached on loopback; IPv6 in brackets. */
function urlHost (host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

export type { ParityOptions, ParityResult } from './parity/index.js'
export type { ParityReport } from './parity/reports/model.js'

/**
 * The parity kit (docs/parity.md): the probe suite against `options.target` and against a reference sandbox
 * started here for the run, then every difference; reports in `options.out`. Resolves with exit code 0 (no
 * undeclared difference), 1 (differences) or 2 (could not run, `problem` says why).
 */
export async function runParity (options: ParityOptions): Promise<ParityResult> {
  return await runParityAgainst(options, () => startSandbox())
}
