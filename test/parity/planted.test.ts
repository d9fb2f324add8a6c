import { existsSync } from 'node:fs'
import { readFile, readdir, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Ajv } from 'ajv'
import { parse, type TestSuites } from 'junit2json'
import { chromium } from 'playwright-core'
import t from 'tap'
import { runParity, startSandbox, type ParityResult } from '../../src/library.js'
import { startProxy, type Answer, type Rewrite, type Seen } from './proxy.js'
import { CHROMIUM, LAUNCH_ARGS } from '../chromium.js'

/*
 * The kit against a test implementation with planted divergences (a proxy in front of a second sandbox that
 * rewrites some answers): each one is reported, on the probe and aspect it concerns, and nothing is reported
 * on the operations left unchanged. The same run's reports are checked for secrets and read as JUnit and
 * HAR; a read-only run sends the bank API nothing but reads.
 */

const require = createRequire(import.meta.url)

type Json = Record<string, unknown>

function json (answer: Answer, change: (body: Json) => void): Answer {
  const body = JSON.parse(answer.body) as Json
  change(body)
  return { ...answer, body: JSON.stringify(body) }
}

const get = (path: RegExp) => (req: Seen): boolean => req.method === 'GET' && path.test(req.path)

/** The planted divergences: where, and what the kit must report (probe id and aspect). */
const PLANTED: Array<{ kind: string, operation: string, probe: string, aspect: string, rewrite: Rewrite }> = [
  {
    kind: 'field names',
    operation: '4.4 GET /api/banks',
    probe: 'banks.list',
    aspect: 'fields',
    rewrite: {
      when: (req, a) => get(/^\/api\/banks$/)(req) && a.status === 200,
      rewrite: (a) => json(a, (b) => { for (const bank of b.banks as Json[]) { bank.shortname = bank.shortName; delete bank.shortName } })
    }
  },
  {
    kind: 'response schema (a decimal as a string)',
    operation: '4.1 GET /api/accounts/{accountId}',
    probe: 'account.read',
    aspect: 'schema',
    rewrite: {
      when: (req, a) => get(/^\/api\/accounts\/\d+$/)(req) && a.status === 200,
      rewrite: (a) => json(a, (b) => { (b.balance as Json).amount = String((b.balance as Json).amount) })
    }
  },
  {
    kind: 'validation: a size rule not enforced',
    operation: '4.12 POST /api/customers/{customerId}/messages',
    probe: 'message.create.message.max-length',
    aspect: 'status',
    rewrite: {
      when: (req, a) => req.method === 'POST' && /\/messages$/.test(req.path) && a.status === 400 && a.body.includes('"field":"message","rejectedValue"'),
      rewrite: (a, req) => ({ ...a, status: 200, body: JSON.stringify({ ...JSON.parse(req.body) as Json, id: '1', dateCreated: '2026-12-02T10:00:00' }) })
    }
  },
  {
    kind: 'validation: another error code',
    operation: '4.8 POST /api/customers',
    probe: 'customer.create.sa-id-wrong-check-digit',
    aspect: 'error',
    rewrite: {
      when: (req, a) => req.method === 'POST' && req.path === '/api/customers' && a.body.includes('SouthAfricanIdNumber'),
      rewrite: (a) => ({ ...a, body: a.body.replace(/SouthAfricanIdNumber/g, 'Pattern') })
    }
  },
  {
    kind: 'error shape',
    operation: '4.9 GET /api/customers/{customerId}',
    probe: 'customer.read.not-found',
    aspect: 'error',
    rewrite: {
      when: (req, a) => get(/^\/api\/customers\/\d+$/)(req) && a.status === 404,
      rewrite: (a) => ({ ...a, body: JSON.stringify({ code: 'NOT_FOUND', message: 'not found' }) })
    }
  },
  {
    kind: 'paging arithmetic',
    operation: '4.14 GET /api/investment-types',
    probe: 'investment-types.list',
    aspect: 'page',
    rewrite: {
      when: (req, a) => get(/^\/api\/investment-types$/)(req) && a.status === 200,
      rewrite: (a) => json(a, (b) => { (b.page as Json).totalPages = Number((b.page as Json).totalPages) + 1 })
    }
  },
  {
    kind: 'authentication: 403 for no token',
    operation: '4.15 GET /api/accounts/public',
    probe: 'public-accounts.list.no-token',
    aspect: 'status',
    rewrite: {
      when: (req, a) => get(/^\/api\/accounts\/public$/)(req) && req.headers.authorization === undefined && a.status === 401,
      rewrite: (a) => json({ ...a, status: 403 }, (b) => { b.status = 403; b.error = 'Forbidden' })
    }
  },
  {
    kind: "authorisation: another partner's agent answered 404",
    operation: '4.16 GET /api/products',
    probe: 'products.list.other-agent',
    aspect: 'status',
    rewrite: {
      when: (req, a) => get(/^\/api\/products$/)(req) && a.status === 403,
      rewrite: (a) => json({ ...a, status: 404 }, (b) => { b.status = 404; b.error = 'Not Found' })
    }
  },
  {
    kind: 'headers: no charset',
    operation: '4.10 GET /api/customers',
    probe: 'customers.list',
    aspect: 'headers',
    rewrite: {
      when: (req, a) => get(/^\/api\/customers$/)(req) && a.status === 200,
      rewrite: (a) => ({ ...a, headers: { ...a.headers, 'content-type': 'application/json' } })
    }
  },
  {
    kind: 'headers: no WWW-Authenticate',
    operation: '4.5 GET /api/customers/{beneficiaryCustomerId}/beneficiaries',
    probe: 'beneficiaries.list.no-token',
    aspect: 'headers',
    rewrite: {
      when: (req, a) => get(/^\/api\/customers\/\d+\/beneficiaries$/)(req) && a.status === 401,
      rewrite: (a) => ({ ...a, headers: Object.fromEntries(Object.entries(a.headers).filter(([k]) => k !== 'www-authenticate')) })
    }
  },
  {
    kind: "token endpoint: Keycloak's error for a wrong secret",
    operation: '5 POST token endpoint',
    probe: 'token.wrong-secret',
    aspect: 'error',
    rewrite: {
      when: (req, a) => req.path.endsWith('/token') && a.body.includes('"invalid_client"') && req.headers.authorization?.includes(Buffer.from('partner-a:').toString('base64').slice(0, 12)) === true,
      rewrite: (a) => ({ ...a, body: a.body.replace('"invalid_client"', '"unauthorized_client"') })
    }
  }
]

