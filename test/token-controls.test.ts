import { request as httpRequest } from 'node:http'
import t from 'tap'
import { listen, PARTNER_A, PARTNER_B, TOKEN_PATH, type Credentials } from './helper.js'

/*
 * The token controls of issue 29, over real HTTP with tokens the sandbox issues: POST /__sandbox/tokens/expire,
 * faults at the token endpoint of a partner's own clients, and the public guarantee-state read filed for the
 * partner whose valid token it carries.
 */

const basic = (who: Credentials): string => `Basic ${Buffer.from(`${who.client}:${who.secret}`).toString('base64')}`

interface Answer { status: number, body: any, headers: Headers }

/** A token request on its own connection; `error` is set when it ended without an answer (or the client gave up). */
async function grant (base: string, form: Record<string, string>, opts: { who?: Credentials, headers?: Record<string, string>, giveUpMs?: number } = {}): Promise<Answer & { error?: string }> {
  return await new Promise((resolve) => {
    const req = httpRequest(`${base}${TOKEN_PATH}`, {
      method: 'POST',
      agent: false,
      headers: { authorization: basic(opts.who ?? PARTNER_A), 'content-type': 'application/x-www-form-urlencoded', ...opts.headers }
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { text += c })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? null : JSON.parse(text), headers: new Headers(res.headers as Record<string, string>) }))
    })
    const failed = (error: string): void => resolve({ status: 0, body: null, headers: new Headers(), error })
    req.on('error', (err: NodeJS.ErrnoException) => failed(err.code ?? err.message))
    req.setTimeout(opts.giveUpMs ?? 10000, () => {
      req.destroy()
      failed('CLIENT_GAVE_UP')
    })
    req.end(new URLSearchParams(form).toString())
  })
}

async function call (base: string, token: string, method: string, path: string, body?: unknown, agentId = '1001'): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'agent-id': agentId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? null : JSON.parse(text), headers: res.headers }
}

