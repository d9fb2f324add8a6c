import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, posix } from 'node:path'
import { OPTIONS, fromEnv, loadConfig } from '../src/config.js'
import { ROOT } from './built.js'
import { DEPLOY, imageManagementPort, loadSchemas, yamlDocuments } from './deploy-files.js'
import { build } from './helper.js'
import { replicaSkip, startSecureRedis } from './replicas/harness.js'

/*
 * deploy/ (issue 28: Compose and Kubernetes for several replicas on Redis), checked as far as a machine
 * without Docker or Kubernetes can: every YAML document against the schema of its kind, then what no schema
 * knows: variables the sandbox reads, probe paths it serves, ports, names that refer to one another, the
 * stop's timing, the HAProxy config (haproxy -c) and the Redis config (redis-server reads it: AOF on).
 * What the replicas do together is tested by test/replicas/, on processes.
 */

const docs = yamlDocuments()
const schemas = loadSchemas()
const ENV = new Set(OPTIONS.map((o) => o.env))
const DEFAULT_PORT = OPTIONS.find((o) => o.env === 'PORT')!.default as number
const shutdownDefault = OPTIONS.find((o) => o.env === 'SANDBOX_SHUTDOWN_TIMEOUT')!.default as number
const isKustomization = (file: string): boolean => basename(file) === 'kustomization.yaml'

const only = (file: string): any => {
  const found = docs.filter((d) => d.file === file)
  if (found.length !== 1) throw new Error(`deploy/${file}: expected one YAML document, found ${found.length}`)
  return found[0].value
}
const compose = only('compose/compose.yaml')
const manifests = docs.filter((d) => d.file.startsWith('kubernetes/') && !isKustomization(d.file)).map((d) => d.value)
const manifest = (kind: string, name: string): any => {
  const found = manifests.find((m) => m.kind === kind && m.metadata?.name === name)
  if (found === undefined) throw new Error(`no ${kind} ${name} under deploy/kubernetes`)
  return found
}
const kustomization = only('kubernetes/kustomization.yaml')
const redisKustomization = only('kubernetes/redis/kustomization.yaml')

/** the default of a Compose interpolation, "${NAME:-default}" */
function composeDefault (text: string): string {
  const m = /^\$\{[A-Z_]+:-([^}]*)\}(.*)$/.exec(text)
  if (m === null) throw new Error(`not a variable with a default: ${text}`)
  return m[1] + m[2]
}

function gitIgnored (path: string): boolean {
  return spawnSync('git', ['check-ignore', '-q', path], { cwd: ROOT }).status === 0
}

const matches = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v)

t.test('every YAML document under deploy/ parses and matches the schema of its kind', async (t) => {
  t.ok(docs.length >= 10, `${docs.length} documents`)
  for (const d of docs) {
    let check
    // Prometheus' own files: promtool checks them (test/observability/rules.test.ts)
    if (d.file.startsWith('prometheus/') || d.file === 'compose/prometheus.yml') continue
    if (d.file === 'compose/compose.yaml') check = schemas.compose
    else if (isKustomization(d.file)) check = schemas.kustomization
    else if (d.file.startsWith('kubernetes/')) {
      check = schemas.kubernetes(d.value.apiVersion, d.value.kind)
      if (check === undefined) {
        t.fail(`${d.name}: no schema of ${String(d.value.apiVersion)} ${String(d.value.kind)} in test/fixtures/schemas/kubernetes.json (run scripts/vendor-kubernetes-schemas.mjs)`)
        continue
      }
    } else {
      t.fail(`${d.name}: no schema for this file (deploy/compose/compose.yaml, deploy/kubernetes/**)`)
      continue
    }
    t.same(check(d.value), [], `${d.name}${d.value.kind === undefined ? '' : ` (${String(d.value.kind)})`}`)
  }
})

