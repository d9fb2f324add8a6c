import { randomUUID } from 'node:crypto'
import t from 'tap'
import { randomUuid } from '../../src/uuids.js'
import { BYTES_KEPT_EACH, runInChild } from './child.js'

// RFC 9562 version 4: the version nibble is 4, the variant's top bits are 10 (8, 9, a or b)
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('request ids are random version 4 UUIDs, as randomUUID makes them', async (t) => {
  t.match(randomUUID(), V4, 'the form randomUUID writes')
  const seen = new Set<string>()
  // more than one batch of random bytes, so that a refill is crossed
  for (let i = 0; i < 2000; i++) {
    const id = randomUuid()
    if (!V4.test(id)) t.fail(`not a version 4 UUID: ${id}`)
    seen.add(id)
  }
  t.equal(seen.size, 2000, 'no id repeats')
  // every hex digit of the random positions turns up (the bytes are random, not a counter)
  const digits = new Set([...seen].flatMap((id) => [...id.replace(/-/g, '')]))
  t.equal(digits.size, 16)
})

/*
 * What a kept id costs the heap, measured after full collections in a child process (--expose-gc): Node's
 * randomUUID() joins its text from 20 pieces (a tree of cons strings), ours is one 36-character string.
 */
t.test('a kept request id is one flat string', async (t) => {
  const { node, ours } = JSON.parse(runInChild(`
    import { randomUUID } from 'node:crypto'
    import { randomUuid } from './src/uuids.ts'
    ${BYTES_KEPT_EACH}
    const bytesPerId = (make) => bytesKeptEach(20000, () => make())
    console.log(JSON.stringify({ node: bytesPerId(randomUUID), ours: bytesPerId(randomUuid) }))
  `, ['--expose-gc'])) as { node: number, ours: number }
  t.ok(ours <= 64, `one flat string of 36 characters (${ours.toFixed(1)} bytes)`)
  t.ok(node > ours + 100, `randomUUID's text keeps its pieces (${node.toFixed(1)} bytes)`)
})
