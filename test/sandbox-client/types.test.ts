import { readFileSync } from 'node:fs'
import t from 'tap'
import { clientTypes, GENERATED } from '../../scripts/client-types.js'
import { SandboxClient } from '../../src/client/index.js'
import { listen } from '../helper.js'

/*
 * SandboxClient cannot drift from the sandbox: its types are what a running sandbox serves, and every
 * operation of the control document has its method.
 */

t.test('the committed client types are what a running sandbox serves', async (t) => {
  const { base } = await listen(t)
  for (const { file, source } of await clientTypes(base)) {
    t.equal(readFileSync(new URL(file, GENERATED), 'utf8'), source, `src/client/generated/${file} is up to date: run \`npx tsx scripts/client-types.ts\``)
  }
})

t.test('every operation of the control document has a SandboxClient method of its operationId', async (t) => {
  const { base } = await listen(t)
  const doc = await (await fetch(`${base}/__sandbox/docs/openapi.json`)).json() as { paths: Record<string, Record<string, { operationId?: string }>> }
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, id: op.operationId })))
  t.ok(operations.length >= 40, `the document lists the control API (${operations.length} operations)`)
  const client = new SandboxClient({ baseUrl: base, clientId: 'partner-a', clientSecret: 'partner-a-secret' })
  for (const { name, id } of operations) {
    t.type(id, 'string', `${name} has an operationId`)
    t.type((client as unknown as Record<string, unknown>)[id ?? ''], 'function', `${name}: SandboxClient.${String(id)}()`)
  }
})