t.test('the schema checks are strict: a misspelt or mistyped field fails', async (t) => {
  const copy = (value: unknown): any => structuredClone(value)
  const c = copy(compose)
  c.services['sandbox-1'].healthchek = c.services['sandbox-1'].healthcheck
  t.match(schemas.compose(c), [/healthchek/], 'Compose: an unknown service field')

  const deployment = copy(manifest('Deployment', 'sandbox'))
  const container = deployment.spec.template.spec.containers[0]
  container.readinessprobe = container.readinessProbe
  t.match(schemas.kubernetes('apps/v1', 'Deployment')!(deployment), [/unknown field "readinessprobe"/], 'Kubernetes: an unknown field deep in a pod template')
  const typed = copy(manifest('Deployment', 'sandbox'))
  typed.spec.replicas = 'three'
  t.match(schemas.kubernetes('apps/v1', 'Deployment')!(typed), [/replicas: must be integer/], 'Kubernetes: a field of the wrong type')
  const pdb = copy(manifest('PodDisruptionBudget', 'sandbox'))
  pdb.spec.maxUnavailable = '34%'
  t.same(schemas.kubernetes('policy/v1', 'PodDisruptionBudget')!(pdb), [], 'Kubernetes: an IntOrString takes a string as the API server does')

  const monitor = copy(manifest('ServiceMonitor', 'sandbox'))
  monitor.spec.endpoints[0].intervall = '15s'
  t.match(schemas.kubernetes('monitoring.coreos.com/v1', 'ServiceMonitor')!(monitor), [/unknown field "intervall"/], 'a ServiceMonitor: an unknown field of an endpoint')

  const k = copy(kustomization)
  k.resource = k.resources
  t.match(schemas.kustomization(k), [/unknown field "resource"/], 'Kustomization: an unknown field')
})

t.test('Compose: three replicas of the image, one Redis, one load balancer', async (t) => {
  const { services } = compose
  const replicas = Object.keys(services).filter((name) => services[name].image === services['sandbox-1'].image)
  t.same(replicas, ['sandbox-1', 'sandbox-2', 'sandbox-3'], 'three replicas of one image')
  const sandbox = services['sandbox-1']
  for (const name of replicas) t.same(services[name], sandbox, `${name} is configured as sandbox-1 (same PUBLIC_URL, Redis, key)`)

  t.ok(existsSync(join(DEPLOY, 'compose', sandbox.build.context, 'Dockerfile')), 'built from the repository\'s Dockerfile')
  for (const env of Object.keys(sandbox.environment)) t.ok(ENV.has(env), `${env} is an option of src/config.ts`)
  t.equal(sandbox.entrypoint, undefined, 'the image\'s own command runs')
  t.equal(sandbox.environment.SANDBOX_SIGNING_KEYS, `/run/secrets/${sandbox.secrets[0] as string}`, 'SANDBOX_SIGNING_KEYS names the file of the secret the replicas are given')
  const secretFile = posix.join('compose', compose.secrets[sandbox.secrets[0]].file)
  t.ok(gitIgnored(join(DEPLOY, secretFile)), `the signing key deploy/${secretFile} cannot be committed`)
  t.ok(!existsSync(join(DEPLOY, secretFile)), 'and no key is in the repository')
  t.match(readFileSync(join(ROOT, '.dockerignore'), 'utf8'), /^deploy$/m, 'nor sent to the Docker daemon with the build context')

  t.equal(composeDefault(sandbox.environment.PUBLIC_URL), `http://localhost:${composeDefault(services.haproxy.ports[0].split(':8080')[0])}`,
    'PUBLIC_URL is the load balancer\'s published address')
  // the password comes from .env (git-ignored), and Compose refuses to start without it
  t.match(sandbox.environment.SANDBOX_REDIS_URL, /:\$\{SANDBOX_REDIS_PASSWORD:\?[^}]+\}@/, 'the Redis password from .env, required')
  const redisUrl = new URL(sandbox.environment.SANDBOX_REDIS_URL.replace(/\$\{[^}]+\}/, 'password'))
  t.equal(redisUrl.protocol, 'rediss:', 'over TLS')
  t.equal(redisUrl.username, aclUser(), 'as the ACL user of users.acl.example')
  t.equal(redisUrl.hostname, 'redis', 'SANDBOX_REDIS_URL names the redis service')
  t.equal(redisUrl.port, redisPort(), 'on the port of redis.conf')
  t.ok(gitIgnored(join(DEPLOY, 'compose', '.env')), 'deploy/compose/.env (the password) cannot be committed')
  // Redis reads its certificate, key, CA and users where redis.conf says; the replicas get the CA
  const redisSecrets = Object.fromEntries(services.redis.secrets.map((s: any) => [s.target, s.source]))
  for (const path of redisConfPaths()) {
    t.ok(redisSecrets[path] in compose.secrets, `Redis is given ${path} (a secret)`)
    const file = posix.join('compose', compose.secrets[redisSecrets[path]].file)
    t.ok(gitIgnored(join(DEPLOY, file)) && !existsSync(join(DEPLOY, file)), `deploy/${file} is made by the operator, never committed`)
  }
  t.equal(sandbox.environment.SANDBOX_REDIS_CA, `/run/secrets/${redisSecrets['/run/secrets/redis-tls/ca.crt'] as string}`, 'the replicas check Redis\'s certificate against the CA that signed it')
  t.ok(sandbox.secrets.includes(redisSecrets['/run/secrets/redis-tls/ca.crt']), 'which they are given')
  t.same(sandbox.depends_on, { redis: { condition: 'service_healthy' } }, 'replicas start once Redis is healthy')
  t.ok(services.redis.healthcheck.test.join(' ').includes('--tls --cacert /run/secrets/redis-tls/ca.crt ping'), 'Redis has a healthcheck, over TLS')
  t.ok(sandbox.healthcheck.test.join(' ').includes("/ready'"), 'replicas are healthy when /ready says so')
  for (const name of replicas) t.same(services.haproxy.depends_on[name], { condition: 'service_healthy' }, `the load balancer starts after ${name} is healthy`)
  const stopMs = Number(/^(\d+)s$/.exec(sandbox.stop_grace_period)![1]) * 1000
  const composeDrainMs = Number(sandbox.environment.SANDBOX_SHUTDOWN_DRAIN ?? 0)
  t.ok(composeDrainMs >= 2 * haproxyCheckMs(), 'a stopping replica serves on while two of HAProxy\'s health checks see /ready fail')
  t.ok(stopMs > composeDrainMs + Number(sandbox.environment.SANDBOX_SHUTDOWN_TIMEOUT ?? shutdownDefault), 'the stop grace period outlasts SANDBOX_SHUTDOWN_DRAIN and SANDBOX_SHUTDOWN_TIMEOUT together')
  t.equal(sandbox.read_only, true, 'a read-only container')

  const [server, config, dirFlag, dir] = services.redis.command
  t.equal(server, 'valkey-server', 'Valkey')
  t.ok(services.redis.volumes.includes(`../kubernetes/redis/redis.conf:${config as string}:ro`), 'Redis reads deploy/kubernetes/redis/redis.conf')
  t.equal(dirFlag, '--dir', 'and is told where to keep its AOF')
  const dataVolume = services.redis.volumes.map((v: string) => v.split(':')).find((v: string[]) => v[1] === dir)
  t.ok(dataVolume !== undefined && dataVolume[0] in compose.volumes, 'the AOF is kept in a named volume')

  const haproxy = readFileSync(join(DEPLOY, 'compose', 'haproxy.cfg'), 'utf8')
  t.ok(services.haproxy.volumes.includes('./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro'), 'HAProxy reads deploy/compose/haproxy.cfg')
  const servers = [...haproxy.matchAll(/^\s*server (\S+) (\S+):(\d+)(.*)$/gm)]
  const active = servers.filter((s) => !/\bbackup\b/.test(s[4]))
  const backups = servers.filter((s) => /\bbackup\b/.test(s[4]))
  t.same(active.map((s) => s[2]), replicas, 'HAProxy balances the three replicas')
  t.same(servers.map((s) => Number(s[3])), servers.map(() => Number(sandbox.environment.PORT ?? DEFAULT_PORT)), 'on the port they listen on')
  t.same(backups.map((s) => s[2]), replicas, 'and has them again as backups, for when none reaches Redis')
  t.ok(backups.every((s) => /\bno-check\b/.test(s[4])), 'unchecked: they answer the sandbox\'s own 503 then')
  t.match(haproxy, /^\s*balance roundrobin$/m, 'round robin')
  t.match(haproxy, /^\s*option httpchk GET \/ready$/m, 'health checks on /ready')
  t.match(haproxy, /^\s*bind :8080$/m, 'listening on the port Compose publishes')
})

