import t from 'tap'
import { runInChild } from './child.js'

/*
 * Stored messages made from the same request body, as a partner's test suite sends it over and over (W2 of
 * bench/run.ts): the heap each one keeps, measured after full collections in a child process (--expose-gc).
 * The control keeps the parsed body's own strings, as the store did before src/store/intern.ts; a create
 * (messageTexts, then buildMessage) keeps one copy of each text, so a message costs its record and its id.
 */
const bytesPerMessage = (): { control: number, stored: number } => JSON.parse(runInChild(`
  import { buildMessage, messageTexts } from './src/store/messages.ts'
  const body = JSON.stringify({ message: 'YOUR STATEMENT FOR OCTOBER IS READY.', fromDepartment: 'CARD SERVICES', fromPerson: 'THANDI MOKOENA' })
  const N = 50000
  const perMessage = (make) => {
    globalThis.gc()
    const before = process.memoryUsage().heapUsed
    const kept = []
    for (let i = 0; i < N; i++) kept.push(make(JSON.parse(body), String(1000000000000 + i)))
    globalThis.gc()
    const bytes = (process.memoryUsage().heapUsed - before) / N
    return kept.length === N ? bytes : NaN
  }
  const control = perMessage((req, id) => ({ id, message: req.message, fromDepartment: req.fromDepartment, fromPerson: req.fromPerson, dateCreated: 'D', customerId: 'C' }))
  const stored = perMessage((req, id) => buildMessage(undefined, 'C', messageTexts(req), 'D', id))
  console.log(JSON.stringify({ control, stored }))
`, ['--expose-gc'])) as { control: number, stored: number }

t.test('a message stored from a repeated body keeps one copy of its texts', async (t) => {
  const { control, stored } = bytesPerMessage()
  t.ok(control > 150, `the control keeps the body's three texts with each message (${Math.round(control)} bytes)`)
  t.ok(stored < control - 80, `a stored message keeps its record and id only (${Math.round(stored)} bytes against ${Math.round(control)})`)
})
