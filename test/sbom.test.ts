import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './built.js'
// @ts-expect-error: plain JavaScript of the image's build stage, without declarations
import { sbom } from '../scripts/sbom.mjs'

/*
 * The image's CycloneDX SBOM (issue 51, scripts/sbom.mjs): every runtime package of the lockfile, with what a
 * scanner matches on, and nothing of the dev tree; built into the image at /app/sbom.cdx.json.
 */

interface Component { type: string, 'bom-ref': string, name: string, version: string, purl: string, hashes: Array<{ alg: string, content: string }>, licenses?: Array<{ expression: string }> }
const doc = sbom() as { bomFormat: string, specVersion: string, version: number, metadata: { component: { name: string, version: string } }, components: Component[] }
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string, dev?: boolean, link?: boolean, name?: string }> }
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
const listed = new Set(doc.components.map((c) => `${c.name}@${c.version}`))

t.test('valid CycloneDX 1.5 with the fields a scanner matches on', async (t) => {
  t.match(doc, { bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, metadata: { component: { name: 'banking-agent-sandbox' } } })
  t.equal(new Set(doc.components.map((c) => c['bom-ref'])).size, doc.components.length, 'every bom-ref is unique')
  for (const c of doc.components) {
    const scoped = c.name.startsWith('@') ? `%40${c.name.slice(1)}` : c.name
    if (c.type !== 'library' || c.purl !== `pkg:npm/${scoped}@${c.version}` || c['bom-ref'] !== c.purl ||
      !/^[0-9]+\.[0-9]+\.[0-9]+/.test(c.version) || c.hashes.length !== 1 || c.hashes[0].alg !== 'SHA-512' || !/^[0-9a-f]{128}$/.test(c.hashes[0].content)) {
      t.fail(`${c.name}@${c.version}: not a complete npm component`, { component: c })
    }
  }
  t.ok(doc.components.filter((c) => c.licenses !== undefined).length > doc.components.length * 0.9, 'licences from the lockfile')
})

t.test('every runtime package of the lockfile is listed, and no dev package', async (t) => {
  const runtime = new Set<string>()
  const dev = new Set<string>()
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link === true) continue
    ;(entry.dev === true ? dev : runtime).add(`${entry.name ?? nameOf(path)}@${entry.version}`)
  }
  t.same([...runtime].filter((p) => !listed.has(p)), [], 'no runtime package missing')
  t.equal(listed.size, runtime.size, `${runtime.size} runtime packages, as many components`)
  t.same([...listed].filter((p) => dev.has(p) && !runtime.has(p)), [], 'no dev-only package')
  t.ok(runtime.size > 200, 'the bundle\'s dependencies count as well as node_modules\'')
})

t.test('every package the image keeps in node_modules is listed; the Dockerfile builds the SBOM in', { skip: existsSync(join(ROOT, 'dist', 'bundle-externals.json')) ? false : 'needs `npm run build` (dist/bundle-externals.json)' }, async (t) => {
  // runtime-files.mjs without a target lists the package directories the image gets
  const list = spawnSync(process.execPath, [join(ROOT, 'scripts', 'runtime-files.mjs'), ROOT], { encoding: 'utf8' })
  t.equal(list.status, 0, list.stderr)
  const dirs = list.stdout.split('\n').map((l) => /MB {2}(.*node_modules\/.+)$/.exec(l)?.[1]).filter((d): d is string => d !== undefined)
  t.ok(dirs.length > 0, `${dirs.length} packages in the image's node_modules`)
  for (const dir of dirs) {
    const { name, version } = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string, version: string }
    if (!listed.has(`${name}@${version}`)) t.fail(`${dir} (${name}@${version}) is in the image but not in the SBOM`)
  }
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
  t.match(dockerfile, /^RUN node scripts\/sbom\.mjs \/app > \/runtime\/sbom\.cdx\.json$/m, 'built into the image as /app/sbom.cdx.json')
})
