import { createServer } from 'node:net'
import { AbstractStartedContainer, GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers'
import { SandboxClient } from '../client/index.js'
import { TOKEN_PATH } from '../client/tokens.js'
import { partnersOf, type ScenarioPartner } from './partners.js'

/** The port the image's sandbox listens on (its PORT). */
const PORT = 8080
/**
 * The image's management port (SANDBOX_MANAGEMENT_PORT: /metrics), mapped too, at random. The container is given
 * it explicitly, as the image's own environment gives it (the command alone would pick a free port). Podman lists
 * every port an image exposes among a container's bindings, published or not, and Testcontainers waits until each
 * of them is bound (testcontainers-node#1108): with 8080 alone a start failed after 10 s.
 */
const MANAGEMENT_PORT = 9000
/** A host port taken between the probe and the container's start is tried again with another, this often. */
const PORT_ATTEMPTS = 3

/** A free TCP port of this machine, as the kernel hands one out. */
async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

const portTaken = (err: unknown): boolean => /address already in use|port is already allocated/i.test(String((err as Error)?.message ?? err))

/**
 * The sandbox's image as a Testcontainers container: `await new SandboxContainer('banking-sandbox:latest').start()`.
 * Its configuration is the image's environment (README "Configuration"): withScenario, withSeed and
 * withAdminToken for the usual ones, withEnvironment for any other.
 *
 * The token issuer is the sandbox's PUBLIC_URL, fixed when it starts, and it must be the URL the tests use
 * (a token whose issuer the tests' own verifier does not expect is refused). A port that Docker maps at
 * random is known only once the container runs, too late; so start() takes a free port of this machine, binds
 * the container's port to it, and sets PUBLIC_URL to http://<the container runtime's host>:<that port> before
 * the container is created. Should another process take the port in the moment between, the container
 * cannot start: it is removed and started again on another port. With a PUBLIC_URL of your own
 * (withEnvironment, for a sandbox that other containers reach by a network alias), the port is mapped at
 * random and the issuer is yours.
 */
export class SandboxContainer extends GenericContainer {
  #adminToken: string | undefined
  #created: string | undefined

  constructor (image: string) {
    super(image)
    this.withEnvironment({ SANDBOX_MANAGEMENT_PORT: String(MANAGEMENT_PORT) })
    this.withWaitStrategy(Wait.forHttp('/ready', PORT).forStatusCode(200))
  }

  /** SANDBOX_SCENARIO: the scenario loaded at start (default, empty, edge-cases, large). */
  withScenario (scenario: string): this {
    return this.withEnvironment({ SANDBOX_SCENARIO: scenario })
  }

  /** SANDBOX_SEED: the seed of generated data (default the scenario's own). */
  withSeed (seed: number): this {
    return this.withEnvironment({ SANDBOX_SEED: String(seed) })
  }

  /** SANDBOX_ADMIN_TOKEN: the operator endpoints' token; the clients of getClient() carry it. */
  withAdminToken (token: string): this {
    this.#adminToken = token
    return this.withEnvironment({ SANDBOX_ADMIN_TOKEN: token })
  }

  /** Sets variables, replacing earlier values (GenericContainer's withEnvironment adds them to a list). */
  #setEnvironment (vars: Record<string, string>): void {
    this.environment = { ...this.environment, ...vars }
    this.createOpts.Env = Object.entries(this.environment).map(([key, value]) => `${key}=${value}`)
  }

  /** Exposes the sandbox's port, bound to `host` (or mapped at random), and the management port, instead of what was exposed before. */
  #expose (host: number | undefined): void {
    this.exposedPorts = []
    this.createOpts.ExposedPorts = {}
    this.hostConfig.PortBindings = {}
    this.withExposedPorts(host === undefined ? PORT : { container: PORT, host }, MANAGEMENT_PORT)
  }

  protected override async containerCreated (containerId: string): Promise<void> {
    this.#created = containerId
  }

  override async start (): Promise<StartedSandboxContainer> {
    const runtime = await getContainerRuntimeClient()
    const host = runtime.info.containerRuntime.host
    const ownUrl = this.environment.PUBLIC_URL
    for (let attempt = 1; ; attempt++) {
      const port = ownUrl === undefined ? await freePort() : undefined
      this.#expose(port)
      this.#setEnvironment({ PORT: String(PORT), ...(port === undefined ? {} : { PUBLIC_URL: `http://${host.includes(':') ? `[${host}]` : host}:${port}` }) })
      this.#created = undefined
      try {
        const started = await super.start()
        return new StartedSandboxContainer(started, this.environment, await partnersOf(started, this.environment.SANDBOX_SCENARIO ?? 'default'), this.#adminToken)
      } catch (err) {
        // a container that was created but did not come up (its port taken, /ready never answered): nothing
        // else removes it when Ryuk does not run (podman)
        if (this.#created !== undefined) await runtime.container.getById(this.#created).remove({ force: true, v: true }).catch(() => {})
        if (port === undefined || attempt === PORT_ATTEMPTS || !portTaken(err)) throw err
      }
    }
  }
}

/** A started sandbox container: its URLs, the partners of its scenario, and a SandboxClient for any of them. */
export class StartedSandboxContainer extends AbstractStartedContainer {
  readonly #baseUrl: string
  readonly #managementUrl: string
  readonly #publicUrl: string
  readonly #partners: ScenarioPartner[]
  readonly #adminToken: string | undefined

  constructor (started: StartedTestContainer, environment: Record<string, string>, partners: ScenarioPartner[], adminToken: string | undefined) {
    super(started)
    const host = started.getHost()
    const hostInUrl = host.includes(':') ? `[${host}]` : host
    this.#baseUrl = `http://${hostInUrl}:${started.getMappedPort(PORT)}`
    this.#managementUrl = `http://${hostInUrl}:${started.getMappedPort(MANAGEMENT_PORT)}`
    this.#publicUrl = (environment.PUBLIC_URL ?? this.#baseUrl).replace(/\/+$/, '')
    this.#partners = partners
    this.#adminToken = adminToken
  }

  /** The URL the tests reach the sandbox at: http://<host>:<port> (the API is under /api). */
  getBaseUrl (): string {
    return this.#baseUrl
  }

  /** The tokens' issuer (iss): {PUBLIC_URL}/auth/realms/sandbox, the base URL's unless you set PUBLIC_URL. */
  getIssuerUrl (): string {
    return `${this.#publicUrl}/auth/realms/sandbox`
  }

  /** The management interface (GET /metrics, Prometheus), on the image's management port 9000. */
  getManagementUrl (): string {
    return this.#managementUrl
  }

  /** The token endpoint, on the base URL. */
  getTokenUrl (): string {
    return `${this.#baseUrl}${TOKEN_PATH}`
  }

  /** The partners of the container's scenario: client id, secret, agents and test users. */
  getPartners (): ScenarioPartner[] {
    return this.#partners.map((p) => ({ ...p, agents: [...p.agents], users: p.users.map((u) => ({ ...u })) }))
  }

  /**
   * A SandboxClient of a partner (the scenario's first by default: partner-a), its Agent-Id the partner's first
   * agent, with the admin token when the container has one. A partner the scenario does not list (one you
   * registered) needs its secret.
   */
  getClient (clientId?: string, clientSecret?: string): SandboxClient {
    const partner = clientId === undefined ? this.#partners[0] : this.#partners.find((p) => p.clientId === clientId)
    const secret = clientSecret ?? partner?.clientSecret
    if (secret === undefined) throw new TypeError(`getClient: ${clientId ?? 'the first partner'} is no partner of the container's scenario: give its secret`)
    return new SandboxClient({ baseUrl: this.#baseUrl, clientId: clientId ?? partner!.clientId, clientSecret: secret, agentId: partner?.agents[0], adminToken: this.#adminToken })
  }
}
