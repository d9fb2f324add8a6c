import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runParity, startSandbox } from '../../src/library.js'
import { ROOT } from '../built.js'

/*
 * The kit against a second, fresh sandbox: no difference, three runs in a row (the kit is not flaky; the
 * target keeps what each run created). With the target's own OpenAPI document and the shipped declared
 * divergences. And the runs it cannot make: exit code 2 with the reason on one line.
 */

const DECLARED = join(ROOT, 'docs/parity-declared.json')
// three by default; .ci/run makes it one on the Node lines other than the image's (SANDBOX_PARITY_RUNS)
const RUNS = Number(process.env.SANDBOX_PARITY_RUNS ?? 3)

t.test(`a fresh sandbox as the target: no difference, ${RUNS} runs in a row`, async (t) => {
  const target = await startSandbox()
  t.teardown(() => target.stop())
  for (let run = 1; run <= RUNS; run++) {
    const started = Date.now()
    const out = join(tmpdir(), `parity-same-${process.pid}-${run}`)
    const result = await runParity({ target: target.url, clientId: 'partner-a', clientSecret: 'partner-a-secret', agentId: '1001', otherAgentId: '2001', username: 'alice', password: 'alice-password', guaranteeId: 'VALID-SAME-1', targetSpec: `${target.url}/api/docs/apidocs`, declared: DECLARED, out })
    const report = result.report
    t.comment(`run ${run}: ${((Date.now() - started) / 1000).toFixed(1)} s, ${report?.summary.probes ?? 0} probes`)
    t.equal(result.exitCode, 0, `run ${run}: exit code 0 (${result.problem ?? ''})`)
    t.same(report?.outcomes.filter((o) => o.differences.length > 0).map((o) => `${o.id}: ${o.differences.map((d) => d.detail).join('; ')}`), [], `run ${run}: no difference`)
    t.equal(report?.summary.skipped, 0, `run ${run}: every probe ran on both sides`)
    t.ok((report?.summary.probes ?? 0) > 250, `run ${run}: the whole suite (${report?.summary.probes ?? 0} probes)`)
    t.same(report?.spec?.breaking, [], `run ${run}: the same OpenAPI document`)
    t.same(report?.spec?.nonBreaking, [])
    const kinds = new Set(report?.outcomes.map((o) => o.kind))
    t.same([...kinds].sort(), ['auth', 'content-type', 'method', 'not-found', 'paging', 'token', 'valid', 'validation'], 'every family of probes')
    const written = JSON.parse(await readFile(join(out, 'parity.json'), 'utf8')) as { summary: unknown }
    t.same(written.summary, report?.summary, 'the JSON report')
  }
})

t.test('exit code 2 with the reason on one line: credentials refused, target unreachable', async (t) => {
  const target = await startSandbox()
  t.teardown(() => target.stop())
  const refused = await runParity({ target: target.url, clientId: 'partner-a', clientSecret: 'not-the-secret', agentId: '1001' })
  t.equal(refused.exitCode, 2)
  t.equal(refused.problem, 'target token endpoint refused the credentials (invalid_client)')
  t.same(refused.targetMethods, {}, 'nothing sent to the bank API')

  // a port that was free a moment ago: nothing listens there
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'parity', '--target', `http://127.0.0.1:${port}`, '--client-id', 'x', '--agent-id', '1'], {
    env: { ...process.env, PARITY_CLIENT_SECRET: 'y' }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  t.equal(code, 2, 'banking-sandbox parity exits 2')
  t.equal(stderr, `banking-sandbox parity: cannot run: target token endpoint http://127.0.0.1:${port}/auth/realms/sandbox/protocol/openid-connect/token unreachable (ECONNREFUSED)\n`, 'one line')
})