/** How often HAProxy's health checks ask /ready (deploy/compose/haproxy.cfg default-server inter), in ms. */
function haproxyCheckMs (): number {
  const m = /default-server[^\n]*\binter (\d+)(ms|s)\b/.exec(readFileSync(join(DEPLOY, 'compose', 'haproxy.cfg'), 'utf8'))
  if (m === null) throw new Error('deploy/compose/haproxy.cfg has no default-server inter')
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1)
}

const REDIS_CONF = readFileSync(join(DEPLOY, 'kubernetes', 'redis', 'redis.conf'), 'utf8')

/** redis.conf's TLS port (its plain port is off). */
function redisPort (): string {
  return /^tls-port (\d+)$/m.exec(REDIS_CONF)![1]
}

/** The files redis.conf reads: certificate, key, CA, ACL users (Secrets of each deployment). */
function redisConfPaths (): string[] {
  return [...REDIS_CONF.matchAll(/^(?:tls-cert-file|tls-key-file|tls-ca-cert-file|aclfile) (\S+)$/gm)].map((m) => m[1])
}

/** The sandbox's user in users.acl.example. */
function aclUser (): string {
  return /^user (?!default)(\S+) on #PASSWORD_SHA256 /m.exec(readFileSync(join(DEPLOY, 'kubernetes', 'redis', 'users.acl.example'), 'utf8'))![1]
}

