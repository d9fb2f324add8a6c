// The image's software bill of materials (issue 51): a CycloneDX 1.5 JSON document of every runtime package,
// read from package-lock.json: each package the lockfile does not mark dev (what `npm ci --omit dev` installs,
// optional ones included), whether the image keeps it in node_modules or its code in the bundle
// (scripts/bundle.mjs): both run. Each with its purl, version, licence, SHA-512 (the lockfile's integrity) and
// where it was fetched from, for a scanner (Trivy, Grype, Dependency-Track) to match against advisories.
// `npm sbom --omit dev` would do this, but leaves out dozens of runtime packages (an npm defect: the issue
// counted 59 of 227), so the lockfile is read here and test/sbom.test.ts checks the count against it.
//   node scripts/sbom.mjs <project root>   writes the document to stdout (the Dockerfile: /app/sbom.cdx.json)
// Plain JavaScript: it runs in the image's build stage. No timestamp: the same lockfile makes the same file.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = process.argv[2] ?? new URL('..', import.meta.url).pathname
const read = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'))

/** 'node_modules/a/node_modules/@s/b' -> '@s/b' */
const nameOf = (path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
/** purl of an npm package: the scope's @ percent-encoded */
const purl = (name, version) => `pkg:npm/${name.replace(/^@/, '%40')}@${version}`

/** The lockfile's integrity (sha512-<base64>) as CycloneDX hashes. */
function hashes (integrity) {
  const sha512 = integrity?.split(' ').find((h) => h.startsWith('sha512-'))
  return sha512 === undefined ? [] : [{ alg: 'SHA-512', content: Buffer.from(sha512.slice(7), 'base64').toString('hex') }]
}

/** One component per runtime package name and version (a package nested at several paths is one component). */
export function sbom () {
  const pkg = read('package.json')
  const lock = read('package-lock.json')
  const components = new Map()
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.link === true) continue
    const name = entry.name ?? nameOf(path)
    const ref = purl(name, entry.version)
    if (components.has(ref)) continue
    components.set(ref, {
      type: 'library',
      'bom-ref': ref,
      name,
      version: entry.version,
      purl: ref,
      ...(entry.license === undefined ? {} : { licenses: [{ expression: entry.license }] }),
      hashes: hashes(entry.integrity),
      ...(entry.resolved === undefined ? {} : { externalReferences: [{ type: 'distribution', url: entry.resolved }] })
    })
  }
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      tools: { components: [{ type: 'application', name: 'scripts/sbom.mjs' }] },
      component: { type: 'application', 'bom-ref': purl(pkg.name, pkg.version), name: pkg.name, version: pkg.version, purl: purl(pkg.name, pkg.version) }
    },
    components: [...components.values()].sort((a, b) => a['bom-ref'] < b['bom-ref'] ? -1 : 1)
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) process.stdout.write(`${JSON.stringify(sbom(), null, 2)}\n`)
