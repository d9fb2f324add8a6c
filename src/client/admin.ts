import type { Client } from 'openapi-fetch'
import { ControlMethods } from './control.js'
import { unwrap } from './errors.js'
import type { AnswerOf, BodyOf, ControlPaths, QueryOf } from './types.js'

/**
 * The operator's operations of the control API (/__sandbox/admin, docs/operations.md), named by operationId like
 * the partner's: they carry the admin token (SANDBOX_ADMIN_TOKEN, the client's adminToken) instead of a
 * partner's, and throw SandboxApiError (401 SANDBOX_ERR_ADMIN_TOKEN) without it.
 */
export abstract class AdminMethods extends ControlMethods {
  /** The control API's openapi-fetch client with the admin token added (SandboxClient's constructor). */
  protected abstract readonly admin: Client<ControlPaths>

  async resetAllPartners (body?: BodyOf<'resetAllPartners'>): Promise<AnswerOf<'resetAllPartners'>> {
    return unwrap(await this.admin.POST('/__sandbox/admin/reset', { body }))
  }

  async listPartners (): Promise<AnswerOf<'listPartners'>> {
    return unwrap(await this.admin.GET('/__sandbox/admin/partners'))
  }

  /** A new partner; the answer carries its client secret (shown once): new SandboxClient({ ..., clientSecret }). */
  async registerPartner (body?: BodyOf<'registerPartner'>): Promise<AnswerOf<'registerPartner'>> {
    return unwrap(await this.admin.POST('/__sandbox/admin/partners', { body }))
  }

  async deletePartner (clientId: string): Promise<void> {
    unwrap(await this.admin.DELETE('/__sandbox/admin/partners/{clientId}', { params: { path: { clientId } } }))
  }

  /**
   * A new client secret for the partner (generated, or body.clientSecret), answered once; with body.overlapSeconds
   * the secret it replaces still works that long. The partner's console sessions end.
   */
  async rotatePartnerSecret (clientId: string, body?: BodyOf<'rotatePartnerSecret'>): Promise<AnswerOf<'rotatePartnerSecret'>> {
    return unwrap(await this.admin.POST('/__sandbox/admin/partners/{clientId}/secret', { params: { path: { clientId } }, body }))
  }

  /** The partner's token requests, tokens and console refused (its data kept) until resumePartner. */
  async suspendPartner (clientId: string): Promise<AnswerOf<'suspendPartner'>> {
    return unwrap(await this.admin.POST('/__sandbox/admin/partners/{clientId}/suspend', { params: { path: { clientId } } }))
  }

  async resumePartner (clientId: string): Promise<AnswerOf<'resumePartner'>> {
    return unwrap(await this.admin.POST('/__sandbox/admin/partners/{clientId}/resume', { params: { path: { clientId } } }))
  }

  /** Every partner at a glance: latest request, requests and 5xx over 24 hours, findings, readiness counts. */
  async getOverview (query?: QueryOf<'getOverview'>): Promise<AnswerOf<'getOverview'>> {
    return unwrap(await this.admin.GET('/__sandbox/admin/overview', { params: { query } }))
  }

  /** A partner's go-live checklist as JSON, or with { format: 'junit' } as JUnit XML text. */
  async getPartnerReadiness (clientId: string, query?: { format?: 'json' }): Promise<AnswerOf<'getPartnerReadiness'>>
  async getPartnerReadiness (clientId: string, query: { format: 'junit' }): Promise<string>
  async getPartnerReadiness (clientId: string, query: QueryOf<'getPartnerReadiness'> = {}): Promise<AnswerOf<'getPartnerReadiness'> | string> {
    const params = { path: { clientId }, query }
    if (query.format === 'junit') return unwrap(await this.admin.GET('/__sandbox/admin/partners/{clientId}/readiness', { params, parseAs: 'text' }))
    return unwrap(await this.admin.GET('/__sandbox/admin/partners/{clientId}/readiness', { params }))
  }

  async getPartnerAdvice (clientId: string): Promise<AnswerOf<'getPartnerAdvice'>> {
    return unwrap(await this.admin.GET('/__sandbox/admin/partners/{clientId}/advice', { params: { path: { clientId } } }))
  }
}
