import type { Client } from 'openapi-fetch'
import { unwrap } from './errors.js'
import { RequestStream } from './request-stream.js'
import type { AnswerOf, BodyOf, ControlPaths, QueryOf } from './types.js'

/**
 * The partner operations of the control API (/__sandbox, docs/control-api.md and docs/testing-failures.md),
 * one method per operation, named by its operationId in /__sandbox/docs/openapi.json. A path parameter is an
 * argument, a body or a query is an object of the document's shape; every method resolves to what the operation
 * answers (nothing for a 204) and throws SandboxApiError for an error answer.
 */
export abstract class ControlMethods {
  /** The control API's openapi-fetch client, with the partner's token added (SandboxClient's constructor). */
  protected abstract readonly control: Client<ControlPaths>
  /** The Agent-Id of the state controls (they act on one agent's records). */
  abstract readonly agentId: string | undefined

  /** The Agent-Id header of the state controls: the client's agent (new SandboxClient({ agentId }) or withAgent). */
  private agentHeader (operation: string): { 'agent-id': string } {
    if (this.agentId === undefined) throw new TypeError(`${operation} acts on an agent's records: give the client an agentId, or call it on client.withAgent(agentId)`)
    return { 'agent-id': this.agentId }
  }

  // ---- resets and fresh agents
  async listScenarios (): Promise<AnswerOf<'listScenarios'>> {
    return unwrap(await this.control.GET('/__sandbox/scenarios'))
  }

  async getSandboxState (): Promise<AnswerOf<'getSandboxState'>> {
    return unwrap(await this.control.GET('/__sandbox/state'))
  }

  /** Back to the start of the scenario (and seed), another one, or a named snapshot ({ snapshot }). */
  async resetPartner (body?: BodyOf<'resetPartner'>): Promise<AnswerOf<'resetPartner'>> {
    return unwrap(await this.control.POST('/__sandbox/reset', { body }))
  }

  /** A fresh agent: nobody else sees or changes its data; the partner's tokens work for it at once. */
  async createAgent (body?: BodyOf<'createAgent'>): Promise<AnswerOf<'createAgent'>> {
    return unwrap(await this.control.POST('/__sandbox/agents', { body }))
  }

  async resetAgent (agentId: string): Promise<AnswerOf<'resetAgent'>> {
    return unwrap(await this.control.POST('/__sandbox/agents/{agentId}/reset', { params: { path: { agentId } } }))
  }

  async deleteAgent (agentId: string): Promise<void> {
    unwrap(await this.control.DELETE('/__sandbox/agents/{agentId}', { params: { path: { agentId } } }))
  }

  // ---- guarantees (spec 4.13)
  async listGuarantees (): Promise<AnswerOf<'listGuarantees'>> {
    return unwrap(await this.control.GET('/__sandbox/guarantees'))
  }

  async createGuarantee (body: BodyOf<'createGuarantee'>): Promise<AnswerOf<'createGuarantee'>> {
    return unwrap(await this.control.POST('/__sandbox/guarantees', { body }))
  }

  async setGuaranteeState (guaranteeId: string, body: BodyOf<'setGuaranteeState'>): Promise<AnswerOf<'setGuaranteeState'>> {
    return unwrap(await this.control.PUT('/__sandbox/guarantees/{guaranteeId}', { params: { path: { guaranteeId } }, body }))
  }

  // ---- fault rules and magic values
  async listFaultRules (): Promise<AnswerOf<'listFaultRules'>> {
    return unwrap(await this.control.GET('/__sandbox/faults'))
  }

  async createFaultRule (body: BodyOf<'createFaultRule'>): Promise<AnswerOf<'createFaultRule'>> {
    return unwrap(await this.control.POST('/__sandbox/faults', { body }))
  }

  async deleteFaultRules (): Promise<void> {
    unwrap(await this.control.DELETE('/__sandbox/faults'))
  }

  async deleteFaultRule (faultId: string): Promise<void> {
    unwrap(await this.control.DELETE('/__sandbox/faults/{faultId}', { params: { path: { faultId } } }))
  }

  async listMagicValues (): Promise<AnswerOf<'listMagicValues'>> {
    return unwrap(await this.control.GET('/__sandbox/magic'))
  }

  // ---- the partner's clock
  async getClock (): Promise<AnswerOf<'getClock'>> {
    return unwrap(await this.control.GET('/__sandbox/clock'))
  }

  /** Set ({ now }), freeze ({ frozen }) or move ({ advance: 'P30D' }) the partner's clock. */
  async setClock (body: BodyOf<'setClock'>): Promise<AnswerOf<'setClock'>> {
    return unwrap(await this.control.PUT('/__sandbox/clock', { body }))
  }

  async resetClock (): Promise<AnswerOf<'resetClock'>> {
    return unwrap(await this.control.DELETE('/__sandbox/clock'))
  }

  // ---- state controls, on the client's agent
  async closeAccount (accountId: string, body?: BodyOf<'closeAccount'>): Promise<AnswerOf<'closeAccount'>> {
    return unwrap(await this.control.POST('/__sandbox/accounts/{accountId}/close', { params: { header: this.agentHeader('closeAccount'), path: { accountId } }, body }))
  }

