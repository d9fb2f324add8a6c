import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify'

type RouteHookName = 'onRequest' | 'preValidation' | 'preHandler'
export type RouteHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void

/**
 * Adds a hook to one route as it is registered (from an onRoute hook), so that only the routes that
 * need a check run it: a context-wide hook would run on every route and look the route's flags up
 * on every request.
 */
export function addRouteHook (route: RouteOptions, name: RouteHookName, hook: RouteHook): void {
  const existing = route[name] as RouteHook | RouteHook[] | undefined
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]
  // the HEAD route Fastify derives from a GET arrives with the GET's hooks already in place
  if (!list.includes(hook)) route[name] = [...list, hook] as never
}
