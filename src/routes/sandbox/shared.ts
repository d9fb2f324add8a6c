import type { FastifyRequest } from 'fastify'
import { SandboxError } from '../../errors.js'

/** The control API acts for the partner of the token (any token of the partner, no Agent-Id). */
export function partnerOf (request: FastifyRequest): string {
  if (request.token === null) throw new SandboxError('SANDBOX_ERR_INTERNAL', 'Internal Server Error')
  return request.token.clientId
}

// bearerAuth first: converters and client generators use the first requirement only
export const PARTNER_SECURITY: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { sandboxOAuth: [] }]
export const ADMIN_SECURITY: Array<Record<string, string[]>> = [{ adminToken: [] }]

/** The operator endpoints and console without SANDBOX_ADMIN_TOKEN: 403, saying how to enable them. */
export const adminDisabled = (): SandboxError => new SandboxError('SANDBOX_ERR_ADMIN_DISABLED',
  'Operator endpoints are disabled: start the sandbox with SANDBOX_ADMIN_TOKEN (or --admin-token) set to a secret of at least 16 characters')
