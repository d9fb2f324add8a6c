import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { accountRules } from '../src/rules/accounts.js'
import { beneficiaryRules } from '../src/rules/beneficiaries.js'
import { customerRules } from '../src/rules/customers.js'
import { southAfricanIdProblem } from '../src/rules/identity-numbers.js'
import { API_SCHEMAS } from '../src/schemas/index.js'
import { MAX_PAGE_SIZE } from '../src/schemas/common.js'
import { createValidator } from '../src/schemas/validation.js'
import { buildPartner } from '../src/seed/build.js'
import { scenarioIdentity } from '../src/seed/identities.js'
import { ClientSecrets, PasswordHashes } from '../src/store/credentials.js'
import { loadFaker } from '../src/seed/faker.js'
import { DataError } from '../src/seed/check.js'
import { loadReference } from '../src/seed/fixtures.js'
import { SCENARIOS_DIR, ScenarioLibrary } from '../src/seed/scenarios.js'
import type { AgentStore } from '../src/store/agent.js'
import { serialise } from '../src/store/serialise.js'
import type { PartnerSnapshot, StoredCustomer } from '../src/store/records.js'
import { api, build, tokenFor, withoutCredentials, PARTNER_B } from './helper.js'

// building straight from the library (buildPartner) generates with faker, loaded when first needed
await loadFaker()
const validator = createValidator(API_SCHEMAS)
const reference = loadReference(validator)
const library = new ScenarioLibrary(validator, reference)
const SMALL = ['default', 'empty', 'edge-cases']

// one pepper and one hash per password for every build here: two builds of a scenario are byte-identical
const secrets = ClientSecrets.generated()
const passwords = new PasswordHashes()

/** A scenario's partners built straight from the library (what the app does at start), without an app. */
function partnersOf (name: string, seed?: number): PartnerSnapshot[] {
  const loaded = library.get(name)
  const s = seed ?? loaded.scenario.seed
  return loaded.scenario.partners.map((def) => buildPartner({ reference, validator, passwords }, loaded, s, scenarioIdentity(def, secrets)))
}

/** The partners' data as JSON, without their credentials (hashes with a pepper and salts of each process). */
function snapshotsOf (app: FastifyInstance): Record<string, string> {
  return Object.fromEntries([...app.world.partners.values()].map((p) => [p.id, serialise(withoutCredentials(p.snapshot()))]))
}

function schemaProblem (schemaId: string, value: unknown): string | null {
  const validate = validator.getSchema(schemaId)!
  return validate(value) === true ? null : validator.errorsText(validate.errors)
}

/** The create request a partner would have sent for a stored customer. */
function customerRequestOf (c: StoredCustomer): Record<string, unknown> {
  const { customerId, defaultAccountNumber, ...request } = c
  return request
}

/**
 * Every record of an agent against its response schema and, rebuilt as the create request a partner
 * would send, against the request schema and the request rules (SA ID numbers, registration numbers,
 * upper-case text, known banks and products). Counts failures instead of asserting per record, so that
 * 100,000 customers make one assertion, not 100,000.
 */
