import t, { type Test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { api, build, tokenFor } from './helper.js'

// every list operation of spec 4 (4.11 is covered with the customers)
const LISTS = [
  '/api/accounts',
  '/api/accounts/public',
  '/api/banks',
  '/api/customers',
  '/api/customers/1001100000001/beneficiaries',
  '/api/customers/1001100000001/messages',
  '/api/investment-types',
  '/api/products',
  '/api/users/current/customers'
]

/** The Spring error body of design.md, the X-Sandbox-Error header, and nothing internal. */
function assertErrorShape (t: Test, res: LightMyRequestResponse, status: number, path: string): void {
  t.equal(res.statusCode, status, `${path} answers ${status}`)
  t.match(res.headers['content-type'], /^application\/json/)
  t.match(res.headers['x-sandbox-error'], /^SANDBOX_ERR_[A-Z_]+$/, 'X-Sandbox-Error names the cause')
  const body = res.json()
  t.same(Object.keys(body).sort(), ['error', 'errors', 'message', 'path', 'status', 'timestamp'])
  t.match(body, { status, error: String, message: String, path, errors: Array })
  t.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/)
  t.notMatch(res.body, /\bat .+\(|\.ts:\d+|\.js:\d+|node_modules|\/work\/|\/src\//, 'no stack trace or file path')
}

t.test('every list refuses size 0, size 2001, page -1 and non-integers with 400 naming the parameter', async (t) => {
  const app = await build(t)
  for (const url of LISTS) {
    for (const [query, field, code] of [['size=0', 'size', 'Min'], ['size=2001', 'size', 'Max'], ['page=-1', 'page', 'Min'], ['page=x', 'page', 'typeMismatch'], ['size=1.5', 'size', 'typeMismatch']]) {
      const res = await api(app, { url: `${url}?${query}` })
      t.equal(res.statusCode, 400, `${url}?${query}`)
      t.match(res.json().errors, [{ field, code }])
    }
    const max = await api(app, { url: `${url}?size=2000&page=0` })
    t.equal(max.statusCode, 200, `${url}?size=2000 is the largest page`)
    t.same(max.json().sortResponses, [])
  }
})

t.test('page and size are read as Spring reads an Integer parameter', async (t) => {
  const app = await build(t)
  const pageOf = async (query: string): Promise<{ page: number, pageSize: number }> => {
    const res = await api(app, { url: `/api/banks?${query}` })
    t.equal(res.statusCode, 200, query)
    return res.json().page
  }
  t.match(await pageOf('page=%202%20'), { page: 2 }, 'whitespace is removed')
  t.match(await pageOf('page=%2B1'), { page: 1 }, 'a plus sign')
  t.match(await pageOf('page=0x2'), { page: 2 }, 'hex with 0x')
  t.match(await pageOf('page=%232'), { page: 2 }, 'hex with #')
  t.match(await pageOf('page=007'), { page: 7 }, 'leading zeros are decimal, not octal')
  t.match(await pageOf('page=&size='), { page: 0, pageSize: 10 }, 'an empty value takes the default')
  t.match(await pageOf('size=3&size=5'), { pageSize: 3 }, 'a repeated parameter takes the first value')
  for (const [query, field, rejected] of [['page=1e3', 'page', '1e3'], ['page=1.0', 'page', '1.0'], ['size=0x', 'size', '0x'], ['size=%2B', 'size', '+']]) {
    const res = await api(app, { url: `/api/banks?${query}` })
    t.equal(res.statusCode, 400, query)
    t.same(res.json().errors, [{ field, rejectedValue: rejected, defaultMessage: "Failed to convert value of type 'java.lang.String' to required type 'java.lang.Integer'", code: 'typeMismatch' }], query)
    t.equal(res.json().message, `${field}: Failed to convert value of type 'java.lang.String' to required type 'java.lang.Integer'`)
  }
  const negativeHex = await api(app, { url: '/api/banks?page=-0x1' })
  t.match(negativeHex.json().errors, [{ field: 'page', code: 'Min', rejectedValue: -1 }], 'a negative hex page is below the minimum')
})

t.test('the paging error messages use Hibernate wording', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/banks?size=0' })
  t.same(res.json().errors, [{ field: 'size', rejectedValue: 0, defaultMessage: 'must be greater than or equal to 1', code: 'Min' }])
  t.equal(res.json().message, 'size: must be greater than or equal to 1')
  const big = await api(app, { url: '/api/banks?size=2001' })
  t.match(big.json().errors, [{ defaultMessage: 'must be less than or equal to 2000' }])
  const huge = await api(app, { url: '/api/banks?page=2147483648' })
  t.equal(huge.statusCode, 400, 'a page beyond a Java Integer')
  t.match(huge.json().errors, [{ field: 'page', code: 'Max' }])
  const largest = await api(app, { url: '/api/banks?page=2147483647' })
  t.equal(largest.statusCode, 200)
  t.same(largest.json().banks, [])
})

t.test('an empty list has totalPages 0 with first and last true', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts?customerId=1002100000001' })
  t.same(res.json().page, { page: 0, pageSize: 10, numberOfElements: 0, totalElements: 0, totalPages: 0, first: true, last: true })
  const past = await api(app, { url: '/api/accounts?customerId=1002100000001&page=3' })
  t.same(past.json().page, { page: 3, pageSize: 10, numberOfElements: 0, totalElements: 0, totalPages: 0, first: false, last: true })
  const empty = await build(t, { scenario: 'empty' })
  const banks = await api(empty, { url: '/api/banks', agent: null, token: null })
  t.equal(banks.statusCode, 401, 'the empty scenario still needs a token')
})

