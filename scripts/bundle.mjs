// `npm run build`'s second step (after tsc, before verify-data.mjs): dist/main.js and everything it imports,
// bundled into dist/bundle.js and a few chunks beside it (dist/bundle-*.js), which dist/cli.js loads when
// they are there. Loading some 760 modules (TypeBox alone is 247 files) cost about 200 ms of every start,
// most of it finding, reading and linking files rather than running them; one file and its chunks load in
// under 100 ms (Node 24, compile cache warm). What only some requests need stays a chunk loaded at its
// first use (the identity provider's setup). Plain JavaScript: no loader to wait for.
//
// Left out of the bundle, loaded from node_modules as before: packages that read files beside their own
// code (Swagger UI's static files), the identity provider (loaded at the first token request; its
// dependencies are many and it reads its own modules by path), and the Postman converter (loaded at the
// first download of the collection).
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const EXTERNAL = ['oidc-provider', 'oidc-provider/*', '@fastify/swagger-ui', 'openapi-to-postmanv2']

// the project's root, or the directory given (the tests build a small project of their own, without the sandbox)
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname
const dist = join(root, 'dist')
if (!existsSync(join(dist, 'main.js'))) process.exit(0)

// a build's chunks are named by their content: the last build's go first
for (const name of readdirSync(dist)) if (/^bundle(-.*)?\.js(\.map)?$/.test(name)) rmSync(join(dist, name))

const { build } = await import('esbuild')
try {
  await build({
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
    logLevel: 'warning'
  })
} catch (err) {
  process.stderr.write(`bundle: ${err.message}\n`)
  process.exit(1)
}

// V8 keeps a script's source in the heap for the life of the process, and Node hands it a file's text one byte
// per character only when the file is ASCII, else two bytes per character: eleven non-ASCII characters in
// comments and a regular expression (esbuild escapes strings and templates to ASCII, not those) made the 3.3 MB
// server bundle take 6.6 MB (heap snapshot, 2026-11-26). Written as \u escapes they mean the same in a comment,
// a regular expression, a string or an identifier; not after a backslash, which would then escape the escape.
for (const name of readdirSync(dist)) {
  if (!/^bundle(-.*)?\.js$/.test(name)) continue
  const file = join(dist, name)
  const code = readFileSync(file, 'utf8')
  const escaped = /\\[\u0080-\uffff]/.exec(code)
  if (escaped !== null) {
    process.stderr.write(`bundle: ${name} has an escaped non-ASCII character at ${escaped.index}; it cannot be written as \\u\n`)
    process.exit(1)
  }
  const ascii = code.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if (ascii !== code) writeFileSync(file, ascii)
}
