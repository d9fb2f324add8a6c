import { createPublicKey, type JsonWebKey } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { JWK } from 'jose'
import { originAllowed } from './origins.js'
import { OIDC_PATH, REALM } from './realm.js'

export interface KeycloakPagesOptions {
  /** the realm's URL as clients see it: {public URL}/auth/realms/sandbox */
  issuer: string
  /** Being made, when the sandbox generates its key (auth/index.ts): the realm information waits for it. */
  publicJwk: Promise<JWK>
  /** the allowed web origins of a client (undefined: no such client) */
  clientOrigins: (clientId: string) => string[] | undefined
}

// Keycloak's third-party cookie check, as keycloak-js loads it in a hidden iframe: step 1 sets two cookies,
// step 2 reads them back and tells the parent window whether third-party cookies work.
const STEP1 = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>3p-cookies step 1</title></head><body><script>
  document.cookie = "KEYCLOAK_3P_COOKIE_SAMESITE=supported; Max-Age=60; SameSite=None; Secure";
  document.cookie = "KEYCLOAK_3P_COOKIE=supported; Max-Age=60";
  window.location = "step2.html";
</script></body></html>`

const STEP2 = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>3p-cookies step 2</title></head><body><script>
  if (document.cookie.indexOf("KEYCLOAK_3P_COOKIE") !== -1) {
    document.cookie = "KEYCLOAK_3P_COOKIE_SAMESITE=; Max-Age=0; SameSite=None; Secure";
    document.cookie = "KEYCLOAK_3P_COOKIE=; Max-Age=0";
    window.parent.postMessage("supported", "*");
  } else {
    window.parent.postMessage("unsupported", "*");
  }
</script></body></html>`

// keycloak-js's session check: the app posts "<client_id> <session_state>"; the answer is "unchanged" while
// the browser's KEYCLOAK_SESSION cookie is the hash of that session, "changed" after a logout or another
// login, "error" for an origin the client does not allow (checked once by the init call, as Keycloak does).
const LOGIN_STATUS_IFRAME = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Login status</title></head><body><script>
  var checked = {};
  function cookie(name) {
    var parts = document.cookie.split("; ");
    for (var i = 0; i < parts.length; i++) if (parts[i].indexOf(name + "=") === 0) return parts[i].slice(name.length + 1);
    return "";
  }
  async function hash(text) {
    var digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    var s = "";
    for (var i = 0; i < digest.length; i++) s += String.fromCharCode(digest[i]);
    return btoa(s).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  }
  window.addEventListener("message", async function (event) {
    if (typeof event.data !== "string") return;
    var parts = event.data.split(" ");
    if (parts.length !== 2) return;
    var key = parts[0] + " " + event.origin;
    try {
      if (!checked[key]) {
        var res = await fetch("login-status-iframe.html/init?client_id=" + encodeURIComponent(parts[0]) + "&origin=" + encodeURIComponent(event.origin));
        if (res.status !== 204) { event.source.postMessage("error", event.origin); return; }
        checked[key] = true;
      }
      var session = cookie("KEYCLOAK_SESSION");
      event.source.postMessage(session !== "" && session === await hash(parts[1]) ? "unchanged" : "changed", event.origin);
    } catch (e) {
      event.source.postMessage("error", event.origin);
    }
  });
</script></body></html>`

/** An iframe page: framed by the partner's app on another origin, so without the X-Frame-Options: DENY of every other answer (Keycloak sends none there either). */
function html (reply: FastifyReply, body: string): FastifyReply {
  reply.removeHeader('x-frame-options')
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache, no-store, must-revalidate').send(body)
}

/**
 * Keycloak's realm resources besides OIDC: the realm information (GET /auth/realms/{realm}, read by adapters
 * and admin tools) and the pages keycloak-js loads in iframes. Mounted under /auth/realms/sandbox.
 */
export default async function keycloakPages (fastify: FastifyInstance, opts: KeycloakPagesOptions): Promise<void> {
  const realmInfo = opts.publicJwk.then((jwk) => ({
    realm: REALM,
    public_key: createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'der' }).toString('base64'),
    'token-service': `${opts.issuer}${OIDC_PATH}`,
    'account-service': `${opts.issuer}/account`,
    'tokens-not-before': 0
  }))
  // answered (after the key) by the route, not left unhandled meanwhile
  realmInfo.catch(() => {})
  fastify.get('', async () => await realmInfo)

  fastify.get(`${OIDC_PATH}/3p-cookies/step1.html`, async (_request, reply) => html(reply, STEP1))
  fastify.get(`${OIDC_PATH}/3p-cookies/step2.html`, async (_request, reply) => html(reply, STEP2))
  fastify.get(`${OIDC_PATH}/login-status-iframe.html`, async (_request, reply) => html(reply, LOGIN_STATUS_IFRAME))
  fastify.get<{ Querystring: { client_id?: string, origin?: string } }>(`${OIDC_PATH}/login-status-iframe.html/init`, async (request, reply) => {
    const { client_id: clientId, origin } = request.query
    const origins = clientId === undefined ? undefined : opts.clientOrigins(clientId)
    // Keycloak: 204 when the client exists and allows the origin, 403 otherwise
    const ok = origins !== undefined && origin !== undefined && originAllowed(origins, origin)
    return reply.code(ok ? 204 : 403).header('cache-control', 'no-store').send()
  })
}
