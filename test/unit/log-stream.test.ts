import { execFileSync } from 'node:child_process'
import t from 'tap'

/*
 * The batched standard output (src/plugins/log-stream.ts) in a process of its own (it owns fd 1): every
 * line arrives whole and in order, multi-byte characters intact, across batch boundaries, with a line
 * longer than a batch among them, deferred lines (formatted when written) in their place among the others
 * (one whose formatting fails reported there), and what is pending is written at exit.
 */
t.test('the log output keeps every line whole and in order across batches, and writes what is pending at exit', async (t) => {
  const script = `
    const { logDestination } = await import(${JSON.stringify(new URL('../../src/plugins/log-stream.ts', import.meta.url).href)})
    const out = logDestination()
    const format = (r) => JSON.stringify(r) + '\\n'
    for (let i = 0; i < 3000; i++) {
      const record = { i, text: 'Zoë Ndlovu → R1 000 ✓ '.repeat(i % 7) }
      if (i % 5 === 0) out.write(format(record)); else out.defer(format, record)
    }
    out.write(JSON.stringify({ big: 'é'.repeat(40000) }) + '\\n')
    out.write('{"last":true}\\n')
    out.defer(() => { throw new Error('broken record') }, {})
    out.defer(format, { deferred: 'last' })
  `
  const stdout = execFileSync(process.execPath, [...process.execArgv, '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const lines = stdout.split('\n')
  t.equal(lines.pop(), '', 'ends with a newline')
  t.equal(lines.length, 3004)
  for (let i = 0; i < 3000; i++) {
    const expected = JSON.stringify({ i, text: 'Zoë Ndlovu → R1 000 ✓ '.repeat(i % 7) })
    if (lines[i] !== expected) { t.equal(lines[i], expected, `line ${i}`); return }
  }
  t.equal((JSON.parse(lines[3000]) as { big: string }).big.length, 40000, 'a line longer than a batch arrives whole')
  t.equal(lines[3001], '{"last":true}')
  t.match(JSON.parse(lines[3002]), { level: 50, msg: 'a log line could not be formatted' }, 'a line that cannot be formatted is reported in its place')
  t.equal(lines[3003], '{"deferred":"last"}', 'the pending batch, deferred lines included, is written at exit')
})
