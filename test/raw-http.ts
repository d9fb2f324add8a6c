import { connect } from 'node:net'

export interface RawAnswer {
  /** Everything the server wrote before it closed the connection (or the wait ended). */
  text: string
  status: number
  headers: Record<string, string>
  body: string
  /** How the connection ended: closed by the server, reset, or still open when the wait ended. */
  ended: 'closed' | 'reset' | 'open'
}

/**
 * Writes bytes on a new connection to 127.0.0.1 and reads the first answer (HTTP/1.1 over a socket, no client
 * library); with untilClose, everything until the server closes the connection or the wait ends.
 */
export async function rawExchange (port: number, data: string | Buffer, waitMs = 2000, untilClose = false): Promise<RawAnswer> {
  const chunks: Buffer[] = []
  const ended = await new Promise<RawAnswer['ended']>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data))
    const timer = setTimeout(() => { socket.destroy(); resolve('open') }, waitMs)
    socket.on('data', (d: Buffer) => {
      chunks.push(d)
      // one complete answer with a Content-Length is enough: keep-alive connections stay open
      const text = Buffer.concat(chunks).toString('latin1')
      const head = text.indexOf('\r\n\r\n')
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, head))
      if (!untilClose && head !== -1 && length !== null && text.length - head - 4 >= Number(length[1]) && !/^HEAD /.test(String(data))) {
        clearTimeout(timer)
        socket.destroy()
        resolve('open')
      }
    })
    socket.on('error', () => { clearTimeout(timer); resolve('reset') })
    socket.on('close', () => { clearTimeout(timer); resolve('closed') })
  })
  const text = Buffer.concat(chunks).toString('utf8')
  const head = text.indexOf('\r\n\r\n')
  const lines = (head === -1 ? text : text.slice(0, head)).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':')
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim()
  }
  return { text, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0])?.[1] ?? 0), headers, body: head === -1 ? '' : text.slice(head + 4), ended }
}
