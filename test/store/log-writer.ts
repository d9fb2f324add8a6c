// A process that writes to one partner's data dir as fast as it can, printing each change once its
// commit resolved (an acknowledged write). test/store/recovery.test.ts kills it with SIGKILL at random
// moments, with a compaction threshold so small that many kills land inside compactions.
//   node --import tsx test/store/log-writer.ts <dataDir> <compactBytes>
import { Partner } from '../../src/store/partner.js'
import { FilePersistence } from '../../src/store/persistence.js'
import type { PartnerSnapshot, StoredCustomer } from '../../src/store/records.js'

export function emptyPartner (): PartnerSnapshot {
  const seq = { customer: 0, account: 0, beneficiary: 0, message: 0 }
  return {
    format: 1,
    id: 'p-log',
    number: 1,
    name: 'Log test',
    secretHash: 'hmac-sha256$not-a-real-hash',
    redirectUris: [],
    registered: true,
    scenario: 'empty',
    seed: 1,
    users: [],
    guaranteeSeq: 0,
    guarantees: [],
    agents: [{ id: '1001', name: 'Agent', fresh: false, like: '1001', scenario: 'empty', seed: 1, seq, customers: [], accounts: [], beneficiaries: [], messages: [] }]
  }
}

/** A customer record (only its id matters to the store), its version in name1. */
export const customer = (customerId: string, version: number): StoredCustomer =>
  ({ customerId, customerReference: 'LOG', defaultCustomer: { entityTypeId: '5', name1: `v${version}` } }) as unknown as StoredCustomer

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [dir, compactBytes] = process.argv.slice(2)
  const files = new FilePersistence(dir, Number(compactBytes))
  const saved = await files.loadAll()
  const partner = new Partner(saved[0] ?? emptyPartner())
  files.adopt([partner])
  for (;;) {
    const agent = partner.agents.get('1001')!
    const version = Number(agent.nextId('customer').slice(-8))
    const n = agent.customers.length
    let ack: string
    if (n > 0 && version % 3 === 0) {
      // a change in place: the record at an index swapped for a new object
      const index = (version * 7) % n
      agent.replaceCustomer(customer(agent.customers[index].customerId, version))
      ack = `set ${index} ${version}`
    } else {
      agent.addCustomer(customer(`c${version}`, version))
      ack = `add c${version} ${version}`
    }
    await files.commit(partner)
    process.stdout.write(`${ack}\n`)
  }
}