t.test('a missing Agent-Id is a 400 with Spring\'s message on every secured operation', async (t) => {
  const app = await build(t)
  for (const url of [...LISTS, '/api/accounts/1001200000001', '/api/customers/1001100000001', '/api/products/CALL']) {
    const res = await api(app, { url, agent: null })
    assertErrorShape(t, res, 400, url.split('?')[0])
    t.equal(res.json().message, "Required request header 'Agent-Id' for method parameter type String is not present")
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_AGENT_ID_MISSING')
  }
  const post = await api(app, { url: '/api/accounts', agent: null, body: { customerId: '1001100000001' } })
  t.equal(post.statusCode, 400)
  t.equal(post.headers['x-sandbox-error'], 'SANDBOX_ERR_AGENT_ID_MISSING')
})

t.test('an unknown path is a 404 in the error shape', async (t) => {
  const app = await build(t)
  for (const url of ['/api/nothing', '/api/accounts/1001200000001/extra', '/nothing']) {
    const res = await api(app, { url })
    assertErrorShape(t, res, 404, url)
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_ROUTE_NOT_FOUND')
  }
})

t.test('a path that the router cannot take apart still answers in the error shape', async (t) => {
  const app = await build(t)
  const bad = await api(app, { url: '/api/accounts/%ZZ' })
  assertErrorShape(t, bad, 400, '/api/accounts/%ZZ')
  t.notMatch(bad.body, /FST_/, 'no framework error code')
  t.ok(bad.headers['x-request-id'], 'the request id like every other answer')
  const long = `/api/guarantees/${'G'.repeat(5000)}/state`
  const size = await api(app, { url: long, token: null, agent: null })
  assertErrorShape(t, size, 400, long)
  t.equal(size.json().errors[0].field, 'guaranteeID', 'a long id reaches the schema: the Spring 400 naming the parameter')
  const huge = `/api/guarantees/${'G'.repeat(9000)}/state`
  const res = await api(app, { url: huge, token: null, agent: null })
  assertErrorShape(t, res, 414, huge)
})

t.test('a wrong method is a 405 with an Allow header', async (t) => {
  const app = await build(t)
  const del = await api(app, { url: '/api/banks', method: 'DELETE' })
  assertErrorShape(t, del, 405, '/api/banks')
  t.match(del.headers.allow, /\bGET\b/)
  t.notMatch(del.headers.allow, /\bDELETE\b/)
  t.equal(del.json().message, "Request method 'DELETE' is not supported")
  const put = await api(app, { url: '/api/accounts', method: 'PUT', body: {} })
  assertErrorShape(t, put, 405, '/api/accounts')
  const allow = String(put.headers.allow).split(/, */)
  t.ok(allow.includes('GET') && allow.includes('POST'), `Allow: ${allow.join(', ')}`)
  const versioned = await api(app, { url: '/4.0/api/guarantees/GTE-A-0001/state', method: 'POST', body: {} })
  assertErrorShape(t, versioned, 405, '/4.0/api/guarantees/GTE-A-0001/state')
  t.match(versioned.headers.allow, /\bGET\b/)
})

