import t from 'tap'
import { ConfigError } from '../../src/config.js'
import { parseTraceparent } from '../../src/observe/trace-context.js'
import { tracingSettings } from '../../src/observe/tracing.js'

/* The two decisions tracing takes without OpenTelemetry: what a traceparent header says, and whether traces are asked for. */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT = '00f067aa0ba902b7'

t.test('a valid traceparent gives its trace id, parent id and flags', async (t) => {
  t.same(parseTraceparent(`00-${TRACE}-${PARENT}-01`), { traceId: TRACE, parentId: PARENT, flags: 1 })
  t.same(parseTraceparent(`00-${TRACE}-${PARENT}-00`), { traceId: TRACE, parentId: PARENT, flags: 0 }, 'not sampled')
  t.same(parseTraceparent(`cc-${TRACE}-${PARENT}-01-what-a-later-version-adds`), { traceId: TRACE, parentId: PARENT, flags: 1 }, 'a later version is read by its first four fields')
  t.same(parseTraceparent(`cc-${TRACE}-${PARENT}-01`), { traceId: TRACE, parentId: PARENT, flags: 1 }, 'and may have only those')
})

t.test('an invalid traceparent is ignored, as the W3C recommendation says', async (t) => {
  for (const [header, why] of [
    [undefined, 'none'],
    ['', 'empty'],
    ['garbage', 'not the format'],
    [`00-${'0'.repeat(32)}-${PARENT}-01`, 'an all-zero trace id'],
    [`00-${TRACE}-${'0'.repeat(16)}-01`, 'an all-zero parent id'],
    [`00-${TRACE.toUpperCase()}-${PARENT}-01`, 'upper-case hex'],
    [`ff-${TRACE}-${PARENT}-01`, 'version ff'],
    [`00-${TRACE}-${PARENT}-01-more`, 'version 00 with a fifth field'],
    [`00-${TRACE}-${PARENT}-01, 00-${TRACE}-${PARENT}-01`, 'sent twice (Node joins them)'],
    [`00-${TRACE.slice(1)}-${PARENT}-01`, 'a trace id one digit short'],
    [`00-${TRACE}-${PARENT}-1`, 'flags one digit short'],
    [`0-${TRACE}-${PARENT}-01`, 'version one digit short'],
    [`00-${TRACE}-${PARENT}-0g`, 'a flag that is no hex'],
    [`cc-${TRACE}-${PARENT}-01x`, 'a later version without the dash before its further fields'],
    [[`00-${TRACE}-${PARENT}-01`], 'an array']
  ] as const) {
    t.equal(parseTraceparent(header as string | string[] | undefined), undefined, why)
  }
})

t.test('traces are asked for by the standard OTEL_* variables', async (t) => {
  const endpoint = 'http://collector:4318'
  t.equal(tracingSettings({}), null, 'nothing set: off, and nothing of OpenTelemetry is loaded')
  t.same(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), { protocol: 'http/protobuf' }, 'an endpoint (the exporter defaults to otlp): on, http/protobuf by default')
  t.same(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }), { protocol: 'http/protobuf' }, 'the traces endpoint too')
  t.same(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' }), { protocol: 'http/protobuf' }, 'otlp without an endpoint: the exporter sends to localhost:4318')
  t.same(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), { protocol: 'http/json' })
  t.same(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'HTTP/JSON' }), { protocol: 'http/json' }, "the traces' own protocol wins, in any case")
  t.equal(tracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), null, 'none: off, whatever the endpoint')
  t.equal(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' }), null, 'OTEL_SDK_DISABLED=true: off')
  t.same(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'false' }), { protocol: 'http/protobuf' }, 'OTEL_SDK_DISABLED=false: on')
  t.equal(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), null, 'an empty variable is unset')
  t.throws(() => tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp,console' }), new ConfigError('OTEL_TRACES_EXPORTER = "otlp,console": the sandbox exports traces over OTLP only (otlp), or none to turn them off'))
  t.throws(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }), { name: 'ConfigError', message: /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL = "grpc"/ })
  t.equal(tracingSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), null, 'a protocol alone asks for nothing')
})