const clientToken = async (base: string, who: Credentials = PARTNER_A): Promise<string> => {
  const res = await grant(base, { grant_type: 'client_credentials' }, { who })
  if (res.status !== 200) throw new Error(`token request: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.access_token
}

/** The partner's journal, newest first. */
async function journal (base: string, token: string, query = ''): Promise<Array<{ method: string, path: string, status: number, route: string | null, fault: string | null }>> {
  return (await call(base, token, 'GET', `/__sandbox/requests?limit=100${query}`)).body.requests
}

t.test('POST /__sandbox/tokens/expire: every access token issued so far is refused as expired; new ones work', async (t) => {
  const { base } = await listen(t)
  const old = await clientToken(base)
  const user = await grant(base, { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'openid' })
  t.equal(user.status, 200)
  const other = await clientToken(base, PARTNER_B)
  t.equal((await call(base, old, 'GET', '/api/banks')).status, 200, 'good before')

  const expired = await call(base, old, 'POST', '/__sandbox/tokens/expire')
  t.equal(expired.status, 200, 'no body needed')
  t.same(Object.keys(expired.body).sort(), ['issuedBefore', 'refresh'])
  t.equal(expired.body.refresh, false)
  t.ok(Date.parse(expired.body.issuedBefore) <= Date.now(), 'the cut-off has begun when it answers')

  for (const token of [old, user.body.access_token]) {
    const res = await call(base, token, 'GET', '/api/banks')
    t.equal(res.status, 401, 'a client\'s and a user\'s token alike')
    t.equal(res.headers.get('www-authenticate'), 'Bearer realm="sandbox", error="invalid_token", error_description="the access token expired"')
    t.match(res.body, { status: 401, message: 'Invalid access token: the access token expired' })
  }
  t.equal((await call(base, other, 'GET', '/api/banks', undefined, '2001')).status, 200, 'another partner\'s token keeps working')
  const fresh = await clientToken(base)
  t.equal((await call(base, fresh, 'GET', '/api/banks')).status, 200, 'a token issued after the answer works')
  const refreshed = await grant(base, { grant_type: 'refresh_token', refresh_token: user.body.refresh_token })
  t.equal(refreshed.status, 200, 'without refresh, refresh tokens keep working')
  t.equal((await call(base, refreshed.body.access_token, 'GET', '/api/banks')).status, 200)

  const refused = (await journal(base, fresh)).filter((e) => e.status === 401)
  t.equal(refused.length, 2, 'the refusals are in the partner\'s journal')
})

t.test('with {"refresh": true} refresh tokens are refused too: the client must sign in again', async (t) => {
  const { base } = await listen(t)
  const signIn = async (): Promise<Answer> => await grant(base, { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'openid' })
  const user = await signIn()
  const otherUser = await grant(base, { grant_type: 'password', username: 'bob', password: 'bob-password', scope: 'openid' }, { who: PARTNER_B })
  t.equal(otherUser.status, 200)
  const res = await call(base, user.body.access_token, 'POST', '/__sandbox/tokens/expire', { refresh: true })
  t.equal(res.status, 200)
  t.equal(res.body.refresh, true)
  const refreshed = await grant(base, { grant_type: 'refresh_token', refresh_token: user.body.refresh_token })
  t.equal(refreshed.status, 400)
  t.match(refreshed.body, { error: 'invalid_grant', error_description: 'Token is not active' }, 'as Keycloak says of an expired one')
  t.equal((await grant(base, { grant_type: 'refresh_token', refresh_token: otherUser.body.refresh_token }, { who: PARTNER_B })).status, 200, 'another partner\'s refresh tokens keep working')
  const again = await signIn()
  t.equal(again.status, 200, 'signing in again works')
  t.equal((await grant(base, { grant_type: 'refresh_token', refresh_token: again.body.refresh_token })).status, 200, 'and so does its refresh token')

  const bad = await call(base, again.body.access_token, 'POST', '/__sandbox/tokens/expire', { refresh: 'yes' })
  t.equal(bad.status, 400, 'a wrong body is a 400')
  t.equal((await call(base, again.body.access_token, 'GET', '/api/banks')).status, 200, 'and changes nothing')
  t.equal((await fetch(`${base}/__sandbox/tokens/expire`, { method: 'POST' })).status, 401, 'a token is needed')
})

t.test('a fault rule at the token endpoint answers for that partner\'s clients only', async (t) => {
  const { base } = await listen(t, { faultHold: 1500 })
  const token = await clientToken(base)
  const rule = await call(base, token, 'POST', '/__sandbox/faults', { match: { method: 'POST', path: '/**/protocol/openid-connect/token' }, fault: 'status=503', times: 2 })
  t.equal(rule.status, 200)
  t.equal((await call(base, token, 'GET', '/api/banks')).status, 200, 'the API is untouched')

  const failed = await grant(base, { grant_type: 'client_credentials' })
  t.equal(failed.status, 503)
  t.equal(failed.headers.get('retry-after'), '5')
  t.equal(failed.headers.get('sandbox-fault-applied'), 'status=503; source=rule; rule=rule-1')
  t.equal((await grant(base, { grant_type: 'password', username: 'alice', password: 'alice-password' })).status, 503, 'every grant of the partner')
  t.equal((await grant(base, { grant_type: 'client_credentials' }, { who: PARTNER_B })).status, 200, 'another partner gets its tokens')
  t.equal((await grant(base, { grant_type: 'client_credentials' })).status, 200, 'the rule expired after 2')
  const entries = await journal(base, token, '&route=/auth/realms/sandbox/protocol/openid-connect/token')
  t.same(entries.map((e) => e.status), [200, 503, 503, 200], 'the token requests in the partner\'s journal')

  // a client that sends its credentials in the form (client_secret_post) is found too; a timeout holds, then drops
  await call(base, token, 'POST', '/__sandbox/faults', { match: { route: '/auth/realms/sandbox/protocol/openid-connect/token' }, fault: 'timeout', times: 1 })
  const held = await grant(base, { grant_type: 'client_credentials', client_id: PARTNER_A.client, client_secret: PARTNER_A.secret }, { headers: { authorization: '' }, giveUpMs: 500 })
  t.equal(held.error, 'CLIENT_GAVE_UP', 'no answer')
  const after = await grant(base, { grant_type: 'client_credentials', client_id: PARTNER_A.client, client_secret: PARTNER_A.secret }, { headers: { authorization: '' } })
  t.equal(after.status, 200, 'the next one is answered, with the form read once by the sandbox and once by the provider')
  await new Promise((resolve) => setTimeout(resolve, 1200))
  t.match((await journal(base, token, '&status=0')), [{ status: 0, fault: /^timeout; source=rule; rule=rule-2/ }], 'the dropped request is journaled')
})

t.test('Sandbox-Fault at the token endpoint: before and after the provider answers; wrong credentials are not faulted', async (t) => {
  const { base } = await listen(t)
  const status = await grant(base, { grant_type: 'client_credentials' }, { headers: { 'sandbox-fault': 'status=502' } })
  t.equal(status.status, 502)
  t.match(status.body, { status: 502, path: TOKEN_PATH })
  const reset = await grant(base, { grant_type: 'client_credentials' }, { headers: { 'sandbox-fault': 'reset' } })
  t.equal(reset.status, 0)
  t.ok(reset.error !== undefined, `dropped (${reset.error ?? ''})`)
  const after = await grant(base, { grant_type: 'client_credentials' }, { headers: { 'sandbox-fault': 'after, status=504' } })
  t.equal(after.status, 504, 'the token was issued, the client never sees it')
  t.notOk(JSON.stringify(after.body).includes('access_token'))
  t.equal(after.headers.get('sandbox-fault-applied'), 'after, status=504; source=header')
  const malformed = await grant(base, { grant_type: 'client_credentials' }, { headers: { 'sandbox-fault': 'status=99' } })
  t.equal(malformed.status, 400, 'a malformed header is a 400')
  t.match(malformed.body.errors, [{ field: 'Sandbox-Fault' }])
  const stranger = await grant(base, { grant_type: 'client_credentials' }, { who: { client: 'partner-a', secret: 'wrong' }, headers: { 'sandbox-fault': 'status=503' } })
  t.equal(stranger.status, 401, 'a request that proves no partner gets the provider\'s answer')
})

t.test('the public guarantee-state read is filed for the partner whose valid token it carries', async (t) => {
  const { base } = await listen(t)
  const token = await clientToken(base)
  const made = await call(base, token, 'POST', '/__sandbox/guarantees', { state: 'VALID' })
  t.equal(made.status, 200)
  const path = `/api/guarantees/${made.body.guaranteeId as string}/state`
  t.equal((await fetch(`${base}${path}`)).status, 200, 'no token')
  t.equal((await fetch(`${base}${path}`, { headers: { authorization: 'Bearer not-a-token' } })).status, 200, 'a bad token is not refused')
  const withToken = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(withToken.status, 200)
  const reads = (await journal(base, token)).filter((e) => e.path === path)
  t.equal(reads.length, 1, 'only the read with the partner\'s token is in its journal')
  t.equal((await journal(base, await clientToken(base, PARTNER_B))).filter((e) => e.path === path).length, 0, 'and in no other')

  await call(base, token, 'POST', '/__sandbox/faults', { match: { path: '/api/guarantees/*/state' }, fault: 'status=503', times: 1 })
  t.equal((await fetch(`${base}${path}`)).status, 200, 'the partner\'s rules do not reach a read without its token')
  t.equal((await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })).status, 503, 'they reach its own')
})