t.test('redis.conf: TLS only, protected mode, the ACL file; the default user is off', async (t) => {
  t.match(REDIS_CONF, /^port 0$/m, 'no plain port')
  t.match(REDIS_CONF, /^protected-mode yes$/m, 'protected mode on')
  t.match(REDIS_CONF, /^tls-auth-clients no$/m, 'clients sign in with a password, not a certificate')
  t.equal(redisConfPaths().length, 4, 'certificate, key, CA and ACL file')
  t.notMatch(REDIS_CONF, /^requirepass /m, 'no password in the file (the ACL file, a Secret, holds its hash)')
  const acl = readFileSync(join(DEPLOY, 'kubernetes', 'redis', 'users.acl.example'), 'utf8')
  t.match(acl, /^user default off$/m, 'the default user is off')
  t.match(acl, / ~sbx:\* /, 'the sandbox\'s user reaches the keys of its prefix only')
  t.equal(OPTIONS.find((o) => o.env === 'SANDBOX_REDIS_PREFIX')!.default, 'sbx', 'the default SANDBOX_REDIS_PREFIX')
  t.match(acl, / -@dangerous /, 'and no dangerous command')
})

t.test('Kubernetes: the kustomizations list every manifest, and their generated secrets stay out of git', async (t) => {
  const reached = new Set<string>()
  const walk = (dir: string, k: any): void => {
    for (const resource of k.resources ?? []) {
      const path = posix.join(dir, resource)
      if (existsSync(join(DEPLOY, path)) && statSync(join(DEPLOY, path)).isDirectory()) {
        walk(path, only(posix.join(path, 'kustomization.yaml')))
      } else {
        t.ok(existsSync(join(DEPLOY, path)), `deploy/${path} exists`)
        reached.add(path)
      }
    }
    for (const generator of [...(k.secretGenerator ?? []), ...(k.configMapGenerator ?? [])]) {
      // files: [path] or [key=path]; envs: [path]
      for (const file of [...(generator.files ?? []), ...(generator.envs ?? [])].map((f: string) => f.split('=').at(-1)!)) {
        const path = join(DEPLOY, dir, file)
        if (k.secretGenerator?.includes(generator) === true) {
          t.ok(gitIgnored(path), `the secret deploy/${posix.join(dir, file)} cannot be committed`)
          t.ok(!existsSync(path), `deploy/${posix.join(dir, file)} is not in the repository`)
        } else {
          t.ok(existsSync(path), `deploy/${posix.join(dir, file)} exists`)
        }
      }
    }
  }
  walk('kubernetes', kustomization)
  // for a cluster with the Prometheus Operator, applied on its own (its kinds need the operator's CRDs)
  t.notOk(kustomization.resources.includes('monitoring'), 'monitoring/ is not applied with the sandbox: a cluster without the operator would refuse it')
  walk('kubernetes/monitoring', only('kubernetes/monitoring/kustomization.yaml'))
  const files = [...new Set(docs.filter((d) => d.file.startsWith('kubernetes/') && !isKustomization(d.file)).map((d) => d.file))]
  t.same(files.filter((f) => !reached.has(f)), [], 'every manifest is applied by `kubectl apply -k deploy/kubernetes` or, with the Prometheus Operator, `-k deploy/kubernetes/monitoring`')
})

