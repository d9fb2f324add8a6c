import type { Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { api, build, tokenFor, userToken, type ApiRequest, type Credentials } from './helper.js'

// The overload guard (@fastify/under-pressure) reads "no event-loop sample in the last interval" as an
// infinite delay and answers 503 until the next sample. On the shared 2-core machine a starved process
// misses samples now and then (always right after an app is built: TypeScript is compiled on the fly).
// These tests are about tokens and tenants, not overload: they wait for a sample and retry such a 503,
// as a partner's client would after Retry-After. No other answer is retried.

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

/** Until the overload guard has a finite event-loop delay. */
export async function settled (app: FastifyInstance): Promise<void> {
  const guard = app as unknown as { memoryUsage: () => { eventLoopDelay: number } }
  for (let i = 0; i < 100 && !Number.isFinite(guard.memoryUsage().eventLoopDelay); i++) await sleep(50)
}

/** build() with a high event-loop delay limit, once the guard has sampled. */
export async function calmApp (t: Test, overrides: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = await build(t, { maxEventLoopDelay: 60000, ...overrides })
  await settled(app)
  return app
}

const overloaded = (err: unknown): boolean => /\b503\b.*overloaded/s.test(String((err as Error).message ?? err))

/** Runs fn again (up to 40 times) while the only problem is a spurious overload 503. */
export async function patiently<T> (fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn()
    } catch (err) {
      if (i >= 40 || !overloaded(err)) throw err
      await sleep(100)
    }
  }
}

/** api() of the helper (answers checked against the published document), retrying a spurious overload 503. */
export async function call (app: FastifyInstance, req: ApiRequest): Promise<LightMyRequestResponse> {
  return await patiently(async () => await api(app, req))
}

/** tokenFor() of the helper, retrying a spurious overload 503. */
export async function clientToken (app: FastifyInstance, who?: Credentials): Promise<string> {
  return await patiently(async () => await tokenFor(app, who))
}

/** userToken() of the helper, retrying a spurious overload 503. */
export async function loginToken (app: FastifyInstance, username: string, password: string, who?: Credentials): Promise<string> {
  return await patiently(async () => await userToken(app, username, password, who))
}