  async reopenAccount (accountId: string): Promise<AnswerOf<'reopenAccount'>> {
    return unwrap(await this.control.POST('/__sandbox/accounts/{accountId}/reopen', { params: { header: this.agentHeader('reopenAccount'), path: { accountId } } }))
  }

  async setAccountBalance (accountId: string, body: BodyOf<'setAccountBalance'>): Promise<AnswerOf<'setAccountBalance'>> {
    return unwrap(await this.control.PUT('/__sandbox/accounts/{accountId}/balance', { params: { header: this.agentHeader('setAccountBalance'), path: { accountId } }, body }))
  }

  async creditAccount (accountId: string, body: BodyOf<'creditAccount'>): Promise<AnswerOf<'creditAccount'>> {
    return unwrap(await this.control.POST('/__sandbox/accounts/{accountId}/credit', { params: { header: this.agentHeader('creditAccount'), path: { accountId } }, body }))
  }

  async debitAccount (accountId: string, body: BodyOf<'debitAccount'>): Promise<AnswerOf<'debitAccount'>> {
    return unwrap(await this.control.POST('/__sandbox/accounts/{accountId}/debit', { params: { header: this.agentHeader('debitAccount'), path: { accountId } }, body }))
  }

  async setCustomerKyc (customerId: string, body: BodyOf<'setCustomerKyc'>): Promise<AnswerOf<'setCustomerKyc'>> {
    return unwrap(await this.control.PUT('/__sandbox/customers/{customerId}/kyc', { params: { header: this.agentHeader('setCustomerKyc'), path: { customerId } }, body }))
  }

  // ---- the request journal
  async listRequests (query?: QueryOf<'listRequests'>): Promise<AnswerOf<'listRequests'>> {
    return unwrap(await this.control.GET('/__sandbox/requests', { params: { query } }))
  }

  async clearRequests (): Promise<void> {
    unwrap(await this.control.DELETE('/__sandbox/requests'))
  }

  async countRequests (body?: BodyOf<'countRequests'>): Promise<AnswerOf<'countRequests'>> {
    return unwrap(await this.control.POST('/__sandbox/requests/count', { body }))
  }

  /** The journal as HAR 1.2 (a browser's developer tools import it). */
  async exportRequestsHar (query?: QueryOf<'exportRequestsHar'>): Promise<AnswerOf<'exportRequestsHar'>> {
    return unwrap(await this.control.GET('/__sandbox/requests.har', { params: { query } }))
  }

  /** The live tail, connected when this resolves: every request of the partner from then on. Close it when done. */
  async streamRequests (): Promise<RequestStream> {
    const controller = new AbortController()
    const body = unwrap(await this.control.GET('/__sandbox/requests/stream', { parseAs: 'stream', signal: controller.signal }))
    if (body === null) throw new TypeError('the request stream answered without a body')
    return new RequestStream(body, controller)
  }

  /** One entry in full, by its entry id or the X-Request-Id its answer carried. */
  async getRequest (id: string): Promise<AnswerOf<'getRequest'>> {
    return unwrap(await this.control.GET('/__sandbox/requests/{id}', { params: { path: { id } } }))
  }

  // ---- snapshots
  /** The partner's whole state as one document (keep it in a repository; putSnapshot puts it back). */
  async getSnapshot (): Promise<AnswerOf<'getSnapshot'>> {
    return unwrap(await this.control.GET('/__sandbox/snapshot'))
  }

  async putSnapshot (snapshot: BodyOf<'putSnapshot'>): Promise<AnswerOf<'putSnapshot'>> {
    return unwrap(await this.control.PUT('/__sandbox/snapshot', { body: snapshot }))
  }

  async listSnapshots (): Promise<AnswerOf<'listSnapshots'>> {
    return unwrap(await this.control.GET('/__sandbox/snapshots'))
  }

  /** Saves the current state under a name; resetPartner({ snapshot: name }) goes back to it. */
  async saveSnapshot (body: BodyOf<'saveSnapshot'>): Promise<AnswerOf<'saveSnapshot'>> {
    return unwrap(await this.control.POST('/__sandbox/snapshots', { body }))
  }

  async deleteSnapshot (name: string): Promise<void> {
    unwrap(await this.control.DELETE('/__sandbox/snapshots/{name}', { params: { path: { name } } }))
  }

  // ---- advice and readiness
  async getAdvice (): Promise<AnswerOf<'getAdvice'>> {
    return unwrap(await this.control.GET('/__sandbox/advice'))
  }

  async clearAdvice (): Promise<void> {
    unwrap(await this.control.DELETE('/__sandbox/advice'))
  }

  /** The go-live checklist as JSON, or with { format: 'junit' } as JUnit XML text (for a CI's test report). */
  async getReadiness (query?: { format?: 'json' }): Promise<AnswerOf<'getReadiness'>>
  async getReadiness (query: { format: 'junit' }): Promise<string>
  async getReadiness (query: QueryOf<'getReadiness'> = {}): Promise<AnswerOf<'getReadiness'> | string> {
    if (query.format === 'junit') return unwrap(await this.control.GET('/__sandbox/readiness', { params: { query }, parseAs: 'text' }))
    return unwrap(await this.control.GET('/__sandbox/readiness', { params: { query } }))
  }
}
