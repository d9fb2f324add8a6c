/*
 * How fault rules and journal filters name requests: a path pattern (* any characters within one segment,
 * ** any characters, the rest literal) and a route template as the API documents write it.
 */

/** The path of a URL as a request line carries it (path and query): without its query. */
export function pathOf (url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/** The path of a request as the client sent it (before version rewriting), without the query. */
export function requestPath (request: { originalUrl: string }): string {
  return pathOf(request.originalUrl)
}

const compiled = new Map<string, RegExp>()

/** The path pattern as a regular expression; the patterns in use are few, so each is compiled once. */
export function pathPattern (pattern: string): RegExp {
  let re = compiled.get(pattern)
  if (re === undefined) {
    const source = pattern.split('**').map((part) => part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')).join('.*')
    re = new RegExp(`^${source}$`)
    if (compiled.size < 1000) compiled.set(pattern, re)
  }
  return re
}

/** A route template in the router's form: {customerId} becomes :customerId (a :name is kept). */
export function routerTemplate (route: string): string {
  return route.replace(/\{([^}/]+)\}/g, ':$1')
}
