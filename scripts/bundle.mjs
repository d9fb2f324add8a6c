// `npm run build`'s second step (after tsc, before verify-data.mjs): dist/main.js and everything it imports,
// bundled into dist/bundle.js and a few chunks beside it (dist/bundle-*.js), which dist/cli.js loads when
// they are there. Loading some 760 modules (TypeBox alone is 247 files) cost about 200 ms of every start,
// most of it finding, reading and linking files rather than running them; one file and its chunks load in
// under 100 ms (Node 24, compile cache warm). What only some requests need stays a chunk loaded at its
// first use (the identity provider's setup). Plain JavaScript: no loader to wait for.
//
// Left out of the bundle, loaded from node_modules as before: the identity provider (loaded at the first
// token request; it finds a token kind's lifetime and its adapter's model name by class name, and esbuild
// renames classes whose names collide: bundled, tokens failed with "ttl is not a function") and
// @fastify/swagger-ui (loaded at the first request of a docs page; it serves the files beside its own code,
// from its directory, which a bundle has not). The Postman converter is a chunk of its own,
// loaded at the first download of the collection: from node_modules it was 26 MB of the image (its
// dependencies' every locale and build), bundled 1.5 MB. What stays outside is listed in
// dist/bundle-externals.json, from which scripts/runtime-modules.mjs finds the node_modules the image ships.
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'

const EXTERNAL = ['oidc-provider', 'oidc-provider/*', '@fastify/swagger-ui']

// the project's root, or the directory given (the tests build a small project of their own, without the sandbox)
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname
const dist = join(root, 'dist')
if (!existsSync(join(dist, 'main.js'))) process.exit(0)

// a build's chunks are named by their content: the last build's go first
for (const name of readdirSync(dist)) if (/^bundle(-.*)?\.js(\.map)?$/.test(name)) rmSync(join(dist, name))

const { build } = await import('esbuild')
let metafile
try {
  ({ metafile } = await build({
    entryPoints: { bundle: join(dist, 'main.js') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outdir: dist,
    chunkNames: 'bundle-[name]-[hash]',
    external: EXTERNAL,
    // the CommonJS packages inside (Fastify, ajv, ...) call require() for Node's own modules and JSON files
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    legalComments: 'eof',
    // V8 keeps a script's source text for the life of the process (Node 24: a malloc'd copy, heaptrack's
    // ExternString::NewFromCopy; Node 22: a string in its heap): 3.4 MB for the server chunk as written, 2.1 MB
    // without whitespace and comments. Names are kept (no mangling): stack traces name the functions; a frame's
    // line and column are the bundle's, mapped back to src/ by the source maps written beside it
    // (node --enable-source-maps, docs/operations.md).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning'
  }))
} catch (err) {
  process.stderr.write(`bundle: ${err.message}\n`)
  process.exit(1)
}

// every module the bundle imports from outside itself but Node's own: the packages of EXTERNAL, as imported
const builtin = (path) => path.startsWith('node:') || builtinModules.includes(path.split('/')[0])
const externals = new Set(Object.values(metafile.outputs).flatMap((o) => o.imports).filter((i) => i.external && !builtin(i.path)).map((i) => i.path))
writeFileSync(join(dist, 'bundle-externals.json'), `${JSON.stringify([...externals].sort(), null, 2)}\n`)

// V8 keeps a script's source in the heap for the life of the process, and Node hands it a file's text one byte
// per character only when the file is ASCII, else two bytes per character: eleven non-ASCII characters in
// comments and a regular expression (esbuild escapes strings and templates to ASCII, not those) made the 3.3 MB
// server bundle take 6.6 MB (heap snapshot, 2026-11-26). Written as \u escapes they mean the same in a comment,
// a regular expression, a string or an identifier. After a backslash that escapes it (an odd run of backslashes:
// a regular expression of the Postman converter's faker escapes CJK characters so), the character is an identity
// escape, which means the character itself: that backslash goes, or it would escape the escape.
for (const name of readdirSync(dist)) {
  if (!/^bundle(-.*)?\.js$/.test(name)) continue
  const file = join(dist, name)
  const code = readFileSync(file, 'utf8')
  const ascii = code.replace(/(\\*)([\u0080-\uffff])/g, (_, slashes, c) =>
    `${slashes.slice(slashes.length % 2)}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if (ascii !== code) writeFileSync(file, ascii)
}
