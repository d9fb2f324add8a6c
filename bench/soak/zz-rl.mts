import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { clientToken, startSandbox } from './server.js'
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100 }
for (const [limit, url] of [['0', '/api/customers/1001100000001'], ['1', '/api/customers/1001100000001'], ['0', '/api/banks'], ['0', '/health']]) {
  const s = await startSandbox({ SANDBOX_RATE_LIMIT: limit, SANDBOX_MAX_EVENT_LOOP_DELAY: '60000', LOG_LEVEL: 'info' }, 0)
  const a = await clientToken(s.base, 'partner-a', 'partner-a-secret')
  await autocannon({ url: `${s.base}${url}`, connections: 32, duration: 1, headers: { authorization: `Bearer ${a}`, 'agent-id': '1001' } })
  const c0 = cpu(s.child.pid!)
  const r = await autocannon({ url: `${s.base}${url}`, connections: 32, duration: 4, headers: { authorization: `Bearer ${a}`, 'agent-id': '1001' } })
  const used = cpu(s.child.pid!) - c0
  console.log(limit, url, r['2xx'], r.non2xx, 'cpu', used.toFixed(2), 's', Math.round(used * 1e6 / (r['2xx'] + r.non2xx)), 'us/req')
  s.child.kill('SIGTERM'); await s.exited
}
