// What a built sandbox needs at run time, and nothing else: the image (Dockerfile) is this tree.
//   - dist/: the command (cli.js), the bundle and its chunks, the data files the build writes (what is not
//     code: verified-data.json, prebuilt/), and the bundle's source maps without the sources they embed (a stack
//     trace still names src/ places with --enable-source-maps; the source text would be 10 MB more);
//   - package.json, fixtures/, scenarios/, console/;
//   - node_modules: the packages the bundle leaves outside (dist/bundle-externals.json, written by bundle.mjs
//     from esbuild's own account of the bundle) and what they depend on, found the way Node finds them
//     (node_modules beside the package, then above), without type declarations, source maps and the authors'
//     notes; of a package the bundle only reads files of by path (the console's UI library and CSS), those
//     files. Everything else of node_modules is in the bundle.
//   node scripts/runtime-files.mjs <project root> <target dir>   copies the tree to <target dir>
//   node scripts/runtime-files.mjs <project root>                lists the packages with their sizes
// Plain JavaScript: it runs in the image's build stage, after the build.
import { cpSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative } from 'node:path'

const root = process.argv[2] ?? new URL('..', import.meta.url).pathname
const target = process.argv[3]
const dist = join(root, 'dist')

const UNUSED = /\.(d\.[cm]?ts|map|md|markdown)$|^(readme|changelog|history)(\.\w+)?$/i
const BUNDLE = /^bundle(-.*)?\.js$/

/** 'pkg/sub/path' or '@scope/pkg/sub' -> the package's name. */
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')
const builtin = (name) => name.startsWith('node:') || builtinModules.includes(name)

/**
 * The packages the bundle loads (its externals), and the files it reads by path from packages it does not
 * load (require.resolve('<package>/<file>'), as esbuild names it: the console's UI library and CSS).
 */
function entries () {
  const loaded = new Set(JSON.parse(readFileSync(join(dist, 'bundle-externals.json'), 'utf8')).map(packageOf).filter((n) => !builtin(n)))
  const read = new Map()
  for (const file of readdirSync(dist).filter((f) => BUNDLE.test(f))) {
    // a package's own file ('./x', '../x') is no package
    for (const m of readFileSync(join(dist, file), 'utf8').matchAll(/\brequire\d*\.resolve\(["']([^"'./][^"']*)["']\)/g)) {
      const name = packageOf(m[1])
      read.set(name, [...read.get(name) ?? [], m[1].slice(name.length + 1)])
    }
  }
  return { loaded: [...loaded].sort(), read }
}

/** The directory Node loads package `name` from when it is required from a file in `from`, if any. */
function find (name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return candidate
    if (dirname(dir) === dir || relative(root, dir).startsWith('..')) return undefined
  }
}

/** Every package directory reached from the packages the bundle loads, required from dist/. */
function packages (loaded) {
  const found = new Set()
  const visit = (name, from, optional) => {
    const dir = find(name, from)
    if (dir === undefined) {
      if (optional) return
      throw new Error(`runtime-files: ${name}, needed from ${relative(root, from)}, is not installed`)
    }
    if (found.has(dir)) return
    found.add(dir)
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false)
    for (const dep of [...Object.keys(pkg.optionalDependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]) visit(dep, dir, true)
  }
  // an external that is not installed was not there for the bundle either: esbuild left it outside because
  // it is required inside a try (node-fetch's optional `encoding`), and the code runs without it
  for (const name of loaded) visit(name, dist, true)
  return [...found].sort()
}

/** A package's own files (its nested node_modules are packages of their own), without the unused ones. */
function ownFiles (dir) {
  const out = []
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path)
      } else if (!UNUSED.test(entry.name) || entry.name === 'package.json') out.push(path)
    }
  }
  walk(dir)
  return out
}

const copy = (from) => cpSync(join(root, from), join(target, from), { recursive: true, preserveTimestamps: true })

const { loaded, read } = entries()
const dirs = packages(loaded)
/** Each package's files in the image: all of its own for a package that is loaded, else the files read and its licence. */
const files = new Map(dirs.map((dir) => [dir, ownFiles(dir)]))
for (const [name, paths] of read) {
  const dir = find(name, dist)
  if (dir === undefined) throw new Error(`runtime-files: ${name}, read by the bundle, is not installed`)
  if (files.has(dir)) continue
  const licences = readdirSync(dir).filter((f) => /^licen[cs]e/i.test(f))
  files.set(dir, ['package.json', ...licences, ...paths].map((p) => join(dir, p)))
}
if (target === undefined) {
  for (const [dir, list] of [...files].sort()) {
    const size = list.reduce((sum, f) => sum + statSync(f).size, 0)
    process.stdout.write(`${(size / 1e6).toFixed(2).padStart(7)} MB  ${relative(root, dir)}\n`)
  }
  process.exit(0)
}
for (const list of files.values()) for (const file of list) cpSync(file, join(target, relative(root, file)), { preserveTimestamps: true })
for (const from of ['package.json', 'fixtures', 'scenarios', 'console', 'dist/cli.js']) copy(from)
// the build's data: whatever in dist/ is not code (the compiled modules are in the bundle) nor the build's own
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (entry.isFile() && !/\.(js|map|d\.ts|tsbuildinfo)$|^\.build-/.test(entry.name)) copy(relative(root, join(entry.parentPath, entry.name)))
}
for (const name of readdirSync(dist).filter((f) => BUNDLE.test(f))) {
  copy(`dist/${name}`)
  const map = join(dist, `${name}.map`)
  if (!existsSync(map)) continue
  const { sourcesContent, ...rest } = JSON.parse(readFileSync(map, 'utf8'))
  writeFileSync(join(target, 'dist', `${name}.map`), JSON.stringify(rest))
}
process.stderr.write(`runtime-files: the sandbox and ${files.size} packages of node_modules copied to ${target}\n`)
