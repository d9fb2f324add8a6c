#!/usr/bin/env node
import { existsSync } from 'node:fs'
import nodeModule from 'node:module'

// V8's compiled code of the sandbox's modules, kept on disk between starts (Node's compile cache, in the
// system's temporary directory or NODE_COMPILE_CACHE): a later start compiles only what changed. Enabled
// before anything else is loaded, so that it covers every module (main.ts is the command itself).
nodeModule.enableCompileCache?.()

// the build's bundle of main.js (scripts/bundle.mjs, part of every build): a few files to load instead of
// some 760 modules; from the sources (tsx) there is none and the modules themselves are loaded
const bundle = new URL('./bundle.js', import.meta.url)
if (existsSync(bundle)) await import(bundle.href)
else await import('./main.js')
