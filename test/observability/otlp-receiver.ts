import { createServer, type Server } from 'node:http'
import { gunzipSync } from 'node:zlib'

/*
 * An OTLP/HTTP trace receiver of the tests' own (POST /v1/traces), as a collector is one: it decodes what the
 * sandbox exports, http/json as JSON and http/protobuf by the wire format (a small decoder of the fields of
 * opentelemetry/proto/collector/trace/v1/trace_service.proto and the messages it uses; the OTLP packages ship
 * an encoder only), into one form.
 */

export type Value = string | number | boolean | null

export interface ReceivedSpan {
  traceId: string
  spanId: string
  /** '' for a root span. */
  parentSpanId: string
  name: string
  /** 1 internal, 2 server, 3 client (the proto's SpanKind). */
  kind: number
  attributes: Record<string, Value>
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number, message: string }
  /** The resource's attributes (service.name ...) and the scope's name. */
  resource: Record<string, Value>
  scope: string
}

export interface Receiver {
  url: string
  spans: ReceivedSpan[]
  /** The Content-Type of each export received. */
  contentTypes: string[]
  /** Resolves once a span passes the test (the sandbox exports in batches, every OTEL_BSP_SCHEDULE_DELAY ms). */
  waitFor: (test: (span: ReceivedSpan) => boolean, what: string) => Promise<ReceivedSpan>
  close: () => Promise<void>
}

// --- protobuf wire format (https://protobuf.dev/programming-guides/encoding/) ---

type Field = { n: number, varint: bigint } | { n: number, bytes: Buffer } | { n: number, fixed: Buffer }

function fields (buf: Buffer): Field[] {
  const out: Field[] = []
  let i = 0
  const varint = (): bigint => {
    let v = 0n
    let shift = 0n
    for (;;) {
      const b = buf[i++]
      v |= BigInt(b & 0x7f) << shift
      if ((b & 0x80) === 0) return v
      shift += 7n
    }
  }
  while (i < buf.length) {
    const key = Number(varint())
    const n = key >>> 3
    const type = key & 7
    if (type === 0) out.push({ n, varint: varint() })
    else if (type === 1) { out.push({ n, fixed: buf.subarray(i, i + 8) }); i += 8 } else if (type === 5) { out.push({ n, fixed: buf.subarray(i, i + 4) }); i += 4 } else if (type === 2) {
      const len = Number(varint())
      out.push({ n, bytes: buf.subarray(i, i + len) })
      i += len
    } else throw new Error(`protobuf wire type ${type} at ${i}`)
  }
  return out
}

const all = (fs: Field[], n: number): Buffer[] => fs.filter((f): f is { n: number, bytes: Buffer } => f.n === n && 'bytes' in f).map((f) => f.bytes)
const one = (fs: Field[], n: number): Buffer | undefined => all(fs, n)[0]
const text = (fs: Field[], n: number): string => one(fs, n)?.toString('utf8') ?? ''
const number = (fs: Field[], n: number): number => Number((fs.find((f) => f.n === n && 'varint' in f) as { varint: bigint } | undefined)?.varint ?? 0n)

/** AnyValue: string 1, bool 2, int 3, double 4 (arrays and maps are not used by the sandbox). */
function anyValue (buf: Buffer): Value {
  const f = fields(buf)[0]
  if (f === undefined) return null
  if (f.n === 1 && 'bytes' in f) return f.bytes.toString('utf8')
  if (f.n === 2 && 'varint' in f) return f.varint !== 0n
  if (f.n === 3 && 'varint' in f) return Number(BigInt.asIntN(64, f.varint))
  if (f.n === 4 && 'fixed' in f) return f.fixed.readDoubleLE(0)
  return null
}

