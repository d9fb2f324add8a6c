import type { ParityOptions, ParityResult } from './index.js'

/*
 * `banking-sandbox parity --target <url> ...` (docs/parity.md). Every flag has a PARITY_* environment
 * variable (a CI job keeps the secret and the password there, out of the command line); a flag wins.
 * Exit codes: 0 no undeclared difference, 1 differences, 2 could not run, with the reason on one line.
 */

const NAME = 'banking-sandbox parity'

const FLAGS: Array<{ flag: string, key: keyof ParityOptions, help: string, boolean?: true }> = [
  { flag: 'target', key: 'target', help: 'the implementation to probe: its base URL (the bank API at <url>/api)' },
  { flag: 'token-url', key: 'tokenUrl', help: "the target's token endpoint (default <target>/auth/realms/sandbox/protocol/openid-connect/token)" },
  { flag: 'client-id', key: 'clientId', help: 'the OAuth client of the target' },
  { flag: 'client-secret', key: 'clientSecret', help: 'its secret (prefer PARITY_CLIENT_SECRET)' },
  { flag: 'agent-id', key: 'agentId', help: 'an Agent-Id bound to that client' },
  { flag: 'other-agent-id', key: 'otherAgentId', help: 'an Agent-Id NOT bound to it, e.g. another partner\'s (default 999999999)' },
  { flag: 'username', key: 'username', help: 'a test user of the client (password grant, GET /api/users/current/customers)' },
  { flag: 'password', key: 'password', help: 'its password (prefer PARITY_PASSWORD)' },
  { flag: 'guarantee-id', key: 'guaranteeId', help: 'a guarantee id known to the target (spec 4.13 has no list)' },
  { flag: 'read-only', key: 'readOnly', help: 'send no POST, PUT, PATCH or DELETE to the bank API', boolean: true },
  { flag: 'target-spec', key: 'targetSpec', help: "the target's OpenAPI document, a URL or a file (springdoc: <target>/v3/api-docs)" },
  { flag: 'declared', key: 'declared', help: 'a JSON file of declared divergences (docs/parity-declared.json to start from)' },
  { flag: 'out', key: 'out', help: 'the report directory (default parity-report)' }
]

const REQUIRED: Array<keyof ParityOptions> = ['target', 'clientId', 'clientSecret', 'agentId']

function envName (flag: string): string {
  return `PARITY_${flag.toUpperCase().replace(/-/g, '_')}`
}

export function parityHelp (): string {
  const width = Math.max(...FLAGS.map((f) => f.flag.length)) + 12
  return `Usage: ${NAME} --target <url> --client-id <id> --client-secret <secret> --agent-id <id> [options]\n\n` +
    'Runs the parity probes against the target and against a reference sandbox started in this process,\n' +
    'then reports every difference (docs/parity.md). Exit 0: none undeclared; 1: differences; 2: could not run.\n\nOptions:\n' +
    FLAGS.map((f) => `  ${`--${f.flag}${f.boolean === true ? '' : ' <value>'}`.padEnd(width)}${f.help}\n  ${''.padEnd(width)}env ${envName(f.flag)}`).join('\n') + '\n'
}

/** Options from the environment, then the flags; an unknown flag or a missing value is an error. */
export function parityOptions (argv: string[], env: NodeJS.ProcessEnv): ParityOptions | 'help' {
  const out: Partial<Record<keyof ParityOptions, string | boolean>> = {}
  for (const f of FLAGS) {
    const v = env[envName(f.flag)]
    if (v !== undefined && v !== '') out[f.key] = f.boolean === true ? v === '1' || v === 'true' : v
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') return 'help'
    const eq = arg.indexOf('=')
    const name = arg.startsWith('--') ? arg.slice(2, eq === -1 ? undefined : eq) : ''
    const f = FLAGS.find((x) => x.flag === name)
    if (f === undefined) throw new Error(`unknown argument "${arg}" (see --help)`)
    if (f.boolean === true) {
      out[f.key] = eq === -1 ? true : arg.slice(eq + 1) !== 'false'
      continue
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined) throw new Error(`option --${f.flag} needs a value`)
    out[f.key] = value
  }
  for (const key of REQUIRED) {
    if (out[key] === undefined) {
      const f = FLAGS.find((x) => x.key === key)!
      throw new Error(`--${f.flag} is required (or ${envName(f.flag)})`)
    }
  }
  return { out: 'parity-report', ...out } as ParityOptions
}

/** The command: returns its exit code. `runParity` is the package root's (main.ts hands it in). */
export async function parityMain (argv: string[], runParity: (options: ParityOptions) => Promise<ParityResult>, env = process.env): Promise<number> {
  let options: ParityOptions | 'help'
  try {
    options = parityOptions(argv, env)
  } catch (err) {
    process.stderr.write(`${NAME}: ${(err as Error).message}\n`)
    return 2
  }
  if (options === 'help') {
    process.stdout.write(parityHelp())
    return 0
  }
  const result = await runParity(options)
  if (result.exitCode === 2 || result.report === undefined) {
    process.stderr.write(`${NAME}: cannot run: ${result.problem ?? 'unknown reason'}\n`)
    return 2
  }
  const s = result.report.summary
  const spec = result.report.spec
  process.stdout.write(`${NAME}: ${s.probes} probes in ${(result.report.ms / 1000).toFixed(1)} s against ${result.report.target.url}: ` +
    `${s.same} same, ${s.different} different, ${s.skipped} skipped; ${s.undeclared} undeclared and ${s.declared} declared differences` +
    `${spec === undefined ? '' : `; OpenAPI document: ${spec.breaking.length} breaking, ${spec.nonBreaking.length} other differences`}\n`)
  for (const o of result.report.outcomes.filter((x) => x.failing).slice(0, 20)) {
    for (const d of o.differences) if (d.declared === undefined || d.declared.expired) process.stdout.write(`  ${o.id} [${d.aspect}] ${d.detail}\n`)
  }
  if (result.files !== undefined) process.stdout.write(`reports: ${Object.values(result.files).join(', ')}\n`)
  return result.exitCode
}
