import { setImmediate as nextTurn } from 'node:timers/promises'
import Fastify, { type FastifyReply } from 'fastify'
import t from 'tap'
import answerBatching, { AnswerBatch } from '../../src/plugins/answer-batching.js'

/** A reply as AnswerBatch sees one: what it calls when a write fails. */
function fakeReply (sendThrows = false): FastifyReply & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    sent: false,
    raw: { headersSent: false, destroy: () => { calls.push('destroy') } },
    log: { error: (_obj: unknown, msg: string) => { calls.push(`log: ${msg}`) } },
    send: (err: Error) => {
      calls.push(`send: ${err.message}`)
      if (sendThrows) throw new Error('the error answer failed too')
    }
  } as unknown as FastifyReply & { calls: string[] }
}

t.test('the answers of one turn are written together when the turn ends, in the order they were sent', async (t) => {
  const batch = new AnswerBatch(10)
  const written: number[] = []
  for (let i = 0; i < 3; i++) batch.add(fakeReply(), () => { written.push(i) })
  t.same(written, [], 'nothing is written while the turn goes on')
  await nextTurn()
  t.same(written, [0, 1, 2])
  batch.add(fakeReply(), () => { written.push(3) })
  await nextTurn()
  t.same(written, [0, 1, 2, 3], 'a later answer makes a batch of its own')
})

t.test('a full batch is written at once, and every answer is written exactly once', async (t) => {
  const batch = new AnswerBatch(4)
  const written: number[] = []
  for (let i = 0; i < 3; i++) batch.add(fakeReply(), () => { written.push(i) })
  t.same(written, [])
  batch.add(fakeReply(), () => { written.push(3) })
  t.same(written, [0, 1, 2, 3], 'the fourth answer fills the batch: all four are written without waiting')
  batch.add(fakeReply(), () => { written.push(4) })
  t.same(written, [0, 1, 2, 3], 'the next answer waits for the end of the turn')
  await nextTurn()
  await nextTurn()
  t.same(written, [0, 1, 2, 3, 4])
})

t.test('an answer whose write throws is answered with the error, and the rest of its batch is still written', async (t) => {
  const batch = new AnswerBatch(10)
  const written: number[] = []
  const failing = fakeReply()
  const failingTwice = fakeReply(true)
  batch.add(fakeReply(), () => { written.push(0) })
  batch.add(failing, () => { throw new TypeError('Invalid character in header content ["x-bad"]') })
  batch.add(failingTwice, () => { throw new TypeError('Invalid character in header content ["x-worse"]') })
  batch.add(fakeReply(), () => { written.push(3) })
  await nextTurn()
  t.same(written, [0, 3])
  t.same(failing.calls, ['send: Invalid character in header content ["x-bad"]'], 'answered as Fastify answers an error thrown while sending')
  t.same(failingTwice.calls, [
    'send: Invalid character in header content ["x-worse"]',
    'log: the answer could not be written; the connection is closed',
    'destroy'
  ], 'when the error cannot be answered either, it is logged and the connection closed')
})

t.test('with the plugin, reply.send leaves the write to the end of the turn; every answer arrives', async (t) => {
  for (const batching of [true, false]) {
    const app = Fastify()
    if (batching) await app.register(answerBatching)
    const endedAtSend: boolean[] = []
    app.get('/echo/:n', (request, reply) => {
      reply.send({ n: Number((request.params as { n: string }).n) })
      endedAtSend.push(reply.raw.writableEnded)
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    t.teardown(() => app.close())
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const answers = await Promise.all(Array.from({ length: 150 }, async (_, n) => {
      const res = await fetch(`${base}/echo/${n}`)
      return { status: res.status, body: await res.json() as { n: number } }
    }))
    t.same(answers.map((a) => a.status), Array(150).fill(200), `${batching ? 'batched' : 'unbatched'}: 150 concurrent requests, all answered`)
    t.same(answers.map((a) => a.body.n), Array.from({ length: 150 }, (_, n) => n), 'each with its own body')
    t.same(new Set(endedAtSend), new Set([!batching]), batching ? 'not written when reply.send returns' : 'without the plugin, written before reply.send returns')
  }
})

t.test('a header Node refuses to write gets the answer it gets without batching, and the server goes on serving', async (t) => {
  const seen: Array<{ status: number, body: string }> = []
  for (const batching of [false, true]) {
    const app = Fastify()
    if (batching) await app.register(answerBatching)
    app.get('/bad', (_request, reply) => { reply.header('x-bad', 'line\nbreak').send({ ok: true }) })
    app.get('/ok', async () => ({ ok: true }))
    await app.listen({ port: 0, host: '127.0.0.1' })
    t.teardown(() => app.close())
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const res = await fetch(`${base}/bad`)
    seen.push({ status: res.status, body: await res.text() })
    t.equal((await fetch(`${base}/ok`)).status, 200, `${batching ? 'batched' : 'unbatched'}: the next request is served`)
  }
  t.equal(seen[0].status, 500, 'Fastify answers the write error with a 500')
  t.same(seen[1], seen[0], 'the same answer with batching')
})