function recordProblems (agent: AgentStore): string[] {
  const problems: string[] = []
  const add = (what: string, problem: string | null | undefined): void => {
    if (problem !== null && problem !== undefined && problems.length < 10) problems.push(`agent ${agent.id} ${what}: ${problem}`)
  }
  for (const c of agent.customers) {
    add(`customer ${c.customerId} (CustomerRecord)`, schemaProblem('CustomerRecord', c))
    const request = customerRequestOf(c)
    add(`customer ${c.customerId} (CustomerCreateRequest)`, schemaProblem('CustomerCreateRequest', request))
    add(`customer ${c.customerId} (rules)`, customerRules(request, reference).map((e) => `${e.field} ${e.code}`).join(', ') || null)
    add(`customer ${c.customerId} id`, /^\d{1,19}$/.test(c.customerId) ? null : 'not at most 19 digits')
    for (const p of [c.defaultCustomer!, ...(c.otherCustomers ?? [])]) {
      if (p.entityTypeId === '1') add(`customer ${c.customerId} SA ID ${p.identifyingNumber}`, southAfricanIdProblem(p.identifyingNumber))
      add(`customer ${c.customerId} name1`, p.name1 === p.name1.toUpperCase() ? null : `${p.name1} is not upper case`)
    }
    if (c.defaultAccountNumber !== undefined) {
      add(`customer ${c.customerId} defaultAccountNumber`, agent.hasAccountNumber(c.defaultAccountNumber) ? null : `${c.defaultAccountNumber} is no account of the agent`)
    }
  }
  for (const a of agent.accounts) {
    add(`account ${a.id} (Account)`, schemaProblem('Account', a))
    add(`account ${a.id} (rules)`, accountRules({ productCode: a.productCode }, reference).map((e) => e.code).join(', ') || null)
    add(`account ${a.id} id`, /^\d{1,16}$/.test(a.id) ? null : 'not at most 16 digits')
    add(`account ${a.id} holder`, a.customers.every((h) => agent.customer(h.customerId) !== undefined) ? null : 'a holder is no customer of the agent')
    add(`account ${a.id} agentId`, a.agentId === Number(agent.id) ? null : `agentId ${a.agentId}`)
  }
  for (const b of agent.beneficiaries) {
    const { beneficiaryId, bankName, branchName, customerId, ...request } = b
    add(`beneficiary ${beneficiaryId} (Beneficiary)`, schemaProblem('Beneficiary', b))
    add(`beneficiary ${beneficiaryId} (BeneficiaryCreateRequest)`, schemaProblem('BeneficiaryCreateRequest', request))
    add(`beneficiary ${beneficiaryId} (rules)`, beneficiaryRules(request, reference).map((e) => e.code).join(', ') || null)
    add(`beneficiary ${beneficiaryId} customer`, agent.customer(customerId) === undefined ? 'no customer of the agent' : null)
  }
  for (const m of agent.messages) {
    add(`message ${m.id} (CustomerMessage)`, schemaProblem('CustomerMessage', m))
    add(`message ${m.id} (CustomerMessageRequest)`, schemaProblem('CustomerMessageRequest', { message: m.message, fromDepartment: m.fromDepartment, fromPerson: m.fromPerson }))
    add(`message ${m.id} dateCreated`, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/.test(m.dateCreated) ? null : m.dateCreated)
    add(`message ${m.id} customer`, agent.customer(m.customerId) === undefined ? 'no customer of the agent' : null)
  }
  return problems
}

/** Reads every list of an agent through the API (api() checks each answer against the published document). */
async function readAllThroughApi (t: Test, app: FastifyInstance, agent: AgentStore, token: string): Promise<void> {
  const headers = { agent: agent.id, token }
  const customers = []
  for (let page = 0; ; page++) {
    const res = await api(app, { url: `/api/customers?page=${page}&size=${MAX_PAGE_SIZE}`, ...headers })
    t.equal(res.statusCode, 200)
    customers.push(...res.json().customers)
    if (res.json().page.last === true) break
  }
  t.equal(customers.length, agent.customers.length, `agent ${agent.id}: every customer is served`)
  const accounts = await api(app, { url: `/api/accounts?size=${MAX_PAGE_SIZE}`, ...headers })
  t.equal(accounts.statusCode, 200)
  for (const c of agent.customers.slice(0, 40)) {
    for (const path of ['beneficiaries', 'messages']) {
      const res = await api(app, { url: `/api/customers/${c.customerId}/${path}?size=${MAX_PAGE_SIZE}`, ...headers })
      if (res.statusCode !== 200) t.fail(`GET ${path} of ${c.customerId} answered ${res.statusCode}`)
    }
  }
}

for (const name of SMALL) {
  t.test(`the ${name} scenario loads, and every record passes its response schema and the request rules`, async (t) => {
    const app = await build(t, { scenario: name })
    const partners = [...app.world.partners.values()]
    t.same(partners.map((p) => p.id).sort(), ['partner-a', 'partner-b'])
    for (const p of partners) {
      t.equal(p.scenario, name)
      const token = await tokenFor(app, p.id === 'partner-b' ? PARTNER_B : undefined)
      for (const agent of p.agents.values()) {
        t.same(recordProblems(agent), [], `agent ${agent.id}: ${agent.customers.length} customers, ${agent.accounts.length} accounts, ` +
          `${agent.beneficiaries.length} beneficiaries, ${agent.messages.length} messages all valid`)
        await readAllThroughApi(t, app, agent, token)
      }
      for (const g of p.guarantees.values()) {
        const res = await api(app, { url: `/api/guarantees/${encodeURIComponent(g.guaranteeId)}/state`, token: null, agent: null })
        t.same([res.statusCode, res.json()], [200, { state: g.state }], `guarantee ${g.guaranteeId.slice(0, 20)} answers ${g.state}`)
      }
    }
  })
}

