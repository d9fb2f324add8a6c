import t from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { redisClient } from '../../src/store/redis/connection.js'

/*
 * SANDBOX_REDIS_CA (issue 51): a rediss:// client trusts the CAs of that file (a private CA's), and a file that
 * cannot be read stops the start with its name, not later with a TLS error. (Connecting through TLS with a
 * password: test/replicas/secure.test.ts.)
 */

const settings = { cluster: false, commandTimeout: 2000 }

t.test('rediss:// with SANDBOX_REDIS_CA trusts that CA; without it, Node\'s own; redis:// has no TLS', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-redis-ca-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
  writeFileSync(join(dir, 'ca.crt'), pem)
  const tlsOf = async (url: string, ca?: string): Promise<unknown> => {
    const client = await redisClient({ ...settings, url, ca })
    client.disconnect()
    return (client as unknown as { options: { tls?: unknown } }).options.tls
  }
  t.same(await tlsOf('rediss://sandbox:secret@127.0.0.1:6379', join(dir, 'ca.crt')), { ca: Buffer.from(pem) }, 'the CA file\'s certificates')
  t.same(await tlsOf('rediss://127.0.0.1:6379'), {}, 'Node\'s CAs (the certificate is still verified)')
  t.equal(await tlsOf('redis://127.0.0.1:6379', join(dir, 'ca.crt')), undefined, 'no TLS for redis://')
  await t.rejects(redisClient({ ...settings, url: 'rediss://127.0.0.1:6379', ca: join(dir, 'missing.crt') }), /cannot read SANDBOX_REDIS_CA \(.*missing\.crt\)/)
})
