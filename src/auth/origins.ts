/**
 * Redirect URIs and web origins, matched as Keycloak matches them: a registered redirect URI ending in "*"
 * is a prefix; and over http a loopback host (localhost, 127.0.0.1, [::1]) matches any port (RFC 8252 7.3,
 * which Keycloak applies to loopback IPs; the sandbox also to localhost, so that a developer's single-page app
 * works on whatever port its dev server picks).
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

function parse (uri: string): URL | undefined {
  try {
    return new URL(uri)
  } catch {
    return undefined
  }
}

const loopback = (u: URL): boolean => u.protocol === 'http:' && LOOPBACK.has(u.hostname)

/** The origin a URI is served from, with the port left out for loopback hosts (any port matches). */
function originKey (u: URL): string {
  return loopback(u) ? `${u.protocol}//${u.hostname}` : u.origin
}

/** The origins of a client's redirect URIs: Keycloak's "+" web origin, which its allowed-origins claim lists. */
export function webOrigins (redirectUris: string[]): string[] {
  const origins = new Set<string>()
  for (const uri of redirectUris) {
    const u = parse(uri.replace(/\*$/, ''))
    if (u !== undefined && u.origin !== 'null') origins.add(u.origin)
  }
  return [...origins]
}

export function originAllowed (allowed: string[], origin: string): boolean {
  const o = parse(origin)
  if (o === undefined) return false
  const key = originKey(o)
  return allowed.some((a) => {
    const u = parse(a)
    return u !== undefined && originKey(u) === key
  })
}

export function redirectUriAllowed (registered: string[], uri: string): boolean {
  const u = parse(uri)
  if (u === undefined || u.hash !== '') return false
  return registered.some((r) => {
    const wildcard = r.endsWith('*')
    const p = parse(wildcard ? r.slice(0, -1) : r)
    if (p === undefined || originKey(p) !== originKey(u)) return false
    const rest = `${u.pathname}${u.search}`
    const want = `${p.pathname}${p.search}`
    return wildcard ? rest.startsWith(want) : rest === want
  })
}