t.test('Kubernetes: the sandbox\'s Deployment, Service and PodDisruptionBudget', async (t) => {
  const deployment = manifest('Deployment', 'sandbox')
  const pod = deployment.spec.template
  const labels = pod.metadata.labels
  const [container] = pod.spec.containers
  t.equal(deployment.spec.replicas, 3, 'three replicas')
  t.ok(matches(deployment.spec.selector.matchLabels, labels), 'the Deployment selects its pods')
  t.same(deployment.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } }, 'a rollout never goes below three ready replicas')
  t.equal(container.image, kustomization.images[0].name, 'the image the kustomization sets')

  const ports = new Map<string, number>(container.ports.map((p: any) => [p.name, p.containerPort]))
  t.equal(ports.get('http'), DEFAULT_PORT, 'the container port is the port the sandbox listens on (PORT)')
  t.equal(container.readinessProbe.httpGet.path, '/ready', 'readiness asks /ready')
  t.equal(container.livenessProbe.httpGet.path, '/health', 'liveness asks /health (not Redis: an outage must not restart every replica)')
  for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) t.ok(ports.has(container[probe].httpGet.port), `the ${probe} asks a port of the container`)

  const configLiterals = (name: string): string[] => kustomization.configMapGenerator.find((g: any) => g.name === name).literals.map((l: string) => l.split('=')[0])
  const env: string[] = [...container.env.map((e: any) => e.name), ...container.envFrom.flatMap((e: any) => configLiterals(e.configMapRef.name))]
  for (const name of env) t.ok(ENV.has(name), `${name} is an option of src/config.ts`)
  t.ok(env.includes('PUBLIC_URL') && env.includes('SANDBOX_REDIS_URL') && env.includes('SANDBOX_SIGNING_KEYS'), 'every replica gets the public URL, Redis and the keys')
  for (const e of container.env.filter((e: any) => e.valueFrom?.secretKeyRef !== undefined)) {
    const { name, key } = e.valueFrom.secretKeyRef
    const generator = kustomization.secretGenerator.find((g: any) => g.name === name)
    // an env file's keys: those of its committed example (redis.env.example)
    const envKeys = (generator?.envs ?? []).flatMap((f: string) => [...readFileSync(join(DEPLOY, 'kubernetes', `${f}.example`), 'utf8').matchAll(/^([A-Za-z_]\w*)=/gm)].map((m) => m[1]))
    const keys = [...(generator?.files ?? []).map((f: string) => f.includes('=') ? f.split('=')[0] : basename(f)), ...(generator?.literals ?? []).map((l: string) => l.split('=')[0]), ...envKeys]
    t.ok(keys.includes(key), `${e.name as string} comes from ${name as string}/${key as string}, which the kustomization generates`)
  }

  const shutdownMs = Number(container.env.find((e: any) => e.name === 'SANDBOX_SHUTDOWN_TIMEOUT')?.value ?? shutdownDefault)
  const drainMs = Number(container.env.find((e: any) => e.name === 'SANDBOX_SHUTDOWN_DRAIN')?.value ?? 0)
  t.ok(drainMs >= 5000, 'a stopping pod serves on while the endpoints forget it (SANDBOX_SHUTDOWN_DRAIN)')
  t.ok(pod.spec.terminationGracePeriodSeconds * 1000 >= drainMs + shutdownMs + 5000,
    `the grace period (${pod.spec.terminationGracePeriodSeconds as number} s) covers SANDBOX_SHUTDOWN_DRAIN and SANDBOX_SHUTDOWN_TIMEOUT, with 5 s to spare`)

  const dockerfileUser = /^USER (\S+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))![1]
  t.equal(dockerfileUser, 'node', 'the image runs as node (uid 1000 in the Node images)')
  t.match(pod.spec.securityContext, { runAsNonRoot: true, runAsUser: 1000 }, 'the pod runs as that user, by number')
  t.match(container.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } }, 'no privilege, read-only')

  const service = manifest('Service', 'sandbox')
  t.ok(matches(service.spec.selector, labels), 'the Service selects the sandbox\'s pods')
  t.ok(ports.has(service.spec.ports[0].targetPort), 'on a port of the container')
  const pdb = manifest('PodDisruptionBudget', 'sandbox')
  t.ok(matches(pdb.spec.selector.matchLabels, labels), 'the PodDisruptionBudget covers the sandbox\'s pods')
  t.ok(pdb.spec.maxUnavailable === 1 || pdb.spec.minAvailable === 2, 'and lets one go at a time')
})

t.test('the image fixes the management port it exposes; the command alone picks a free one', async (t) => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
  t.equal(imageManagementPort(), 9000, "Keycloak's management port, where deploy/'s Prometheus scrapes")
  t.ok(dockerfile.split('\n').includes(`EXPOSE ${imageManagementPort()}`), 'exposed')
  t.equal(OPTIONS.find((o) => o.env === 'SANDBOX_MANAGEMENT_PORT')!.default, 0, 'the command\'s default: several sandboxes on one machine')
})

