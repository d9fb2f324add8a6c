import { createHash, randomBytes } from 'node:crypto'
import { browse, Jar } from '../e2e/flow.js'
import type { Replica } from './harness.js'

/*
 * The identity provider's flows over real HTTP, each step at a replica of the test's choosing: the provider
 * writes its redirects with the public URL (the same for every replica), and each is sent on to the next
 * replica of a route, as a load balancer might. The browser is a cookie jar (test/e2e/flow.ts).
 */

export const OIDC = '/auth/realms/sandbox/protocol/openid-connect'

export const basic = (clientId: string, secret = `${clientId}-secret`): string => `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`

/** The URL (as the provider writes it, with the public URL) at a replica. */
export function at (replica: Replica, url: string | URL): URL {
  const u = new URL(url)
  return new URL(`${u.pathname}${u.search}`, replica.base)
}

export interface Answer { status: number, json: any, headers: Headers }

async function answer (res: Response): Promise<Answer> {
  const text = await res.text()
  let json: unknown
  try { json = text === '' ? null : JSON.parse(text) } catch { json = text }
  return { status: res.status, json, headers: res.headers }
}

/** A form POST to an endpoint of the realm at a replica, authenticated as a client (HTTP Basic) unless `auth` is null. */
export async function oidcPost (replica: Replica, path: string, form: Record<string, string>, auth: string | null = basic('partner-a')): Promise<Answer> {
  return await answer(await fetch(`${replica.base}${OIDC}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth === null ? {} : { authorization: auth }) },
    body: new URLSearchParams(form).toString()
  }))
}

export interface Pkce { verifier: string, challenge: string }

export function pkce (): Pkce {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** The authorization request of partner-a for its docs redirect URI (registered on every client), with PKCE. */
export function authorizationUrl (replica: Replica, redirectUri: string, p: Pkce, extra: Record<string, string> = {}): URL {
  const url = new URL(`${replica.base}${OIDC}/auth`)
  const params = { client_id: 'partner-a', redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: randomBytes(8).toString('hex'), code_challenge: p.challenge, code_challenge_method: 'S256', ...extra }
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url
}

export interface SignedIn {
  code: string
  /** Login pages shown on the way (0: the browser's session was known already). */
  loginPages: number
  /** The replicas that answered, in order. */
  visited: number[]
}

/**
 * The browser's part of the code flow from an authorization request to the code at the redirect URI, as
 * alice: the first request at the replica of `start`, every following step at the next replica of the route.
 */
export async function signIn (jar: Jar, route: Replica[], start: URL, redirectUri: string, password = 'alice-password'): Promise<SignedIn> {
  let url = start
  let res = await browse(jar, url)
  let hop = 0
  const visited = [route.findIndex((r) => r.base === url.origin) + 1]
  let loginPages = 0
  for (let step = 0; step < 20; step++) {
    if (res.status >= 300 && res.status < 400) {
      const location = new URL(res.headers.get('location')!, url)
      await res.arrayBuffer()
      if (location.href.startsWith(redirectUri)) {
        const code = location.searchParams.get('code')
        if (code === null) throw new Error(`back at the redirect URI without a code: ${location.href}`)
        return { code, loginPages, visited }
      }
      hop += 1
      url = at(route[hop % route.length], location)
      visited.push(hop % route.length + 1)
      res = await browse(jar, url)
      continue
    }
    const html = await res.text()
    if (res.status !== 200 || !html.includes('<form method="post"')) throw new Error(`the flow stopped at ${url.href} with ${res.status}: ${html.slice(0, 300)}`)
    loginPages += 1
    hop += 1
    url = at(route[hop % route.length], url)
    visited.push(hop % route.length + 1)
    res = await browse(jar, url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'alice', password }).toString()
    })
  }
  throw new Error('the flow did not end')
}

/** The code redeemed at a replica's token endpoint (partner-a, Basic). */
export async function redeem (replica: Replica, code: string, redirectUri: string, p: Pkce): Promise<Answer> {
  return await oidcPost(replica, '/token', { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: p.verifier })
}

/** GET /api/banks with a token at a replica: the status the API gives it. */
export async function apiStatus (replica: Replica, token: string): Promise<number> {
  const res = await fetch(`${replica.base}/api/banks`, { headers: { authorization: `Bearer ${token}`, 'agent-id': '1001' } })
  await res.arrayBuffer()
  return res.status
}

export { Jar }
