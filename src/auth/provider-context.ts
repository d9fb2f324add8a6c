import type { AsyncLocalStorage } from 'node:async_hooks'
import type { ServerResponse } from 'node:http'

/**
 * oidc-provider keeps the context of the request it answers in an AsyncLocalStorage of its own. On Node 22
 * such a storage works through async hooks, and its first use switches them on for the whole process, for
 * good: from the first token on, every promise of every API request paid for them. The provider needs its
 * storage only while it answers, so the storage is switched off whenever no answer of the provider is under
 * way, and the provider's next answer switches it on again (AsyncLocalStorage.run does that). On Node 24 the
 * storage costs nothing while unused, and switching it off changes nothing.
 */
export class ProviderContext {
  private answering = 0

  constructor (private readonly storage: Pick<AsyncLocalStorage<unknown>, 'disable'>) {}

  /** A request the provider answers: its storage stays on at least until that answer is done. */
  answer (res: ServerResponse): void {
    this.answering += 1
    res.once('close', () => {
      this.answering -= 1
      if (this.answering === 0) this.storage.disable()
    })
  }

  /** How many answers of the provider are under way. */
  get underWay (): number { return this.answering }
}

/** The provider's own storage (its module, lib/helpers/als.js, is the one instance the provider uses). */
export async function providerContext (): Promise<ProviderContext> {
  const { default: storage } = await import('oidc-provider/lib/helpers/als.js')
  return new ProviderContext(storage)
}
