#!/usr/bin/env -S node --max-semi-space-size=8 --max-old-space-size=1024 --no-maglev --no-memory-reducer
import { executionAsyncResource } from 'node:async_hooks'
import { existsSync } from 'node:fs'
import nodeModule from 'node:module'

// V8's compiled code of the sandbox's modules, kept on disk between starts (Node's compile cache, in the
// system's temporary directory or NODE_COMPILE_CACHE): a later start compiles only what changed. Enabled
// before anything else is loaded, so that it covers every module (main.ts is the command itself).
nodeModule.enableCompileCache?.()

// One of Node's own tick objects (process.nextTick's; the current resource inside its callback), kept for the
// life of the process. V8 remembers the shapes that nextTick's object literal goes through by weak reference
// only. On Node 22, a full garbage collection at a moment when no tick object is alive frees them, and from then
// on V8 builds every tick object in its runtime: about 4-12 µs of CPU per request, side by side (it happened in
// every sandbox started from the bundle; test/bundle.test.ts forces it). A live tick object keeps them alive.
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- held, never read: holding it is the point
let keptTickObject: object | undefined
process.nextTick(() => { keptTickObject = executionAsyncResource() })

// the build's bundle of main.js (scripts/bundle.mjs, part of every build): a few files to load instead of
// some 760 modules; from the sources (tsx) there is none and the modules themselves are loaded
const bundle = new URL('./bundle.js', import.meta.url)
if (existsSync(bundle)) await import(bundle.href)
else await import('./main.js')
