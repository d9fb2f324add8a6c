import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { tenantOf } from '../../plugins/auth.js'
import { beneficiaryRules } from '../../rules/beneficiaries.js'
import { Beneficiary, BeneficiaryCreateRequest, BeneficiaryPage, BeneficiaryParams } from '../../schemas/beneficiaries.js'
import { AgentIdHeaders, PagingQuery, errorResponses, ref } from '../../schemas/common.js'
import { CustomerIdParams } from '../../schemas/customers.js'
import { pageReply } from '../../store/paging.js'
import { LIST_NOTE, SECURED } from './shared.js'

export default async function beneficiaries (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const repo = fastify.repos.beneficiaries

  app.get('/customers/:customerId/beneficiaries', {
    schema: {
      tags: ['beneficiaries'],
      operationId: 'listBeneficiaries',
      summary: "List a customer's beneficiaries",
      description: `spec 4.5: the beneficiaries of one of the agent's customers (404 for a customer that is not the agent's). ${LIST_NOTE}`,
      security: SECURED,
      headers: AgentIdHeaders,
      params: CustomerIdParams,
      querystring: PagingQuery,
      response: { 200: ref(BeneficiaryPage), ...errorResponses(400, 401, 403, 404, 406) }
    }
  }, (request) => pageReply('beneficiaries', repo.list(tenantOf(request), request.params.customerId, request.query)))

  app.get('/customers/:customerId/beneficiaries/:beneficiaryId', {
    schema: {
      tags: ['beneficiaries'],
      operationId: 'getBeneficiary',
      summary: 'Read one beneficiary',
      description: 'spec 4.6: the beneficiary, if it is available on the agent for this customer (else 404).',
      security: SECURED,
      headers: AgentIdHeaders,
      params: BeneficiaryParams,
      response: { 200: ref(Beneficiary), ...errorResponses(400, 401, 403, 404, 406) }
    }
  }, (request) => repo.findById(tenantOf(request), request.params.customerId, request.params.beneficiaryId))

  app.post('/customers/:customerId/beneficiaries', {
    schema: {
      tags: ['beneficiaries'],
      operationId: 'createBeneficiary',
      summary: 'Create a beneficiary',
      description: "spec 4.7: creates a beneficiary of one of the agent's customers. bankCode must be a bank of GET /api/banks; branchCode defaults " +
        "to the bank's default branch; the answer echoes the request and adds beneficiaryId, bankName and branchName.",
      security: SECURED,
      headers: AgentIdHeaders,
      params: CustomerIdParams,
      body: ref(BeneficiaryCreateRequest),
      response: { 200: ref(Beneficiary), ...errorResponses(400, 401, 403, 404, 406, 413, 415) }
    },
    config: { rules: beneficiaryRules, objectName: 'beneficiaryRequest' }
  }, (request) => repo.create(tenantOf(request), request.params.customerId, request.body))
}
