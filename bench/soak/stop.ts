import { Agent, request } from 'node:http'
import { clientToken, startSandbox } from './server.js'

/** What the clients saw in one SIGTERM-under-load round. */
export interface StopRound {
  answered: number
  /** answers other than 200 (a 503 is a request the stop refused instead of serving) */
  failedAnswers: number
  /** a request written on a kept-alive connection and then reset or hung up on, without an answer */
  resetsOnReusedConnection: number
  /** a reset on a new connection (the server accepted it, then dropped it) */
  resetsOnNewConnection: number
  /** connections refused once the server stopped listening (what a client should see) */
  refused: number
  exitCode: number | null
  stopMs: number
}

/**
 * Starts the sandbox, runs `connections` keep-alive clients (reads and creates) against it, sends SIGTERM
 * after `loadMs`, and counts how every request ended until the process exits.
 */
export async function stopRound (opts: { connections: number, loadMs: number, core?: number }): Promise<StopRound> {
  const sandbox = await startSandbox({}, opts.core)
  const token = await clientToken(sandbox.base, 'partner-a', 'partner-a-secret')
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections })
  const out: StopRound = { answered: 0, failedAnswers: 0, resetsOnReusedConnection: 0, resetsOnNewConnection: 0, refused: 0, exitCode: null, stopMs: 0 }
  // set by a refused connection (the server is gone) or the end of the round
  const state = { gone: false }
  const one = (i: number): Promise<void> => new Promise((resolve) => {
    const write = i % 4 === 0
    const body = JSON.stringify({ message: `SOAK ${i}`, fromDepartment: 'SOAK', fromPerson: 'STOP' })
    const req = request({
      host: '127.0.0.1',
      port: sandbox.port,
      agent,
      method: write ? 'POST' : 'GET',
      path: write ? '/api/customers/1001100000001/messages' : '/api/banks?page=0&size=10',
      headers: { authorization: `Bearer ${token}`, 'agent-id': '1001', ...(write ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) }
    }, (res) => {
      res.resume()
      res.on('end', () => {
        out.answered++
        if (res.statusCode !== 200) out.failedAnswers++
        resolve()
      })
      res.on('error', () => { out.resetsOnReusedConnection++; resolve() })
    })
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') {
        out.refused++
        state.gone = true
      } else if (req.reusedSocket) {
        out.resetsOnReusedConnection++
      } else {
        out.resetsOnNewConnection++
      }
      resolve()
    })
    req.end(write ? body : undefined)
  })
  let n = 0
  const loops = Array.from({ length: opts.connections }, async () => {
    while (!state.gone) await one(n++)
  })
  await new Promise((resolve) => setTimeout(resolve, opts.loadMs))
  const t0 = Date.now()
  sandbox.child.kill('SIGTERM')
  out.exitCode = await sandbox.exited
  out.stopMs = Date.now() - t0
  state.gone = true
  await Promise.all(loops)
  agent.destroy()
  return out
}
