// Durable writes on a large partner: W2 (creates) with a data dir on agent 1001 of the `large` scenario
// (100,000 customers, an 84 MB snapshot), whose p99 the run compares with W2 with a data dir on the
// default scenario: a write must cost what it changes, not the size of the partner.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compare, say, startSandbox, w2Options, type Measured } from './harness.js'

export async function largePartnerCreates (): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-bench-large-'))
  say('W2 with a data dir on the large scenario (its first start writes the 84 MB snapshot)')
  // no reset between rounds (it would rewrite the 84 MB snapshot): the creates of warm-up, re-warms and rounds
  // add up, and past the default 500,000 records the partner's limit would answer 403 instead
  const server = await startSandbox('sandbox-large-disk', dataDir, undefined, 'large', { SANDBOX_MAX_RECORDS: '2000000' })
  try {
    return (await compare('W2 large, data dir', [{ key: 'large', server, options: () => w2Options(server) }])).large
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