t.test('the same scenario and seed give byte-identical data, another seed other data', async (t) => {
  for (const name of SMALL) {
    const first = partnersOf(name).map(serialise)
    const again = partnersOf(name).map(serialise)
    t.ok(first.every((s, i) => s === again[i]), `${name}: two builds are byte-identical`)
    const other = partnersOf(name, 77).map(serialise)
    if (name === 'empty') {
      t.ok(other.every((s) => !s.includes('"customerId"')), 'empty: no records whatever the seed')
    } else {
      t.ok(other.every((s, i) => s !== first[i]), `${name}: seed 77 gives other data for every partner`)
      const ids = (s: string) => [...s.matchAll(/"identifyingNumber":"(\d{13})"/g)].map((m) => m[1])
      const common = ids(other[0]).filter((id) => ids(first[0]).includes(id))
      t.ok(common.length < 10, `${name}: seed 77 shares only the hand-written ID numbers with the scenario's seed (${common.length})`)
    }
  }
  // the same through the app, as the server builds it at start
  const a = await build(t)
  const b = await build(t)
  const c = await build(t, { seed: 12345 })
  const sa = snapshotsOf(a)
  t.ok(sa['partner-a'].length > 10000, 'the default partner-a holds real data')
  t.equal(snapshotsOf(b)['partner-a'], sa['partner-a'], 'two default apps: partner-a byte-identical')
  t.equal(snapshotsOf(b)['partner-b'], sa['partner-b'], 'two default apps: partner-b byte-identical')
  t.not(snapshotsOf(c)['partner-a'], sa['partner-a'], 'SANDBOX_SEED 12345: other data')
  t.equal(c.world.partner('partner-a')!.seed, 12345)
})

t.test('the default scenario gives agents 1001, 1002 and 2001 a few dozen customers each plus the fixed records', async (t) => {
  const app = await build(t)
  const a = app.world.partner('partner-a')!
  const b = app.world.partner('partner-b')!
  t.same([...a.agents.keys()], ['1001', '1002'])
  t.same([...b.agents.keys()], ['2001'])
  for (const agent of [a.agents.get('1001')!, a.agents.get('1002')!, b.agents.get('2001')!]) {
    t.ok(agent.customers.length >= 24 && agent.customers.length <= 60, `agent ${agent.id} has ${agent.customers.length} customers`)
    const types = new Set(agent.customers.map((c) => c.defaultCustomer!.entityTypeId))
    t.ok(types.size >= 4, `agent ${agent.id}: customers of ${types.size} entity types`)
    t.ok(agent.accounts.length >= agent.customers.length, `agent ${agent.id}: ${agent.accounts.length} accounts`)
    t.ok(agent.beneficiaries.length > 0 && agent.messages.length > 0, `agent ${agent.id}: beneficiaries and messages`)
  }
  const fixed: Array<[string, string, string, Record<string, unknown>]> = [
    ['1001', '/api/customers/1001100000001', 'partner-a', { customerId: '1001100000001', defaultAccountNumber: '10010000001', defaultCustomer: { name1: 'MOKOENA', identifyingNumber: '8001015009087' } }],
    ['1001', '/api/customers/1001100000002', 'partner-a', { defaultCustomer: { entityTypeId: '3', name1: 'THE NAIDOO FAMILY TRUST' }, otherCustomers: [{ name1: 'NAIDOO' }] }],
    ['1001', '/api/customers/1001100000003', 'partner-a', { defaultCustomer: { entityTypeId: '5', identifyingNumber: '2000/000001/07' } }],
    ['1002', '/api/customers/1002100000001', 'partner-a', { defaultCustomer: { entityTypeId: '4', kycStatus: false } }],
    ['2001', '/api/customers/2001100000001', 'partner-b', { defaultCustomer: { name1: 'VAN DER MERWE' } }],
    ['1001', '/api/accounts/1001200000001', 'partner-a', { number: '10010000001', balance: { amount: 250000 } }],
    ['1001', '/api/accounts/1001200000005', 'partner-a', { closedDate: '2024-02-01' }],
    ['1001', '/api/customers/1001100000001/beneficiaries/1001300000001', 'partner-a', { name: 'CITY OF JOHANNESBURG' }],
    ['1001', '/api/customers/1001100000001/beneficiaries/1001300000002', 'partner-a', { name: 'LERATO MOKOENA', branchCode: '470010' }],
    ['2001', '/api/customers/2001100000001/beneficiaries/2001300000001', 'partner-b', { name: 'STELLENBOSCH MUNICIPALITY' }]
  ]
  for (const [agent, url, partner, expected] of fixed) {
    const res = await api(app, { url, agent, token: await tokenFor(app, partner === 'partner-b' ? PARTNER_B : undefined) })
    t.equal(res.statusCode, 200, url)
    t.match(res.json(), expected, url)
  }
  const messages = await api(app, { url: '/api/customers/1001100000001/messages' })
  t.match(messages.json().messages, [{ id: '1001400000001', dateCreated: '2025-03-14T09:30:00.000' }])
  for (const [id, state] of [['GTE-A-0001', 'VALID'], ['GTE-A-0002', 'INVALID'], ['GTE-B-0001', 'VALID']]) {
    const res = await api(app, { url: `/api/guarantees/${id}/state`, token: null, agent: null })
    t.same(res.json(), { state }, `${id} is ${state}`)
  }
  t.same(a.users.map((u) => [u.username, u.customerIds]), [['alice', ['1001100000001', '1001100000002', '1001100000003']]])
  t.same(b.users.map((u) => [u.username, u.customerIds]), [['bob', ['2001100000001']]])
})

