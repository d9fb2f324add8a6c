/* The browser's part of the authorization code flow, over real HTTP: cookies, redirects, the login form. */

/** Minimal cookie jar (name, path, expiry) for the browser part of the code flow. */
export class Jar {
  private readonly cookies = new Map<string, { value: string, path: string }>()
  store (res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim())
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      let path = '/'
      let gone = value === ''
      for (const a of attrs) {
        const [k, v = ''] = a.split('=')
        if (k.toLowerCase() === 'path') path = v
        if (k.toLowerCase() === 'expires' && Date.parse(v) <= Date.now()) gone = true
        if (k.toLowerCase() === 'max-age' && Number(v) <= 0) gone = true
      }
      const key = `${name} ${path}`
      if (gone) this.cookies.delete(key)
      else this.cookies.set(key, { value, path })
    }
  }

  header (url: URL): string {
    return [...this.cookies].filter(([, c]) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([key, c]) => `${key.split(' ')[0]}=${c.value}`).join('; ')
  }
}

/** One browser request (redirects not followed), with the jar's cookies. */
export async function browse (jar: Jar, url: URL, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header(url) } })
  jar.store(res)
  return res
}

/** Follows redirects until one leaves the sandbox (the client's redirect URI) or a page is shown. */
export async function follow (jar: Jar, start: Response, from: URL, stopAt: string): Promise<{ res: Response, url: URL }> {
  let res = start
  let url = from
  for (let i = 0; i < 10 && res.status >= 300 && res.status < 400; i++) {
    url = new URL(res.headers.get('location')!, url)
    if (url.href.startsWith(stopAt)) return { res, url }
    await res.arrayBuffer()
    res = await browse(jar, url)
  }
  return { res, url }
}

/** Signs a test user in through the login page; the URL the provider sends the browser back to. */
export async function signInAt (authUrl: URL, redirectUri: string, username: string, password: string): Promise<URL> {
  const jar = new Jar()
  const login = await follow(jar, await browse(jar, authUrl), authUrl, redirectUri)
  await login.res.text()
  const posted = await browse(jar, login.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password }).toString()
  })
  return (await follow(jar, posted, login.url, redirectUri)).url
}
