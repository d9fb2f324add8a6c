import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'

// `npm start`'s build step (scripts/build-if-changed.mjs) on a small project of its own
const SCRIPT = new URL('../scripts/build-if-changed.mjs', import.meta.url).pathname

t.test('npm start compiles only when a source changed since the last build, added and removed files included', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-build-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', target: 'ES2023', types: [] } }))
  writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { rootDir: 'src', outDir: 'dist' }, include: ['src'] }))
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a: number = 1\n')
  const build = (): void => { execFileSync(process.execPath, [SCRIPT, dir]) }
  const builtAt = (): number => statSync(join(dir, 'dist', '.build-stamp')).mtimeMs
  // what was there at the build is dated long before it, so that only what the test changes next is newer
  const age = (): void => {
    for (const p of ['tsconfig.json', 'tsconfig.build.json', 'src', ...readdirSync(join(dir, 'src')).map((n) => join('src', n))]) {
      utimesSync(join(dir, p), new Date(1000), new Date(1000))
    }
  }

  build()
  age()
  t.match(execFileSync(process.execPath, ['-p', `require('${join(dir, 'dist', 'a.js')}').a`]).toString(), /^1/, 'first start: built')
  const first = builtAt()
  build()
  t.equal(builtAt(), first, 'nothing changed: no build')

  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a: number = 2\n')
  build()
  age()
  t.ok(builtAt() > first, 'a changed file (as a git pull writes it): built again')
  t.match(execFileSync(process.execPath, ['-p', `require('${join(dir, 'dist', 'a.js')}').a`]).toString(), /^2/)

  const second = builtAt()
  unlinkSync(join(dir, 'src', 'a.ts'))
  writeFileSync(join(dir, 'src', 'b.ts'), 'export const b = 3\n')
  utimesSync(join(dir, 'src', 'b.ts'), new Date(1000), new Date(1000))
  build()
  t.ok(builtAt() > second, 'a file removed or added (its directory changed): built again')
  t.ok(statSync(join(dir, 'dist', 'b.js'), { throwIfNoEntry: false }) !== undefined)
})