t.test('Kubernetes: the management port on the Service, and a ServiceMonitor that scrapes it', async (t) => {
  const deployment = manifest('Deployment', 'sandbox')
  const [container] = deployment.spec.template.spec.containers
  const managementPort = imageManagementPort()
  const metricsPort = container.ports.find((p: any) => p.name === 'metrics')
  t.equal(metricsPort?.containerPort, managementPort, 'the container\'s metrics port is the image\'s management port')
  t.equal(container.env.find((e: any) => e.name === 'SANDBOX_MANAGEMENT_PORT')?.value, String(managementPort), 'which the Deployment sets too')
  const service = manifest('Service', 'sandbox')
  const servicePort = service.spec.ports.find((p: any) => p.name === 'metrics')
  t.equal(servicePort?.targetPort, 'metrics', 'the Service has a metrics port onto it')
  t.equal(service.spec.ports.find((p: any) => p.name === 'http')?.targetPort, 'http', 'and its http port stays the partners\' port')

  const monitor = manifest('ServiceMonitor', 'sandbox')
  t.ok(matches(monitor.spec.selector.matchLabels, service.metadata.labels), 'the ServiceMonitor selects the Service')
  t.same(monitor.spec.endpoints.map((e: any) => [e.port, e.path]), [['metrics', '/metrics']], 'and scrapes its metrics port\'s /metrics')
  t.equal(service.metadata.labels[monitor.spec.jobLabel], 'banking-agent-sandbox', 'as job banking-agent-sandbox, the job the alert on up names')
  const rule = manifest('PrometheusRule', 'sandbox')
  t.ok(rule.spec.groups.length >= 2, 'the recording rules and alerts as a PrometheusRule (test/observability/rules.test.ts checks they are deploy/prometheus/\'s)')
})

t.test('Kubernetes: the Redis the replicas are pointed at', async (t) => {
  const redisSecret = kustomization.secretGenerator.find((g: any) => g.name === 'sandbox-redis')
  t.same(redisSecret.envs, ['redis.env'], 'the URL with its password from redis.env')
  t.ok(gitIgnored(join(DEPLOY, 'kubernetes', 'redis.env')), 'which cannot be committed')
  const url = new URL(/^url=(.+)$/m.exec(readFileSync(join(DEPLOY, 'kubernetes', 'redis.env.example'), 'utf8'))![1])
  t.equal(url.protocol, 'rediss:', 'over TLS')
  t.equal(url.username, aclUser(), 'as the ACL user of users.acl.example')
  const service = manifest('Service', url.hostname)
  t.equal(String(service.spec.ports[0].port), url.port, 'SANDBOX_REDIS_URL names the redis Service and its port')
  t.equal(url.port, redisPort(), 'the port of redis.conf')
  const statefulSet = manifest('StatefulSet', 'redis')
  const pod = statefulSet.spec.template
  const [container] = pod.spec.containers
  t.ok(matches(service.spec.selector, pod.metadata.labels), 'the Service selects the Redis pod')
  t.equal(statefulSet.spec.serviceName, service.metadata.name, 'and governs the StatefulSet')
  t.equal(container.ports.find((p: any) => p.name === service.spec.ports[0].targetPort)?.containerPort, Number(url.port), 'on the container\'s port')

  const [server, config, dirFlag, dir] = container.command
  t.equal(server, 'valkey-server', 'Valkey')
  const configMount = container.volumeMounts.find((m: any) => m.mountPath === dirname(config))
  const configVolume = pod.spec.volumes.find((v: any) => v.name === configMount?.name)
  const generator = redisKustomization.configMapGenerator.find((g: any) => g.name === configVolume?.configMap?.name)
  t.ok(generator?.files.includes(basename(config)), 'Redis reads deploy/kubernetes/redis/redis.conf (a generated ConfigMap)')
  t.equal(dirFlag, '--dir', 'and is told where to keep its AOF')
  const dataMount = container.volumeMounts.find((m: any) => m.mountPath === dir)
  t.ok(statefulSet.spec.volumeClaimTemplates.some((c: any) => c.metadata.name === dataMount?.name), 'the AOF is kept on a persistent volume')

  // the certificate, key, CA and ACL users where redis.conf reads them, from generated Secrets of files never committed
  const secretsOf = redisKustomization.secretGenerator as Array<{ name: string, files: string[] }>
  for (const path of redisConfPaths()) {
    const mount = container.volumeMounts.find((m: any) => m.mountPath === dirname(path))
    const volume = pod.spec.volumes.find((v: any) => v.name === mount?.name)
    const secret = secretsOf.find((g) => g.name === volume?.secret?.secretName)
    t.ok(secret?.files.includes(basename(path)), `Redis is given ${path} (Secret ${String(secret?.name)})`)
    t.ok(gitIgnored(join(DEPLOY, 'kubernetes', 'redis', basename(path))), `deploy/kubernetes/redis/${basename(path)} cannot be committed`)
    t.equal(volume.secret.defaultMode, 0o440, 'readable by Redis\'s group (fsGroup) only')
  }
  t.ok(container.readinessProbe.exec.command.join(' ').includes('--tls --cacert /run/secrets/redis-tls/ca.crt ping'), 'readiness over TLS')
  // the replicas check the certificate against the CA (SANDBOX_REDIS_CA), from the Secret sandbox-redis
  const sandboxPod = manifest('Deployment', 'sandbox').spec.template.spec
  const sandboxContainer = sandboxPod.containers[0]
  const caPath = sandboxContainer.env.find((e: any) => e.name === 'SANDBOX_REDIS_CA')?.value as string
  const caMount = sandboxContainer.volumeMounts?.find((m: any) => m.mountPath === dirname(caPath))
  const caVolume = sandboxPod.volumes?.find((v: any) => v.name === caMount?.name)
  t.equal(caVolume?.secret?.secretName, 'sandbox-redis', 'SANDBOX_REDIS_CA is a file of the Secret sandbox-redis')
  t.ok(caVolume.secret.items.some((i: any) => i.path === basename(caPath) && redisSecret.files.includes(`${i.key as string}=redis/ca.crt`)), 'the CA that signed Redis\'s certificate')

  const policy = manifest('NetworkPolicy', 'redis')
  t.ok(matches(policy.spec.podSelector.matchLabels, pod.metadata.labels), 'the NetworkPolicy guards the Redis pod')
  const sandboxLabels = manifest('Deployment', 'sandbox').spec.template.metadata.labels
  t.ok(matches(policy.spec.ingress[0].from[0].podSelector.matchLabels, sandboxLabels), 'and lets the sandbox\'s pods in')
  t.ok(container.ports.some((p: any) => p.name === policy.spec.ingress[0].ports[0].port), 'on the Redis port')
})

