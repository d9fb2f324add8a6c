import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { buildServer, hostTracing } from '../../src/server.js'
import { SIGNING_KEY, freePort } from '../helper.js'

/*
 * A sandbox in a host's process (the library): it traces over the tracer provider the host registered with the
 * OpenTelemetry API, starts no SDK of its own, and several sandboxes of one process each trace their own requests.
 */

t.test('without a tracer provider registered by the host, a sandbox in its process has no tracing', async (t) => {
  t.equal(await hostTracing(), undefined)
})

t.test("with the host's tracer provider, each sandbox of the process traces its requests into it", async (t) => {
  // what a host does: its own SDK, registered for its process (OpenTelemetry's in-memory exporter stands for its backend)
  const { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-node')
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  provider.register()
  t.teardown(async () => await provider.shutdown())
  const { context, propagation, trace } = await import('@opentelemetry/api')

  const sandboxes = await Promise.all(['one', 'two'].map(async (name) => {
    const tracing = await hostTracing()
    t.ok(tracing, `sandbox ${name}: tracing over the host's provider`)
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const app = await buildServer(loadConfig({ logLevel: 'silent', signingKey: SIGNING_KEY, publicUrl: base, port, host: '127.0.0.1', maxEventLoopDelay: 60000 }), undefined, { tracing })
    await app.listen({ port, host: '127.0.0.1' })
    t.teardown(async () => await app.close())
    return { name, base }
  }))

  // the host's own span around its calls: the sandboxes' spans continue it through the host's propagator
  const hostSpan = trace.getTracer('host').startSpan('host test')
  const traceId = hostSpan.spanContext().traceId
  await context.with(trace.setSpan(context.active(), hostSpan), async () => {
    for (const s of sandboxes) {
      const headers: Record<string, string> = {}
      propagation.inject(context.active(), headers)
      const res = await fetch(`${s.base}/api/products`, { headers: { ...headers, 'x-request-id': `host-${s.name}` } })
      t.equal(res.status, 401, `sandbox ${s.name} answered (no token: 401)`)
    }
  })
  hostSpan.end()
  const servers = exporter.getFinishedSpans().filter((s) => s.name === 'GET /api/products')
  t.equal(servers.length, 2, 'one server span per sandbox')
  t.ok(servers.every((s) => s.spanContext().traceId === traceId && s.parentSpanContext?.spanId === hostSpan.spanContext().spanId), "both in the host's trace, children of its span")
  t.ok(servers.every((s) => s.attributes['http.response.status_code'] === 401 && s.status.code === 0), 'a 401 is no error of the server span')
  t.equal((trace.getTracerProvider() as unknown as { getDelegate: () => unknown }).getDelegate(), provider, "the process's provider is still the host's: the sandboxes registered none")
})
