#!/usr/bin/env node
import nodeModule from 'node:module'

// V8's compiled code of the sandbox's modules, kept on disk between starts (Node's compile cache, in the
// system's temporary directory or NODE_COMPILE_CACHE): a later start compiles only what changed. Enabled
// before anything else is loaded, so that it covers every module (main.ts is the command itself).
nodeModule.enableCompileCache?.()
await import('./main.js')
