import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { decodeJwt } from 'jose'
import { unwrap } from '../src/client/index.js'
import { ROOT } from './built.js'

/*
 * banking-agent-sandbox/testcontainers against the project's own image, with podman standing in for Docker:
 * `podman system service` serves the Docker API on a socket of its own, which testcontainers-node takes from
 * DOCKER_HOST. The image is SANDBOX_IMAGE when set (.ci/run hands over the one container-check built), else
 * built here from the Dockerfile. Without podman the test is skipped, unless SANDBOX_CONTAINER_TESTS is
 * `required` (CI, once: not per Node line, where it is `skip`).
 */

const mode = process.env.SANDBOX_CONTAINER_TESTS
// container-check's storage flags: the service sees the images (and the stand-in base image) that tool builds
const PODMAN = ['--runtime', 'runc', '--storage-driver=vfs', '--cgroup-manager=cgroupfs']
const havePodman = spawnSync('podman', ['--version']).status === 0
const ADMIN_TOKEN = 'an-operator-token-of-the-container-test'

if (mode === 'skip' || (!havePodman && mode !== 'required')) {
  t.comment(mode === 'skip' ? 'SANDBOX_CONTAINER_TESTS=skip' : 'podman is not installed: the container module is not tested (SANDBOX_CONTAINER_TESTS=required makes this a failure)')
  t.pass('skipped')
} else {
  // building the image takes minutes (its npm ci and build) on top of the containers
  t.setTimeout(900_000)
  t.test('SandboxContainer starts the image, hands out its URLs and a client, and leaves nothing when stopped', async (t) => {
    t.ok(havePodman, 'podman is installed')
    const given = process.env.SANDBOX_IMAGE
    const image = given !== undefined && given !== '' ? given : buildImage(t)
    await dockerApi(t)
    const { SandboxContainer } = await import('../src/testcontainers/index.js')
    const { getContainerRuntimeClient } = await import('testcontainers')

    const container = await new SandboxContainer(image).withScenario('default').withSeed(4100).withAdminToken(ADMIN_TOKEN).start()
    let stopped = false
    t.teardown(async () => { if (!stopped) await container.stop() })
    const base = container.getBaseUrl()
    t.match(base, /^http:\/\/127\.0\.0\.1:\d+$/)
    t.equal(container.getIssuerUrl(), `${base}/auth/realms/sandbox`)
    t.equal(container.getTokenUrl(), `${base}/auth/realms/sandbox/protocol/openid-connect/token`)
    t.match(await (await fetch(`${container.getManagementUrl()}/metrics`)).text(), /^# HELP /m, 'the management port: metrics')
    t.match(container.getPartners(), [{ clientId: 'partner-a', clientSecret: 'partner-a-secret', agents: ['1001', '1002'], users: [{ username: 'alice' }] }, { clientId: 'partner-b' }])

    const client = container.getClient()
    t.equal(client.clientId, 'partner-a')
    const token = await client.accessToken()
    t.equal(decodeJwt(token).iss, container.getIssuerUrl(), "the token's issuer is the URL the tests use")
    const customer = unwrap(await client.api.GET('/api/customers/{customerId}', { params: { path: { customerId: '1001100000001' } } }))
    t.equal(customer.customerId, '1001100000001', 'an API call with the Agent-Id of the partner')
    t.equal((await client.resetPartner({ scenario: 'empty' })).scenario, 'empty', 'a reset')
    t.equal((await container.getClient('partner-b').getSandboxState()).partnerId, 'partner-b')
    t.ok((await client.listPartners()).partners.length >= 2, 'the admin token reaches the clients')

    // what the image must carry beside the bundle (scripts/runtime-files.mjs): the files read by path and the
    // packages loaded at first use
    for (const [path, text] of [['/api/docs/apidocs/static/swagger-ui.css', /swagger-ui/], ['/console/static/alpine.js', /Alpine/], ['/console/static/pico.css', /Pico/], ['/api/docs/postman.json', /"item"/]] as const) {
      const res = await fetch(`${base}${path}`)
      t.equal(res.status, 200, path)
      t.match(await res.text(), text, path)
    }

    const id = container.getId()
    await container.stop()
    stopped = true
    const runtime = await getContainerRuntimeClient()
    await t.rejects(runtime.container.inspect(runtime.container.getById(id)), 'the container is gone')
    await t.rejects(fetch(`${base}/health`), 'nothing answers on its port')

    // a sandbox that cannot start (no such scenario: it exits with code 2): start() fails and removes it
    const ours = (): string[] => spawnSync('podman', [...PODMAN, 'ps', '-aq', '--filter', `ancestor=${image}`], { encoding: 'utf8' }).stdout.split('\n').filter((id) => id !== '')
    const before = ours()
    await t.rejects(new SandboxContainer(image).withScenario('no-such-scenario').withStartupTimeout(30_000).start(), 'a start that fails')
    t.same(ours(), before, 'leaves no container behind')
  })
}

/** Builds the image from the Dockerfile as container-check does; removed when the test ends. */
function buildImage (t: Test): string {
  const tag = `localhost/banking-agent-sandbox:test-${process.pid}`
  const build = spawnSync('podman', [...PODMAN, 'build', '--pull=never', '--network=host', '--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096', '-t', tag, '.'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (build.status !== 0) {
    const base = /node:\d+-bookworm-slim/.test(build.stderr + build.stdout) && /(not found|does not exist|unknown)/i.test(build.stderr) ? ' (the stand-in base image is missing: run ../shared/tools/container-check once, which builds it)' : ''
    throw new Error(`podman build failed${base}:\n${(build.stdout + build.stderr).slice(-3000)}`)
  }
  t.teardown(() => { spawnSync('podman', [...PODMAN, 'rmi', '-f', tag]) })
  return tag
}

/**
 * The Docker API of a podman service of its own, for this test: the socket in DOCKER_HOST, no Ryuk (podman's
 * service cannot run it; the test stops what it starts), containers reached on 127.0.0.1 (else testcontainers
 * picks podman's bridge address), and the explicit limits without which runc here refuses to start a container.
 */
async function dockerApi (t: Test): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-podman-'))
  const socket = join(dir, 'docker.sock')
  writeFileSync(join(dir, 'containers.conf'), '[containers]\ndefault_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]\n')
  const service = spawn('podman', [...PODMAN, 'system', 'service', '--time=0', `unix://${socket}`], {
    env: { ...process.env, CONTAINERS_CONF: join(dir, 'containers.conf') },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  service.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.teardown(async () => {
    service.kill('SIGTERM')
    if (service.exitCode === null) await new Promise((resolve) => service.once('exit', resolve))
    rmSync(dir, { recursive: true, force: true })
  })
  for (let i = 0; !existsSync(socket); i++) {
    if (service.exitCode !== null || i > 500) throw new Error(`podman system service did not start: ${stderr}`)
    await sleep(20)
  }
  Object.assign(process.env, { DOCKER_HOST: `unix://${socket}`, TESTCONTAINERS_RYUK_DISABLED: 'true', TESTCONTAINERS_HOST_OVERRIDE: '127.0.0.1' })
}
