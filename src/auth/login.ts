import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type Provider from 'oidc-provider'
import { headersToRaw } from '../raw-headers.js'
import type { World } from '../store/world.js'
import { sessionCookie } from './browser-session.js'
import { ownerOf } from './clients.js'
import { sessionId } from './keycloak-tokens.js'
import { userKey, type Lockout } from './lockout.js'
import { verifyPassword } from '../store/credentials.js'
import { userSubject } from './realm.js'

const esc = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

interface LoginView {
  uid: string
  clientName: string
  usernames: string[]
  username?: string
  error?: string
}

/** A plain, accessible sign-in form (labels, autocomplete, an alert region for errors; no script). */
function page (v: LoginView): string {
  const error = v.error === undefined ? '' : `<p id="error" role="alert" class="error">${esc(v.error)}</p>`
  const hint = v.usernames.length === 0 ? '' : `<p class="hint">Test users of this client: ${v.usernames.map(esc).join(', ')} (passwords in the sandbox README).</p>`
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to the Banking Agent Sandbox</title>
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}
input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box;border:1px solid #555;border-radius:4px}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem;background:#0b4f8a;color:#fff;border:0;border-radius:4px}
.error{background:#fde8e8;border:1px solid #a40000;color:#a40000;padding:.5rem}
.hint{color:#444;font-size:.9rem}
</style>
</head>
<body>
<main>
<h1>Sign in</h1>
<p>to <strong>${esc(v.clientName)}</strong> on the Banking Agent Sandbox</p>
${error}
<form method="post" action="${esc(v.uid)}" autocomplete="on">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" required autofocus value="${esc(v.username ?? '')}"${v.error === undefined ? '' : ' aria-describedby="error"'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${hint}
<p><a href="${esc(v.uid)}/abort">Cancel</a></p>
</main>
</body>
</html>`
}

/**
 * The interaction pages of the authorization code flow: a login form for the client's test users, and
 * an implicit consent (a sandbox user has nothing to decide). Mounted at {realm}/login/{uid}.
 */
export default async function loginRoutes (fastify: FastifyInstance, opts: { provider: () => Promise<Provider>, world: World, lockout: Lockout, issuer: string }): Promise<void> {
  const { world, lockout } = opts
  // the provider is loaded at its first use (auth/index.ts): these pages wait for it
  let provider: Provider
  fastify.addHook('onRequest', async () => { provider ??= await opts.provider() })
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8192 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })

  async function details (request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply) {
    const d = await provider.interactionDetails(request.raw, reply.raw)
    if (d.uid !== request.params.uid) throw new Error('interaction mismatch')
    return d
  }

  function view (clientId: string, uid: string): LoginView {
    const partner = ownerOf(world, clientId)?.partner
    return { uid, clientName: partner?.name ?? clientId, usernames: partner?.users.map((u) => u.username) ?? [] }
  }

  async function finish (request: FastifyRequest, reply: FastifyReply, result: Parameters<Provider['interactionFinished']>[2]): Promise<void> {
    reply.hijack()
    headersToRaw(reply)
    await provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: false })
  }

  fastify.get<{ Params: { uid: string } }>('/:uid', async (request, reply) => {
    const d = await details(request, reply).catch(() => undefined)
    if (d === undefined) return reply.code(400).type('text/html; charset=utf-8').send(expired())
    if (d.prompt.name === 'consent') {
      const grant = d.grantId === undefined
        ? new provider.Grant({ accountId: d.session!.accountId, clientId: String(d.params.client_id) })
        : (await provider.Grant.find(d.grantId))!
      const missing = d.prompt.details as { missingOIDCScope?: string[], missingOIDCClaims?: string[], missingResourceScopes?: Record<string, string[]> }
      if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(' '))
      if (missing.missingOIDCClaims !== undefined) grant.addOIDCClaims(missing.missingOIDCClaims)
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '))
      const grantId = await grant.save()
      // the browser's Keycloak session: what keycloak-js's login-status iframe checks
      reply.raw.setHeader('set-cookie', sessionCookie(opts.issuer, sessionId(grantId)))
      return await finish(request, reply, { consent: { grantId } })
    }
    return reply.type('text/html; charset=utf-8').send(page(view(String(d.params.client_id), d.uid)))
  })

  fastify.post<{ Params: { uid: string }, Body: { username?: string, password?: string } }>('/:uid', async (request, reply) => {
    const d = await details(request, reply).catch(() => undefined)
    if (d === undefined) return reply.code(400).type('text/html; charset=utf-8').send(expired())
    const clientId = String(d.params.client_id)
    const username = String(request.body?.username ?? '').trim()
    const password = String(request.body?.password ?? '')
    // a public client's users are its partner's
    const partner = ownerOf(world, clientId)?.partner
    const user = partner?.user(username)
    const key = user === undefined ? undefined : userKey(partner!.id, user.username)
    // a locked user sees the same message as a wrong password (Keycloak's brute force detection)
    const ok = partner !== undefined && user !== undefined && !await lockout.isLocked(key!) && await verifyPassword(user.passwordHash, password)
    if (key !== undefined) {
      if (ok) await lockout.succeeded(key)
      else await lockout.failed(key)
    }
    if (!ok) {
      return reply.code(200).type('text/html; charset=utf-8')
        .send(page({ ...view(clientId, d.uid), username, error: 'Invalid username or password.' }))
    }
    return await finish(request, reply, { login: { accountId: userSubject(partner.id, user.username) } })
  })

  fastify.get<{ Params: { uid: string } }>('/:uid/abort', async (request, reply) => {
    const d = await details(request, reply).catch(() => undefined)
    if (d === undefined) return reply.code(400).type('text/html; charset=utf-8').send(expired())
    return await finish(request, reply, { error: 'access_denied', error_description: 'The user cancelled the sign-in' })
  })
}

function expired (): string {
  return '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign-in expired</title></head><body><main><h1>Sign-in expired</h1>' +
    '<p>This sign-in page is no longer valid. Start again from your application.</p></main></body></html>'
}
