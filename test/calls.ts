/** A client_credentials token from the sandbox's token endpoint over HTTP (HTTP Basic, as a partner's backend asks). */
export async function token (base: string, clientId = 'partner-a', secret = `${clientId}-secret`): Promise<string> {
  const res = await fetch(`${base}/auth/realms/sandbox/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  if (res.status !== 200) throw new Error(`token from ${base}: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

/** An answer as a client saw it; status 0 when the connection was dropped without one. */
export interface Sent { status: number, headers: Headers, body: string }

export interface CallOptions { method?: string, body?: unknown, headers?: Record<string, string> }

/**
 * One call of the bank's API as agent 1001 with a bearer token: a POST with a JSON body when there is a body,
 * else a GET (opts.method overrides). A dropped connection (an injected reset) is status 0, not an error.
 */
export async function call (base: string, bearer: string, path: string, opts: CallOptions = {}): Promise<Sent> {
  try {
    const res = await fetch(`${base}${path}`, {
      method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${bearer}`, 'agent-id': '1001', ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body)
    })
    return { status: res.status, headers: res.headers, body: await res.text() }
  } catch {
    return { status: 0, headers: new Headers(), body: '' }
  }
}

/** A call (as `call`) judged by its status and the request id the server gave it (X-Request-Id; null when dropped). */
export async function callWithId (...args: Parameters<typeof call>): Promise<{ status: number, requestId: string | null }> {
  const sent = await call(...args)
  return { status: sent.status, requestId: sent.headers.get('x-request-id') }
}