t.test('Kubernetes: default deny; the API port from the ingress controller, the management port from Prometheus, out to Redis and DNS only', async (t) => {
  t.ok(kustomization.resources.includes('networkpolicy.yaml'), 'applied with the rest')
  const deny = manifest('NetworkPolicy', 'default-deny')
  t.same(deny.spec, { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }, 'every pod of the namespace: nothing in or out unless allowed')
  const sandbox = manifest('Deployment', 'sandbox').spec.template
  const ports = Object.fromEntries(sandbox.spec.containers[0].ports.map((p: any) => [p.name, p.containerPort]))
  const policy = manifest('NetworkPolicy', 'sandbox')
  t.ok(matches(policy.spec.podSelector.matchLabels, sandbox.metadata.labels), 'the sandbox\'s policy selects its pods')
  t.same(policy.spec.policyTypes, ['Ingress', 'Egress'])
  const byPort = (port: string): any[] => policy.spec.ingress.filter((r: any) => r.ports.some((p: any) => p.port === port))
  t.same(policy.spec.ingress.map((r: any) => r.ports.map((p: any) => p.port)), [['http'], ['metrics']], 'two ports in, each by a rule of its own')
  t.equal(ports.metrics, imageManagementPort(), 'metrics is the management port (as the image sets it)')
  for (const rule of [...byPort('http'), ...byPort('metrics')]) {
    t.ok(rule.from.length > 0 && rule.from.every((f: any) => f.namespaceSelector?.matchLabels !== undefined), 'from named namespaces only (no rule open to all)')
  }
  t.ok(byPort('metrics')[0].from.every((f: any) => f.podSelector?.matchLabels !== undefined), 'the management port: Prometheus\'s pods only')
  t.notSame(byPort('http')[0].from, byPort('metrics')[0].from, 'not whoever reaches the API')
  const redis = manifest('StatefulSet', 'redis').spec.template
  const [toRedis, toDns] = policy.spec.egress
  t.ok(matches(toRedis.to[0].podSelector.matchLabels, redis.metadata.labels), 'out: to the Redis pod')
  t.same(toRedis.ports, [{ port: Number(redisPort()) }], 'on its port')
  t.same(toDns.ports.map((p: any) => `${String(p.port)}/${String(p.protocol)}`), ['53/UDP', '53/TCP'], 'and DNS')
  t.equal(policy.spec.egress.length, 2, 'nothing else')
  const redisPolicy = manifest('NetworkPolicy', 'redis')
  t.same(redisPolicy.spec.policyTypes, ['Ingress', 'Egress'], 'Redis: in from the sandbox only (below), out nowhere')
  t.equal(redisPolicy.spec.egress, undefined)
  t.equal(redisPolicy.spec.ingress.length, 1)
})

const skip = replicaSkip()

t.test('HAProxy accepts the Compose load balancer\'s config', { skip }, async (t) => {
  const run = spawnSync('haproxy', ['-c', '-f', join(DEPLOY, 'compose', 'haproxy.cfg')], { encoding: 'utf8' })
  t.equal(run.status, 0, 'haproxy -c -f deploy/compose/haproxy.cfg', { output: run.stdout + run.stderr })
  // the replicas' names resolve only inside the Compose network
  const warnings = run.stderr.split('\n').filter((l) => l.includes('[WARNING]') && !/could not resolve address 'sandbox-\d'/.test(l))
  t.same(warnings, [], 'no warning but the replicas\' names, which resolve in the Compose network only')
})

