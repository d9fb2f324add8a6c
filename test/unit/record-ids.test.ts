import t from 'tap'
import { AgentStore } from '../../src/store/agent.js'
import type { RecordKind } from '../../src/store/records.js'
import { BYTES_KEPT_EACH, runInChild } from './child.js'

const KINDS: Array<[RecordKind, string]> = [['customer', '1'], ['account', '2'], ['beneficiary', '3'], ['message', '4']]

function agentAt (id: string, seq: number): AgentStore {
  return new AgentStore({
    id,
    name: 'Agent',
    fresh: false,
    like: id,
    scenario: 'default',
    seed: 1,
    seq: { customer: seq, account: seq, beneficiary: seq, message: seq },
    customers: [],
    accounts: [],
    beneficiaries: [],
    messages: []
  })
}

// the id scheme (src/store/agent.ts): agent id, kind digit, 8-digit sequence (more digits past 99,999,999)
t.test('an id is the agent id, the kind digit and the sequence, whichever way it is made', async (t) => {
  // 1001: made as a number; 9007198: the largest whose ids are all safe integers; the rest as text (a leading
  // zero, ids past 2^53, zero)
  for (const agentId of ['1001', '7', '9007198', '9007199', '0123', '12345678', '0']) {
    for (const seq of [0, 41, 99_999_998, 99_999_999, 123_456_789]) {
      const agent = agentAt(agentId, seq)
      for (const [kind, digit] of KINDS) {
        const expected = `${agentId}${digit}${String(seq + 1).padStart(8, '0')}`
        t.equal(agent.nextId(kind), expected, `agent ${agentId}, ${kind} after ${seq}`)
        t.equal(agent.seq[kind], seq + 1)
      }
    }
  }
})

/*
 * What a kept id costs the heap, measured after full collections in a child process (--expose-gc): the id a
 * create made (nextId) against the same text joined from its three parts, as nextId made it before (a cons
 * string of three objects). Every stored record keeps its id for life.
 */
t.test('a kept id is one flat string', async (t) => {
  const { joined, made } = JSON.parse(runInChild(`
    import { AgentStore } from './src/store/agent.ts'
    ${BYTES_KEPT_EACH}
    const bytesPerId = (make) => bytesKeptEach(50000, make)
    const seq = { customer: 0, account: 0, beneficiary: 0, message: 0 }
    const agent = new AgentStore({ id: '1001', name: 'A', fresh: false, like: '1001', scenario: 'default', seed: 1, seq, customers: [], accounts: [], beneficiaries: [], messages: [] })
    const [agentId, digit] = process.argv.slice(-2)
    const joined = bytesPerId((i) => \`\${agentId}\${digit}\${String(i + 1).padStart(8, '0')}\`)
    const made = bytesPerId(() => agent.nextId('message'))
    console.log(JSON.stringify({ joined, made }))
  `, ['--expose-gc'], ['1001', '4'])) as { joined: number, made: number }
  t.ok(made < 40, `a made id keeps one flat string of 13 characters (${made.toFixed(1)} bytes)`)
  t.ok(joined > made + 16, `the joined text keeps three objects (${joined.toFixed(1)} bytes)`)
})
