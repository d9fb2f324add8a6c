// An OTLP/HTTP trace receiver that keeps nothing (bench/tracing.ts runs it as a process of its own, so that its
// work is not the load generator's): POST /v1/traces is answered 200 at once and the spans of the export are
// counted from the protobuf's framing (ExportTraceServiceRequest: resource_spans 1 > scope_spans 2 > spans 2),
// without decoding them; GET /counts answers what arrived. Prints its port on stdout once it listens.
import { createServer } from 'node:http'

let exports = 0
let spans = 0
let bytes = 0

/** The length-delimited fields numbered n of a message, as [start, end) ranges (other wire types skipped). */
function fields (buf: Buffer, from: number, to: number, n: number): Array<[number, number]> {
  const out: Array<[number, number]> = []
  let i = from
  const varint = (): number => {
    let v = 0
    let mul = 1
    for (;;) {
      const b = buf[i++]
      v += (b & 0x7f) * mul
      if ((b & 0x80) === 0) return v
      mul *= 128
    }
  }
  while (i < to) {
    const key = varint()
    const type = key & 7
    if (type === 0) varint()
    else if (type === 1) i += 8
    else if (type === 5) i += 4
    else if (type === 2) {
      const len = varint()
      if (key >>> 3 === n) out.push([i, i + len])
      i += len
    } else return out
  }
  return out
}

function spansIn (body: Buffer): number {
  let count = 0
  for (const [a, b] of fields(body, 0, body.length, 1)) {
    for (const [c, d] of fields(body, a, b, 2)) count += fields(body, c, d, 2).length
  }
  return count
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/counts') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports, spans, bytes }))
    return
  }
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    const body = Buffer.concat(chunks)
    exports += 1
    bytes += body.length
    spans += spansIn(body)
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
  })
})
server.listen(0, '127.0.0.1', () => { process.stdout.write(`${(server.address() as { port: number }).port}\n`) })
