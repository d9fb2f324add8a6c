import t from 'tap'
// newman ships no types: its run() is called as its README shows
// @ts-expect-error no declaration file
import newman from 'newman'
import { listen } from '../helper.js'

interface Execution { item: { name: string }, request: { method: string, url: { toString: () => string } }, response?: { code: number } }
interface Summary { run: { failures: Array<{ error: { message: string }, source?: { name?: string } }>, executions: Execution[], stats: { requests: { total: number } } } }

async function run (options: Record<string, unknown>): Promise<Summary> {
  return await new Promise((resolve, reject) => {
    (newman as { run: (o: unknown, cb: (err: Error | null, s: Summary) => void) => void }).run({ reporters: [], timeoutRequest: 10000, ...options }, (err, summary) => err === null || err === undefined ? resolve(summary) : reject(err))
  })
}

t.test('newman runs the published Postman collection with every request green', async (t) => {
  const { base } = await listen(t)
  const collection = await (await fetch(`${base}/api/docs/postman.json`)).json() as { auth: { type: string }, item: unknown[] }
  const environment = await (await fetch(`${base}/api/docs/postman-environment.json`)).json()
  t.equal(collection.auth.type, 'oauth2', 'collection-level OAuth 2.0')
  const summary = await run({ collection, environment })
  const codes = summary.run.executions.map((e) => `${e.request.method} ${e.request.url.toString()} -> ${e.response?.code ?? 'no answer'}`)
  t.equal(summary.run.stats.requests.total, 19, 'every operation of the document (and the token request)')
  t.same(summary.run.failures.map((f) => `${f.source?.name ?? ''}: ${f.error.message}`), [], 'no failure')
  for (const line of codes) t.match(line, /-> 2\d\d$/, line)
})
