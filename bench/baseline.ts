// The bare Fastify baseline of the benchmark (run by bench/run.ts as a child process of its own):
// the two benchmarked routes with no token check, no schema, no logging, no store. It answers the
// same JSON bytes as the sandbox for GET /api/banks?page=0&size=10 (the sandbox's answer, captured
// by the runner and passed in BASELINE_BANKS_FILE) and a same-shaped body for POST messages.
// BASELINE_ANSWER_BATCHING=1 adds the one thing of the sandbox's that changes what the kernel charges per
// answer, src/plugins/answer-batching.ts, so that the bench can show what the rest of the sandbox costs.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import answerBatching from '../src/plugins/answer-batching.js'

const port = Number(process.env.PORT ?? 0)
const host = process.env.HOST ?? '127.0.0.1'
const banksFile = process.env.BASELINE_BANKS_FILE
if (banksFile === undefined) throw new Error('BASELINE_BANKS_FILE is not set')
const banks: unknown = JSON.parse(readFileSync(banksFile, 'utf8'))

interface MessageBody { message: string, fromDepartment: string, fromPerson: string }

const SAST_OFFSET_MS = 2 * 60 * 60 * 1000
let sequence = 0

const app = Fastify({ logger: false })
if (process.env.BASELINE_ANSWER_BATCHING === '1') await app.register(answerBatching)

app.get('/health', async () => ({ status: 'UP' }))

// serialised by Fastify (JSON.stringify, no response schema) on every request
app.get('/api/banks', async () => banks)

app.post<{ Params: { customerId: string }, Body: MessageBody }>('/api/customers/:customerId/messages', async (request) => {
  const { message, fromDepartment, fromPerson } = request.body
  sequence += 1
  // the sandbox's key order (its serialiser writes required properties first)
  return {
    message,
    fromDepartment,
    fromPerson,
    id: `${request.params.customerId.slice(0, 4)}4${String(sequence).padStart(8, '0')}`,
    dateCreated: new Date(Date.now() + SAST_OFFSET_MS).toISOString().slice(0, 23)
  }
})

await app.listen({ port, host })
process.once('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