const SECRETS = { clientSecret: 'partner-a-secret', password: 'alice-password' }

async function run (target: string, out: string, readOnly = false): Promise<ParityResult> {
  return await runParity({ target, clientId: 'partner-a', clientSecret: SECRETS.clientSecret, agentId: '1001', otherAgentId: '2001', username: 'alice', password: SECRETS.password, guaranteeId: 'VALID-PLANTED-1', readOnly, out })
}

t.test('every planted divergence is reported on its probe and aspect, and nothing on the operations left unchanged', async (t) => {
  const upstream = await startSandbox()
  const proxy = await startProxy(upstream.url, PLANTED.map((p) => p.rewrite))
  t.teardown(async () => { await proxy.close(); await upstream.stop() })
  const out = join(tmpdir(), `parity-planted-${process.pid}`)
  const started = Date.now()
  const result = await run(proxy.url, out)
  t.comment(`a whole run against a local target: ${((Date.now() - started) / 1000).toFixed(1)} s, ${result.report?.summary.probes ?? 0} probes`)
  t.equal(result.exitCode, 1, `exit code 1: differences (${result.problem ?? ''})`)
  const report = result.report!
  t.ok(new Set(PLANTED.map((p) => p.kind)).size >= 8, 'at least eight planted divergences')
  for (const p of PLANTED) {
    const outcome = report.outcomes.find((o) => o.id === p.probe)
    t.ok(outcome?.differences.some((d) => d.aspect === p.aspect && d.declared === undefined), `${p.kind}: reported on ${p.probe} as ${p.aspect}`, { found: outcome?.differences })
  }
  const planted = new Set(PLANTED.map((p) => p.operation))
  const elsewhere = report.outcomes.filter((o) => !planted.has(o.operation) && o.differences.length > 0)
  t.same(elsewhere.map((o) => `${o.id}: ${o.differences.map((d) => d.detail).join('; ')}`), [], 'no difference on an operation left unchanged')
  const unchanged = report.outcomes.filter((o) => !planted.has(o.operation) && o.state === 'same').length
  t.ok(unchanged > 80, `and those were probed (${unchanged} probes agreed)`)
  t.equal(report.outcomes[0].failing, true, 'differences first')

  t.test('the reports hold no secret or token of the run', async (t) => {
    t.ok(proxy.tokens.size >= 3, `tokens seen on the wire: ${proxy.tokens.size}`)
    const needles = [SECRETS.clientSecret, SECRETS.password, ...[...proxy.tokens].flatMap((tok) => [tok, tok.split('.')[2]].filter((x) => x !== undefined && x.length > 8))]
    const files = (await readdir(out)).filter((f) => f.startsWith('parity.') && !f.endsWith('.png'))
    t.same(files.sort(), ['parity.har', 'parity.html', 'parity.json', 'parity.junit.xml'])
    for (const f of files) {
      const text = await readFile(join(out, f), 'utf8')
      t.notOk(needles.some((n) => text.includes(n)), `${f}: none of ${needles.length} secrets and tokens`)
      t.notOk(text.includes(Buffer.from(`partner-a:${SECRETS.clientSecret}`).toString('base64')), `${f}: no Basic credentials`)
    }
    const har = await readFile(join(out, 'parity.har'), 'utf8')
    t.match(har, /Bearer \[redacted\]/, 'Authorization headers are shown redacted')
    t.match(har, /client_secret=%5Bredacted%5D/, 'and client_secret_post forms')
  })

  t.test('JUnit: one test case per probe, a failure per failing probe', async (t) => {
    const suites = await parse(await readFile(join(out, 'parity.junit.xml'), 'utf8')) as TestSuites
    const cases = (suites.testsuite ?? []).flatMap((s) => s.testcase ?? [])
    t.equal(cases.length, report.summary.probes, 'one test case per probe')
    t.equal(cases.filter((c) => (c.failure?.length ?? 0) > 0).length, report.outcomes.filter((o) => o.failing).length, 'failures are the failing probes')
    t.ok(cases.some((c) => c.name?.startsWith('banks.list:') === true && (c.failure?.length ?? 0) > 0), 'banks.list fails')
  })

  t.test('the HTML page renders in Chromium with no request outside the page, differences first', { skip: existsSync(CHROMIUM) || process.env.CI !== undefined ? false : `no Chromium at ${CHROMIUM}` }, async (t) => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS })
    t.teardown(async () => { await browser.close() })
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const file = pathToFileURL(join(out, 'parity.html')).href
    const requests: string[] = []
    await page.route('**/*', async (route) => {
      requests.push(route.request().url())
      await (route.request().url() === file ? route.continue() : route.abort())
    })
    await page.goto(file)
    t.same(requests, [file], 'the page itself and nothing else')
    const headings = await page.locator('h2').allTextContents()
    t.match(headings[0], /^Differences \(\d+\)$/, 'differences come first')
    const first = await page.locator('section').first().locator('details summary code').allTextContents()
    for (const p of PLANTED) t.ok(first.includes(p.probe), `${p.probe} is among the differences`)
    t.equal(await page.locator('section').first().locator('details[open] .sides .side').count() >= 2, true, 'side by side, open')
    const shot = join(out, 'parity.png')
    await page.screenshot({ path: shot, fullPage: false })
    t.ok((await stat(shot)).size > 10_000, `a screenshot: ${shot}`)
  })

  t.test('HAR 1.2 of both sides', async (t) => {
    const har = JSON.parse(await readFile(join(out, 'parity.har'), 'utf8')) as { log: { entries: Array<{ pageref: string }> } }
    const ajv = new Ajv({ strict: false, allErrors: true })
    ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object)
    for (const s of Object.values(require('har-schema') as Record<string, object>)) ajv.addSchema(s)
    const validate = ajv.getSchema('har.json#')!
    t.ok(validate(har), `valid HAR: ${ajv.errorsText(validate.errors)}`)
    t.ok(har.log.entries.some((e) => e.pageref === 'target') && har.log.entries.some((e) => e.pageref === 'reference'), 'both sides')
  })
})

t.test('--read-only sends the bank API no POST, PUT, PATCH or DELETE', async (t) => {
  const upstream = await startSandbox()
  const proxy = await startProxy(upstream.url, PLANTED.map((p) => p.rewrite))
  t.teardown(async () => { await proxy.close(); await upstream.stop() })
  const result = await run(proxy.url, join(tmpdir(), `parity-read-only-${process.pid}`), true)
  t.equal(result.exitCode, 1, 'the planted divergences of reads are still found')
  t.same([...proxy.apiMethods.keys()], ['GET'], `methods the target's bank API received: ${JSON.stringify(Object.fromEntries(proxy.apiMethods))}`)
  t.ok((proxy.apiMethods.get('GET') ?? 0) > 100, 'and it was probed')
  t.same(result.targetMethods, Object.fromEntries(proxy.apiMethods), 'the kit counts the same')
  t.ok(result.report!.outcomes.some((o) => o.id === 'customer.create' && o.state === 'skipped'), 'creates are skipped, and shown as such')
})