t.test('a text/plain body is a 415', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/api/accounts', body: 'customerId=1001100000001', headers: { 'content-type': 'text/plain' } })
  assertErrorShape(t, res, 415, '/api/accounts')
  t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_MEDIA_TYPE')
  const form = await api(app, { url: '/api/accounts', body: 'customerId=1001100000001', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  assertErrorShape(t, form, 415, '/api/accounts')
})

t.test('a body over the configured limit is a 413', async (t) => {
  const app = await build(t, { bodyLimit: 1024 })
  const res = await api(app, { url: '/api/customers/1001100000001/messages', body: { message: 'M'.repeat(2000), fromDepartment: '', fromPerson: '' } })
  assertErrorShape(t, res, 413, '/api/customers/1001100000001/messages')
  t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_BODY_TOO_LARGE')
  t.match(res.json().message, /1024 bytes/)
  const small = await api(app, { url: '/api/customers/1001100000001/messages', body: { message: 'M', fromDepartment: '', fromPerson: '' } })
  t.equal(small.statusCode, 200, 'a body under the limit passes')
})

t.test('malformed JSON is a 400 without parser internals', async (t) => {
  const app = await build(t)
  for (const body of ['{"customerId": ', '{customerId: 1}', '[1,2']) {
    const res = await api(app, { url: '/api/accounts', body, headers: { 'content-type': 'application/json' } })
    assertErrorShape(t, res, 400, '/api/accounts')
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_MALFORMED_JSON')
  }
  const empty = await api(app, { url: '/api/accounts', method: 'POST', headers: { 'content-type': 'application/json' } })
  assertErrorShape(t, empty, 400, '/api/accounts')
  t.equal(empty.headers['x-sandbox-error'], 'SANDBOX_ERR_BODY_MISSING')
  t.equal(empty.json().message, 'Required request body is missing')
  const array = await api(app, { url: '/api/accounts', body: [] })
  assertErrorShape(t, array, 400, '/api/accounts')
})

t.test('validation, auth and not-found errors all have the Spring body shape', async (t) => {
  const app = await build(t)
  const token = await tokenFor(app)
  const cases: Array<[LightMyRequestResponse, number, string]> = [
    [await api(app, { url: '/api/accounts', body: { customerId: 'x' } }), 400, '/api/accounts'],
    [await api(app, { url: '/api/banks', token: null }), 401, '/api/banks'],
    [await api(app, { url: '/api/banks', token: `${token}x` }), 401, '/api/banks'],
    [await api(app, { url: '/api/banks', agent: '2001' }), 403, '/api/banks'],
    [await api(app, { url: '/api/accounts/1001299999999' }), 404, '/api/accounts/1001299999999'],
    [await api(app, { url: '/api/banks?page=-1' }), 400, '/api/banks']
  ]
  for (const [res, status, path] of cases) assertErrorShape(t, res, status, path)
})

t.test('/4.1/api and /api are the same latest version, without deprecation headers', async (t) => {
  const app = await build(t)
  const latest = await api(app, { url: '/api/banks?size=5' })
  const v41 = await api(app, { url: '/4.1/api/banks?size=5' })
  t.equal(v41.statusCode, 200)
  t.same(v41.json(), latest.json())
  for (const res of [latest, v41]) {
    t.equal(res.headers.deprecation, undefined)
    t.equal(res.headers.link, undefined)
  }
})

t.test('deprecated versions answer with Deprecation (RFC 9745) and a Link to their docs', async (t) => {
  const app = await build(t)
  const latest = (await api(app, { url: '/api/banks' })).json()
  for (const version of ['4.0', '3.1', '3.0', '2.1', '2.0']) {
    const res = await api(app, { url: `/${version}/api/banks` })
    t.equal(res.statusCode, 200, version)
    t.same(res.json(), latest)
    t.match(res.headers.deprecation, /^@\d+$/, 'an RFC 9745 date: @ and epoch seconds')
    t.equal(res.headers.deprecation, `@${Date.parse('2026-01-01T00:00:00Z') / 1000}`, 'the configured deprecation date')
    t.match(res.headers.link, `<http://sandbox.test/${version}/api/docs/apidocs>; rel="deprecation"`)
    const err = await api(app, { url: `/${version}/api/accounts/1001299999999` })
    t.equal(err.statusCode, 404)
    t.equal(err.json().path, `/${version}/api/accounts/1001299999999`, 'errors name the path as sent')
    t.match(err.headers.deprecation, /^@\d+$/, 'errors of a deprecated version are marked too')
  }
})

t.test('version 1.3 is served without deprecation marks', async (t) => {
  const app = await build(t)
  const res = await api(app, { url: '/1.3/api/banks' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers.deprecation, undefined)
  t.equal(res.headers.link, undefined)
})

t.test('unknown versions are a 404 in the error shape', async (t) => {
  const app = await build(t)
  for (const version of ['5.0', '4.2', '1.0', '4']) {
    const res = await api(app, { url: `/${version}/api/banks` })
    assertErrorShape(t, res, 404, `/${version}/api/banks`)
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_VERSION_NOT_FOUND')
  }
})

t.test('versioned paths reach every operation, including creates and the public guarantee state', async (t) => {
  const app = await build(t)
  const created = await api(app, { url: '/3.0/api/accounts', body: { customerId: '1001100000001' } })
  t.equal(created.statusCode, 200)
  const read = await api(app, { url: `/api/accounts/${created.json().id as string}` })
  t.equal(read.statusCode, 200, 'one store behind every version')
  const guarantee = await api(app, { url: '/2.0/api/guarantees/GTE-A-0001/state', token: null, agent: null })
  t.same(guarantee.json(), { state: 'VALID' })
  t.match(guarantee.headers.deprecation, /^@\d+$/)
})

t.test('agent 1002 sees none of the records of agent 1001 through any list', async (t) => {
  const app = await build(t)
  const ids = (res: LightMyRequestResponse, key: string, idField: string): string[] => res.json()[key].map((r: Record<string, string>) => r[idField])
  const mineCustomers = ids(await api(app, { url: '/api/customers?size=2000' }), 'customers', 'customerId')
  const theirCustomers = ids(await api(app, { url: '/api/customers?size=2000', agent: '1002' }), 'customers', 'customerId')
  t.ok(mineCustomers.length > 0 && theirCustomers.length > 0)
  t.same(theirCustomers.filter((id) => mineCustomers.includes(id)), [])
  for (const id of mineCustomers.slice(0, 5)) {
    for (const url of [`/api/customers/${id}`, `/api/customers/${id}/beneficiaries`, `/api/customers/${id}/messages`]) {
      t.equal((await api(app, { url, agent: '1002' })).statusCode, 404, url)
    }
    t.same((await api(app, { url: `/api/accounts?customerId=${id}`, agent: '1002' })).json().accounts, [])
  }
})

t.test('a body nested deeper than Jackson allows is a 400 parse error, never a 500', async (t) => {
  const app = await build(t)
  const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`
  const res = await api(app, { url: '/api/customers/1001100000001/messages', body: deep, headers: { 'content-type': 'application/json' } })
  assertErrorShape(t, res, 400, '/api/customers/1001100000001/messages')
  t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_MALFORMED_JSON')
  t.match(res.json().message, /nesting depth/)
  const fine = await api(app, { url: '/api/customers/1001100000001/messages', body: { message: 'HI', fromDepartment: 'X', fromPerson: 'Y', extra: { a: { b: null } } } })
  t.equal(fine.statusCode, 200, 'nested unknown properties with nulls are simply ignored')
})

t.test('an Accept header that admits no JSON is answered 406, as Spring does', async (t) => {
  const app = await build(t)
  for (const accept of ['application/json', '*/*', 'application/*', 'text/html, application/json;q=0.9', 'application/problem+json']) {
    t.equal((await api(app, { url: '/api/banks', headers: { accept } })).statusCode, 200, `Accept: ${accept}`)
  }
  for (const accept of ['application/xml', 'text/html', 'application/json;q=0']) {
    const res = await api(app, { url: '/api/banks', headers: { accept } })
    assertErrorShape(t, res, 406, '/api/banks')
    t.equal(res.headers['x-sandbox-error'], 'SANDBOX_ERR_NOT_ACCEPTABLE', `Accept: ${accept}`)
  }
})
