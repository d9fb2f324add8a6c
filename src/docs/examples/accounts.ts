import { accountRules } from '../../rules/accounts.js'
import { buildAccount } from '../../store/accounts.js'
import type { ExampleContext } from './context.js'
import { pageReply } from '../../store/paging.js'
import { paged } from './responses.js'
import type { OperationsExamples } from './types.js'

/** Examples of spec 4.1-4.3: the accounts of a customer, one account, a new account. */
export function accountExamples (c: ExampleContext): OperationsExamples {
  const { kit, reference, repos, tenant, customerId, account, otherProduct, otherAgent, foreignAccount, today } = c
  const request = { customerId, productCode: otherProduct }
  const badRequest = { customerId, productCode: 'NO-SUCH-PRODUCT' }
  const agent = c.freshAgent()
  const created = buildAccount(agent, reference, { customerId, holder: agent.customer(customerId)!.defaultCustomer!, product: reference.productsByCode.get(otherProduct)!, openedDate: today })
  return {
    'GET /api/accounts': {
      responses: [
        kit.ok(`/api/accounts?customerId=${customerId}`, 'AccountPage', pageReply('accounts', repos.accounts.list(tenant, paged(''), customerId)), `The accounts of customer ${customerId}`),
        kit.paramError('/api/accounts?customerId=12A', 'customerId', '12A', 'numeric value out of bounds (<19 digits>.<0 digits> expected)', 'Digits', 'customerId is not a number'),
        ...kit.common('/api/accounts')
      ]
    },
    'GET /api/accounts/{accountId}': {
      params: { accountId: account.id },
      responses: [
        kit.ok(`/api/accounts/${account.id}`, 'Account', repos.accounts.findById(tenant, account.id), `Account ${account.id}`),
        kit.paramError('/api/accounts/12345678901234567', 'accountId', '12345678901234567', 'numeric value out of bounds (<16 digits>.<0 digits> expected)', 'Digits', 'accountId has 17 digits'),
        kit.notFoundError(`/api/accounts/${foreignAccount}`, 'Account', foreignAccount, `Account ${foreignAccount} belongs to agent ${otherAgent.id}`),
        ...kit.common(`/api/accounts/${account.id}`)
      ]
    },
    'POST /api/accounts': {
      bodies: [
        { name: 'product', summary: `A ${otherProduct} account for customer ${customerId}`, value: request },
        { name: 'unknownProduct', summary: 'An unknown productCode (400)', value: badRequest }
      ],
      responses: [
        { ...kit.ok('/api/accounts', 'Account', created, `The new ${otherProduct} account (openedDate is the day of the call)`), request: { method: 'POST', url: '/api/accounts', body: request }, volatile: ['openedDate'] },
        kit.bodyError('/api/accounts', 'accountCreateRequest', badRequest, accountRules(badRequest, reference), 'An unknown productCode'),
        ...kit.common('/api/accounts', 'POST', request),
        ...kit.bodyProblems('/api/accounts', request)
      ]
    }
  }
}
