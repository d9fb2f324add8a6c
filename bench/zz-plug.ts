import { performance } from 'node:perf_hooks'
const t0 = performance.now()
// @ts-expect-error the bundle has no types
const { loadConfig } = await import('../dist/config.js')
// @ts-expect-error the bundle has no types
const { buildServer } = await import('../dist/server.js')
const t1 = performance.now()
const app = await buildServer(loadConfig({ logLevel: 'silent', port: 0 }))
const t2 = performance.now()
console.log(app.printPlugins().split('\n').filter((l: string) => /[0-9]+ ms/.test(l) && !/ [0-4] ms/.test(l)).join('\n'))
console.log({ import: Math.round(t1 - t0), build: Math.round(t2 - t1) })
await app.close()
