// oidc-provider's request context storage: not part of its typed interface (auth/provider-context.ts)
declare module 'oidc-provider/lib/helpers/als.js' {
  import type { AsyncLocalStorage } from 'node:async_hooks'
  const storage: AsyncLocalStorage<unknown>
  export default storage
}
