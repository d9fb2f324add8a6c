import t from 'tap'
import { startReceiver } from '../observability/otlp-receiver.js'
import { call, freePort, replicaSkip, startRedis, startReplicas, token } from './harness.js'

/*
 * Traces with replicas (issue 45): a request's round trip to Redis is a child span of its server span, and the
 * trace id of its traceparent reaches the journal that every replica reads through Redis.
 */

const skip = replicaSkip()
const PARTNER_TRACE = '5bf92f3577b34da6a3ce929d0e0e4737'
const PARTNER_SPAN = '10f067aa0ba902b8'

t.test("a request's Redis round is a span of its trace, and its journal entry keeps the trace id through Redis", { skip }, async (t) => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const redis = await startRedis(t)
  const publicUrl = `http://127.0.0.1:${await freePort()}`
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' }
  const [r1, r2] = await startReplicas(t, 2, { redisUrl: redis.url, publicUrl, env })
  const tok = await token(r1.base)

  const res = await fetch(`${r1.base}/api/banks`, { headers: { authorization: `Bearer ${tok}`, 'agent-id': '1001', traceparent: `00-${PARTNER_TRACE}-${PARTNER_SPAN}-01`, 'x-request-id': 'traced-on-replica-1' } })
  t.equal(res.status, 200)
  const server = await receiver.waitFor((s) => s.traceId === PARTNER_TRACE && s.kind === 2, 'of the request')
  t.equal(server.parentSpanId, PARTNER_SPAN, "continues the partner's trace")
  t.equal(server.attributes['sandbox.partner'], 'partner-a')
  const round = await receiver.waitFor((s) => s.traceId === PARTNER_TRACE && s.name === 'sandbox.store.round', 'of its Redis round')
  t.equal(round.parentSpanId, server.spanId, "the round is a child of the request's span")
  t.match(round.attributes, { 'sandbox.partner': 'partner-a', 'db.system.name': 'redis' })

  // filed by replica 1, read from replica 2: the trace id travelled through Redis
  let found = await call(r2.base, tok, 'GET', `/__sandbox/requests?traceId=${PARTNER_TRACE}`)
  // (a replica files a request right after its answer: a read sent at once may come before it, on a busy machine)
  for (let i = 0; i < 30 && found.json.total === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    found = await call(r2.base, tok, 'GET', `/__sandbox/requests?traceId=${PARTNER_TRACE}`)
  }
  t.equal(found.status, 200)
  t.match(found.json.requests, [{ requestId: 'traced-on-replica-1', traceId: PARTNER_TRACE }], "replica 2 finds replica 1's entry by the partner's trace id")
  t.equal(found.json.total, 1)
})