/** Repeated KeyValue (key 1, value 2) at field n. */
function protoAttributes (fs: Field[], n: number): Record<string, Value> {
  const out: Record<string, Value> = {}
  for (const kv of all(fs, n)) {
    const f = fields(kv)
    out[text(f, 1)] = anyValue(one(f, 2) ?? Buffer.alloc(0))
  }
  return out
}

/** ExportTraceServiceRequest: resource_spans 1 { resource 1 { attributes 1 }, scope_spans 2 { scope 1 { name 1 }, spans 2 } }. */
function fromProtobuf (body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = []
  for (const rs of all(fields(body), 1)) {
    const rsf = fields(rs)
    const resource = protoAttributes(fields(one(rsf, 1) ?? Buffer.alloc(0)), 1)
    for (const ss of all(rsf, 2)) {
      const ssf = fields(ss)
      const scope = text(fields(one(ssf, 1) ?? Buffer.alloc(0)), 1)
      for (const s of all(ssf, 2)) {
        // Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9, status 15 { message 2, code 3 }
        const f = fields(s)
        const status = fields(one(f, 15) ?? Buffer.alloc(0))
        out.push({
          traceId: one(f, 1)?.toString('hex') ?? '',
          spanId: one(f, 2)?.toString('hex') ?? '',
          parentSpanId: one(f, 4)?.toString('hex') ?? '',
          name: text(f, 5),
          kind: number(f, 6),
          attributes: protoAttributes(f, 9),
          status: { code: number(status, 3), message: text(status, 2) },
          resource,
          scope
        })
      }
    }
  }
  return out
}

// --- OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): ids as hex, 64-bit ints as strings ---

interface JsonValue { stringValue?: string, boolValue?: boolean, intValue?: string | number, doubleValue?: number }
interface JsonKeyValue { key: string, value: JsonValue }

function jsonAttributes (list: JsonKeyValue[] | undefined): Record<string, Value> {
  const out: Record<string, Value> = {}
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? null
  }
  return out
}

interface JsonExport {
  resourceSpans?: Array<{
    resource?: { attributes?: JsonKeyValue[] }
    scopeSpans?: Array<{
      scope?: { name?: string }
      spans?: Array<{ traceId: string, spanId: string, parentSpanId?: string, name: string, kind?: number, attributes?: JsonKeyValue[], status?: { code?: number, message?: string } }>
    }>
  }>
}

function fromJson (body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = []
  for (const rs of (JSON.parse(body.toString('utf8')) as JsonExport).resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes)
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind ?? 0,
          attributes: jsonAttributes(s.attributes),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          resource,
          scope: ss.scope?.name ?? ''
        })
      }
    }
  }
  return out
}

/** Listens on a free port of 127.0.0.1; every export is answered 200 with an empty ExportTraceServiceResponse. */
export async function startReceiver (): Promise<Receiver> {
  const spans: ReceivedSpan[] = []
  const contentTypes: string[] = []
  const waiters = new Set<() => void>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end()
        return
      }
      let body = Buffer.concat(chunks)
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body)
      const type = req.headers['content-type'] ?? ''
      contentTypes.push(type)
      spans.push(...(type.startsWith('application/json') ? fromJson(body) : fromProtobuf(body)))
      for (const wake of waiters) wake()
      if (type.startsWith('application/json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const waitFor = async (test: (span: ReceivedSpan) => boolean, what: string): Promise<ReceivedSpan> => {
    const found = spans.find(test)
    if (found !== undefined) return found
    return await new Promise((resolve, reject) => {
      // not a timed assertion: a bound on waiting, so that a missing span fails the test with its name
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`no span ${what} in ${spans.length} received: ${spans.map((s) => s.name).join(', ')}`))
      }, 20_000)
      const check = (): void => {
        const span = spans.find(test)
        if (span === undefined) return
        clearTimeout(timer)
        waiters.delete(check)
        resolve(span)
      }
      waiters.add(check)
    })
  }
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    waitFor,
    close: async () => { await new Promise<void>((resolve) => server.close(() => resolve())) }
  }
}
