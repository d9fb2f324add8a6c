import { createServer } from 'node:net'

/** A free TCP port on 127.0.0.1 (the issuer embeds the public URL, so the port is chosen before the app is built). */
export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}