t.test('the edge-cases scenario holds every kind of edge docs/scenarios.md promises', async (t) => {
  const app = await build(t, { scenario: 'edge-cases' })
  const agents = [...app.world.partners.values()].flatMap((p) => [...p.agents.values()])
  const customers = agents.flatMap((a) => a.customers)
  const accounts = agents.flatMap((a) => a.accounts)
  const beneficiaries = agents.flatMap((a) => a.beneficiaries)
  const messages = agents.flatMap((a) => a.messages)
  const parties = customers.flatMap((c) => [c.defaultCustomer!, ...(c.otherCustomers ?? [])])

  t.ok(accounts.filter((a) => a.closedDate !== undefined).length >= 3, 'closed accounts')
  t.ok(accounts.every((a) => a.closedDate === undefined || a.closedDate >= a.openedDate!), 'no account closes before it opens')
  t.ok(customers.filter((c) => c.defaultCustomer!.kycStatus === false).length >= 3, 'customers not KYC-verified')
  for (const [type, label] of [['3', 'trusts'], ['4', 'CCs'], ['5', 'private companies'], ['6', 'public companies']]) {
    t.ok(customers.some((c) => c.defaultCustomer!.entityTypeId === type && (c.otherCustomers?.length ?? 0) >= 1), `${label} with other customers`)
  }
  t.ok(customers.some((c) => (c.otherCustomers?.length ?? 0) >= 3), 'a record with three other customers')
  const foreign = beneficiaries.filter((b) => reference.banksById.get(b.bankCode)?.foreign === true)
  t.ok(foreign.length >= 3, `beneficiaries at foreign banks (${foreign.length})`)
  t.ok(beneficiaries.some((b) => b.branchCode !== reference.banksById.get(b.bankCode)!.defaultBranchCode), 'a beneficiary at a non-default branch')
  const invalid = [...app.world.partners.values()].flatMap((p) => [...p.guarantees.values()]).filter((g) => g.state === 'INVALID')
  t.ok(invalid.length >= 8, `INVALID guarantees (${invalid.length})`)
  for (const g of invalid.slice(0, 3)) {
    const res = await api(app, { url: `/api/guarantees/${encodeURIComponent(g.guaranteeId)}/state`, token: null, agent: null })
    t.same(res.json(), { state: 'INVALID' })
  }

  // valid values at every size limit of the schemas
  const longest = (values: Array<string | undefined>): number => Math.max(0, ...values.map((v) => v?.length ?? 0))
  const shortest = (values: Array<string | undefined>): number => Math.min(...values.filter((v) => v !== undefined).map((v) => v!.length))
  const limits: Array<[string, Array<string | undefined>, number]> = [
    ['Party.name1', parties.map((p) => p.name1), 255],
    ['Party.name2', parties.map((p) => p.name2), 255],
    ['Party.address', parties.map((p) => p.address), 255],
    ['Party.taxNumber', parties.map((p) => p.taxNumber), 255],
    ['Party.identifyingNumber', parties.map((p) => p.identifyingNumber), 255],
    ['Party.mobilePhoneNumber', parties.map((p) => p.mobilePhoneNumber?.replace(/^\+/, '')), 14],
    ['customerReference', customers.map((c) => c.customerReference), 255],
    ['agentReference', customers.map((c) => c.agentReference), 255],
    ['Beneficiary.name', beneficiaries.map((b) => b.name), 255],
    ['Beneficiary.accountNumber', beneficiaries.map((b) => b.accountNumber), 16],
    ['Beneficiary.branchCode', beneficiaries.map((b) => b.branchCode), 6],
    ['Beneficiary.beneficiaryReference', beneficiaries.map((b) => b.beneficiaryReference), 30],
    ['Beneficiary.clientReference', beneficiaries.map((b) => b.clientReference), 30],
    ['CustomerMessage.message', messages.map((m) => m.message), 256],
    ['CustomerMessage.fromDepartment', messages.map((m) => m.fromDepartment), 100],
    ['CustomerMessage.fromPerson', messages.map((m) => m.fromPerson), 100],
    ['guaranteeId', invalid.concat([...app.world.partners.values()].flatMap((p) => [...p.guarantees.values()])).map((g) => g.guaranteeId), 255]
  ]
  for (const [field, values, max] of limits) t.equal(longest(values), max, `${field} reaches its maximum ${max}`)
  const smallest: Array<[string, Array<string | undefined>, number]> = [
    ['Party.name1', parties.map((p) => p.name1), 1],
    ['Party.taxNumber', parties.map((p) => p.taxNumber), 1],
    ['Beneficiary.name', beneficiaries.map((b) => b.name), 1],
    ['Beneficiary.accountNumber', beneficiaries.map((b) => b.accountNumber), 1],
    ['Beneficiary.beneficiaryReference', beneficiaries.map((b) => b.beneficiaryReference), 1],
    ['CustomerMessage.message', messages.map((m) => m.message), 0],
    ['CustomerMessage.fromPerson', messages.map((m) => m.fromPerson), 0]
  ]
  for (const [field, values, min] of smallest) t.equal(shortest(values), min, `${field} reaches its minimum ${min}`)
  t.ok(customers.some((c) => c.adminFeePercent === '99.99'), 'adminFeePercent at 2 integer and 2 fraction digits')
  t.ok(accounts.some((a) => a.balance!.amount === 9999999999.99), 'a balance of 9,999,999,999.99')
  t.ok(parties.some((p) => /['()&.-]/.test(p.name1)), 'names with punctuation')

  // and they are served as they are: the edge customer through the API
  const res = await api(app, { url: '/api/customers/1001100000001' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().defaultCustomer.name1.length, 255)
})

t.test('the large scenario gives agent 1001 100,000 valid customers and pages through them by slice', async (t) => {
  const app = await build(t, { scenario: 'large' })
  const agent = app.world.partner('partner-a')!.agents.get('1001')!
  t.equal(agent.customers.length, 100000, '100,000 customers')
  t.equal(agent.accounts.length, 100000, 'each with its call account')

  const page = async (n: number, size: number) => {
    const res = await api(app, { url: `/api/customers?page=${n}&size=${size}` })
    t.equal(res.statusCode, 200)
    return res.json()
  }
  const middle = await page(2500, 20)
  t.same(middle.customers.map((c: StoredCustomer) => c.customerId), agent.customers.slice(50000, 50020).map((c) => c.customerId), 'page 2500 of size 20: records 50,000 to 50,019')
  t.equal(middle.customers[0].customerId, '1001100050001')
  t.same(middle.page, { page: 2500, pageSize: 20, numberOfElements: 20, totalElements: 100000, totalPages: 5000, first: false, last: false })
  const last = await page(4999, 20)
  t.same(last.customers.map((c: StoredCustomer) => c.customerId), agent.customers.slice(99980).map((c) => c.customerId), 'page 4999 of size 20: the last 20 records')
  t.equal(last.customers[19].customerId, '1001100100000')
  t.same(last.page, { page: 4999, pageSize: 20, numberOfElements: 20, totalElements: 100000, totalPages: 5000, first: false, last: true })
  const past = await page(5000, 20)
  t.same(past.customers, [], 'page 5000 of size 20 lies past the end (pages are 0-indexed): empty')
  t.same(past.page, { page: 5000, pageSize: 20, numberOfElements: 0, totalElements: 100000, totalPages: 5000, first: false, last: true })
  t.same(await api(app, { url: '/api/customers/1001100099999' }).then((r) => r.json()), agent.customers[99998], 'a record near the end by id')
  const other = app.world.partner('partner-a')!.agents.get('1002')!
  t.ok(other.customers.length > 0 && other.customers.length < 100, 'the other agents have a handful')
  // last: checking 200,000 records blocks the event loop for a while
  t.same(recordProblems(agent), [], 'every one passes its schema and the request rules')
  t.equal(new Set(agent.customers.map((c) => c.customerId)).size, 100000, 'ids are unique')
})

t.test('a bad scenario file is refused with a message naming the file, the field and the rule', async (t) => {
  const original = JSON.parse(readFileSync(new URL('default.json', SCENARIOS_DIR), 'utf8'))
  const cases: Array<[string, (s: any) => void, RegExp[]]> = [
    ['a value of the wrong type', (s) => { s.generate.customers = 'many' }, [/default\.json: generate\.customers:/, /typeMismatch/, /Integer/]],
    ['a bad SA ID number in a record', (s) => { s.records.customers[0].defaultCustomer.identifyingNumber = '8001015009088' }, [/records\.customers\[0\]\.defaultCustomer\.identifyingNumber/, /SouthAfricanIdNumber/, /Luhn/]],
    ['a date of birth that is no date', (s) => { s.records.customers[1].otherCustomers[0].identifyingNumber = '9013319818080' }, [/records\.customers\[1\]\.otherCustomers\[0\]\.identifyingNumber/, /SouthAfricanIdNumber/]],
    ['a record of an unknown agent', (s) => { s.records.beneficiaries[0].agentId = '1009' }, [/records\.beneficiaries\[0\]\.agentId/, /1009 is not an agent of the scenario/]],
    ['a duplicate id', (s) => { s.records.accounts[1].id = s.records.accounts[0].id }, [/records\.accounts\[1\]\.id/, /duplicate id 1001200000001/]],
    ['a lower-case name', (s) => { s.records.customers[0].defaultCustomer.name1 = 'Mokoena' }, [/records\.customers\[0\]\.defaultCustomer\.name1/]],
    ['a misspelt field', (s) => { s.generate.cutsomers = 3 }, [/default\.json: generate\.cutsomers: is not a field/, /additionalProperties/]],
    ['a missing field', (s) => { delete s.referenceDate }, [/default\.json: referenceDate: must not be null/, /NotNull/]],
    ['a public client id used twice', (s) => { s.partners[1].publicClients[0].clientId = 'partner-a-web' }, [/partners\[1\]\.publicClients\[0\]\.clientId/, /partner-a-web is used twice/]],
    ['a public client named like a partner', (s) => { s.partners[0].publicClients[0].clientId = 'partner-b' }, [/partners\[0\]\.publicClients\[0\]\.clientId/, /partner-b is used twice/]],
    ['a public client without redirect URIs', (s) => { s.partners[0].publicClients[0].redirectUris = [] }, [/partners\[0\]\.publicClients\[0\]\.redirectUris/]]
  ]
  for (const [label, breakIt, expected] of cases) {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-scenarios-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const broken = structuredClone(original)
    breakIt(broken)
    writeFileSync(join(dir, 'default.json'), JSON.stringify(broken))
    writeFileSync(join(dir, 'empty.json'), readFileSync(new URL('empty.json', SCENARIOS_DIR)))
    let error: unknown
    try {
      const lib = new ScenarioLibrary(createValidator(API_SCHEMAS), reference, pathToFileURL(`${dir}/`))
      t.fail(`${label}: loaded ${lib.names().join(', ')}`)
    } catch (err) {
      error = err
    }
    t.type(error, DataError, label)
    const message = (error as Error).message
    t.match(message, /default\.json/, `${label}: names the file (${message})`)
    for (const re of expected) t.match(message, re, `${label}: ${re}`)
  }

  const dir = mkdtempSync(join(tmpdir(), 'sandbox-scenarios-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'default.json'), '{ "name": "default", ')
  t.throws(() => new ScenarioLibrary(createValidator(API_SCHEMAS), reference, pathToFileURL(`${dir}/`)), /default\.json: cannot be read as JSON/, 'a file that is not JSON')
  writeFileSync(join(dir, 'default.json'), JSON.stringify({ ...original, name: 'other' }))
  t.throws(() => new ScenarioLibrary(createValidator(API_SCHEMAS), reference, pathToFileURL(`${dir}/`)), /default\.json: name must be "default"/, 'a name that is not the file name')
})
