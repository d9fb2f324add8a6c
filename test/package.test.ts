import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ROOT, ensureBuilt } from './built.js'
import { PARTNER_PROJECT, TYPED_USE, USE_OF_ALL_THREE, recipes } from './package-files.js'

/*
 * The package as a partner gets it: `npm pack`, then `npm i <tarball>` in an empty project (with testcontainers,
 * the optional peer, and Vitest, Jest and ts-jest beside it), and there an ESM script and a TypeScript file using
 * all three exports, two sandboxes at once in one process that then ends by itself, and the recipes of
 * docs/from-code.md as written (node:test, Vitest, Jest in ESM and with TypeScript).
 */

// the installs (from npm's cache where it has them) and the runs take minutes on a busy 2-core machine: CI
// runs this once, on the image's Node line (.ci/run: SANDBOX_PACKAGE_TESTS=skip on the others)
t.setTimeout(900_000)

const versionOf = (name: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version

interface Run { code: number | null, signal: string | null, stdout: string, stderr: string }

/** Runs a command to its end, however long it takes: a process that does not end by itself fails the test by its timeout. */
async function run (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return await new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    child.once('error', reject)
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

if (process.env.SANDBOX_PACKAGE_TESTS === 'skip') {
  t.comment('SANDBOX_PACKAGE_TESTS=skip')
  t.pass('skipped')
} else {
  await packageTests()
}

async function packageTests (): Promise<void> {
  ensureBuilt()
  const work = mkdtempSync(join(tmpdir(), 'sandbox-package-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })) as Array<{ filename: string, files: Array<{ path: string }>, unpackedSize: number }>
  writeFileSync(join(work, 'package.json'), JSON.stringify(PARTNER_PROJECT, null, 2))
  const install = await run('npm', ['i', '--no-audit', '--no-fund', '--prefer-offline', `./${packed.filename}`,
    `testcontainers@${versionOf('testcontainers')}`, `@types/node@${versionOf('@types/node')}`, 'vitest@^3.2.7',
    // the Jest recipes': Jest with its ESM imports, ts-jest and the TypeScript it compiles with
    'jest@^30.2.0', '@jest/globals@^30.2.0', 'ts-jest@^29.4.5', `typescript@${versionOf('typescript')}`], work)

  t.test('the tarball holds the built package: declarations, the bundle, the data; no sources, tests or maps', async (t) => {
    const paths = packed.files.map((f) => f.path)
    for (const file of ['dist/library.js', 'dist/library.d.ts', 'dist/client/index.d.ts', 'dist/testcontainers/index.d.ts', 'dist/cli.js', 'dist/verified-data.json', 'scenarios/default.json', 'console/index.html']) {
      t.ok(paths.includes(file), file)
    }
    t.ok(paths.some((p) => /^dist\/bundle-server-.+\.js$/.test(p)), 'the bundle the command runs')
    t.same(paths.filter((p) => /^(src|test|bench|scripts|deploy|docs)\//.test(p) || p.endsWith('.map') || p.endsWith('.tsbuildinfo')), [], 'nothing else')
    t.ok(packed.unpackedSize < 20e6, `${(packed.unpackedSize / 1e6).toFixed(1)} MB unpacked`)
    t.equal(install.code, 0, `npm i of the tarball in an empty project: ${install.stderr.slice(-2000)}`)
  })

  t.test('an ESM script: all three exports, two sandboxes at once, then the process ends by itself', async (t) => {
    writeFileSync(join(work, 'use.mjs'), USE_OF_ALL_THREE)
    const script = await run(process.execPath, ['use.mjs'], work)
    t.equal(script.signal, null)
    t.equal(script.code, 0, `ended by itself, exit code 0: ${script.stderr.slice(-3000)}`)
    const lines = script.stdout.split('\n').filter((l) => l !== '')
    t.equal(lines.length, 1, 'nothing on standard output but the script\'s own line')
    const seen = JSON.parse(lines[0]) as { urls: string[], banks: number, scenarioB: string, refused: unknown, container: string[] }
    t.not(seen.urls[0], seen.urls[1], 'two sandboxes, two ports')
    t.ok(seen.banks > 0, "the bank's API through startSandbox's client()")
    t.equal(seen.scenarioB, 'edge-cases', 'the control API through a SandboxClient of the URL')
    t.same(seen.refused, { status: 401, code: 'invalid_client' }, 'SandboxApiError from the token endpoint')
    t.same(seen.container, ['withAdminToken', 'withScenario', 'withSeed'], 'SandboxContainer from banking-agent-sandbox/testcontainers')
  })

  t.test('a TypeScript file using all three exports type-checks, and wrong calls are type errors', async (t) => {
    writeFileSync(join(work, 'use.ts'), TYPED_USE)
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'] },
      files: ['use.ts']
    }))
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], work)
    t.equal(tsc.code, 0, `tsc --noEmit: ${tsc.stdout}${tsc.stderr}`)
  })

  t.test("docs/from-code.md's node:test recipe: one sandbox for the run, a fresh agent for each of two files", async (t) => {
    if (!process.allowedNodeEnvironmentFlags.has('--test-global-setup')) {
      t.pass(`skipped: node --test --test-global-setup came with Node 24, this is ${process.version}`)
      return
    }
    const dir = recipes(work, 'node:test')
    const run1 = await run(process.execPath, ['--test', '--test-reporter=tap', '--test-global-setup=sandbox-setup.mjs'], dir)
    t.equal(run1.code, 0, `node --test: ${run1.stdout.slice(-3000)}${run1.stderr.slice(-2000)}`)
    t.match(run1.stdout, /^# pass 2$/m, 'both files passed')
    t.match(run1.stdout, /^# fail 0$/m)
  })

  t.test("docs/from-code.md's Vitest recipe: one sandbox for the run, a fresh agent for each of two files", async (t) => {
    const dir = recipes(work, 'Vitest')
    const vitest = await run(process.execPath, [join(work, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], dir)
    t.equal(vitest.code, 0, `vitest run: ${vitest.stdout.slice(-3000)}${vitest.stderr.slice(-2000)}`)
    t.match(vitest.stdout, /Test Files\s+2 passed \(2\)/, 'both files passed')
  })

  // Jest as docs/from-code.md runs it: `NODE_OPTIONS=--experimental-vm-modules npx jest` in the recipe's directory
  const jest = async (dir: string): Promise<Run> => await run('npx', ['jest'], dir, { NODE_OPTIONS: '--experimental-vm-modules' })

  t.test("docs/from-code.md's Jest recipe, ESM: one sandbox for the run, a fresh agent for each of two files", async (t) => {
    const dir = recipes(work, 'Jest, ESM')
    const result = await jest(dir)
    t.equal(result.code, 0, `npx jest: ${result.stdout.slice(-3000)}${result.stderr.slice(-3000)}`)
    t.match(result.stderr, /^Tests: +2 passed, 2 total$/m, 'both files passed')
  })

  t.test("docs/from-code.md's Jest recipe with TypeScript (ts-jest): the same, in TypeScript that type-checks", async (t) => {
    const dir = recipes(work, 'Jest with TypeScript (ts-jest)')
    const result = await jest(dir)
    t.equal(result.code, 0, `npx jest: ${result.stdout.slice(-3000)}${result.stderr.slice(-3000)}`)
    t.match(result.stderr, /^Tests: +2 passed, 2 total$/m, 'both files passed')
    t.notMatch(result.stderr, /ts-jest\[\S+\] \(WARN\)/, 'ts-jest has nothing to warn of')
    // ts-jest compiles each file alone (isolatedModules): the recipe's tsconfig.json checks the types
    const tsc = await run(process.execPath, [join(work, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'], dir)
    t.equal(tsc.code, 0, `tsc --noEmit: ${tsc.stdout}${tsc.stderr}`)
  })
}
