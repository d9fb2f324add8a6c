import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import t from 'tap'
import { ProviderContext, providerContext } from '../../src/auth/provider-context.js'

/*
 * The identity provider's AsyncLocalStorage is switched off when none of its answers is under way
 * (src/auth/provider-context.ts): never while one is, and its next answer works as before.
 */

const response = (): ServerResponse => new EventEmitter() as unknown as ServerResponse

t.test('the storage is switched off when the last answer under way is done, not before', async (t) => {
  let disabled = 0
  const context = new ProviderContext({ disable: () => { disabled += 1 } })
  const a = response()
  const b = response()
  context.answer(a)
  context.answer(b)
  t.equal(context.underWay, 2)
  a.emit('close')
  t.equal(disabled, 0, 'one answer still under way')
  b.emit('close')
  t.equal(disabled, 1, 'switched off once the last is done')
  t.equal(context.underWay, 0)
  const c = response()
  context.answer(c)
  c.emit('close')
  t.equal(disabled, 2, 'and again after a later answer')
})

t.test("the provider's own storage: switched off, it answers nothing outside a run, and runs again", async (t) => {
  const { AsyncLocalStorage } = await import('node:async_hooks')
  const { default: storage } = await import('oidc-provider/lib/helpers/als.js')
  t.ok(storage instanceof AsyncLocalStorage, 'the module is the storage')
  t.type(await providerContext(), ProviderContext)
  const seen = await storage.run('ctx', async () => {
    await new Promise((resolve) => setImmediate(resolve))
    return storage.getStore()
  })
  t.equal(seen, 'ctx', 'the store follows the run across awaits')
  storage.disable()
  t.equal(storage.getStore(), undefined)
  t.equal(await storage.run('again', async () => { await Promise.resolve(); return storage.getStore() }), 'again', 'a run after the switch-off works')
  storage.disable()
})