t.test('redis-server reads redis.conf: AOF with an fsync per write, no eviction; TLS and the ACL user', { skip }, async (t) => {
  // as deploy/ runs it, with a throwaway certificate and password (test/replicas/harness.ts)
  const { cli, anonymous, admin } = await startSecureRedis(t)
  t.match(anonymous('ping'), /^NOAUTH/, 'the health checks\' answer: not signed in')
  t.match(cli('config', 'get', 'appendonly'), /NOPERM/, 'the sandbox\'s user cannot reconfigure Redis')
  t.match(cli('set', 'other:key', '1'), /NOPERM/, 'nor touch keys outside its prefix')
  t.equal(cli('set', 'sbx:key', '1'), 'OK', 'its own, it can')
  const setting = (name: string): string => admin('config', 'get', name).split('\n')[1] ?? ''
  t.equal(setting('appendonly'), 'yes', 'AOF on')
  t.equal(setting('appendfsync'), 'always', 'fsync before the answer')
  t.equal(setting('maxmemory-policy'), 'noeviction', 'a full Redis refuses writes rather than drop partner data')
  t.equal(setting('save'), '', 'no RDB snapshots besides')
})

t.test('the deploy/ manifests start in the hosted profile, the operator token coming from a secret that is not committed', async (t) => {
  // Compose: the profile in the file, the token from the operator's .env (git-ignored) or shell, never a default
  const sandbox = compose.services['sandbox-1']
  t.equal(sandbox.environment.SANDBOX_PROFILE, 'hosted', 'Compose: SANDBOX_PROFILE=hosted')
  t.match(sandbox.environment.SANDBOX_ADMIN_TOKEN, /^\$\{SANDBOX_ADMIN_TOKEN:\?[^}]+\}$/, 'Compose: SANDBOX_ADMIN_TOKEN must be given (no default in the file)')
  t.ok(gitIgnored(join(DEPLOY, 'compose', '.env')), 'deploy/compose/.env, where the token goes, cannot be committed')

  // Kubernetes: the profile in the ConfigMap, the token from a generated Secret
  const container = manifest('Deployment', 'sandbox').spec.template.spec.containers[0]
  const literals: string[] = kustomization.configMapGenerator.find((g: any) => g.name === container.envFrom[0].configMapRef.name).literals
  t.ok(literals.includes('SANDBOX_PROFILE=hosted'), 'Kubernetes: SANDBOX_PROFILE=hosted')
  const token = container.env.find((e: any) => e.name === 'SANDBOX_ADMIN_TOKEN')
  t.ok(token?.valueFrom?.secretKeyRef !== undefined, 'Kubernetes: SANDBOX_ADMIN_TOKEN from a Secret')
  t.ok(kustomization.secretGenerator.some((g: any) => g.name === token.valueFrom.secretKeyRef.name), 'which the kustomization generates from a git-ignored file')

  // and a replica so configured starts hosted; without the token it does not start
  const env = { SANDBOX_PROFILE: 'hosted', SANDBOX_ADMIN_TOKEN: 'a-token-of-at-least-16-characters' }
  t.equal(loadConfig(fromEnv(env)).profile, 'hosted')
  t.throws(() => loadConfig(fromEnv({ SANDBOX_PROFILE: 'hosted' })), /needs an operator credential/)
})

t.test('the probes\' paths answer, on a sandbox signed with a key made as deploy/README.md says', async (t) => {
  const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8')
  const command = /^\s*(openssl genpkey .*)$/m.exec(readme)?.[1]
  t.ok(command, 'deploy/README.md shows how to make the key')
  let signingKeys: string | undefined
  if (spawnSync('sh', ['-c', 'command -v openssl']).status === 0) {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-key-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const args = command!.split(/\s+/).slice(1)
    args[args.indexOf('-out') + 1] = join(dir, 'signing-keys.pem')
    const made = spawnSync('openssl', args, { encoding: 'utf8' })
    t.equal(made.status, 0, 'the key is made', { command: `openssl ${args.join(' ')}`, stderr: made.stderr })
    signingKeys = join(dir, 'signing-keys.pem')
  } else {
    t.comment('openssl is not installed: the probes are asked of a sandbox with a key of its own')
  }
  // the file, as the replicas are given it (SANDBOX_SIGNING_KEYS names it)
  const app = await build(t, signingKeys === undefined ? {} : { signingKey: undefined, signingKeys })
  for (const path of ['/ready', '/health']) {
    const res = await app.inject({ method: 'GET', url: path })
    t.equal(res.statusCode, 200, `GET ${path}`)
  }
})
