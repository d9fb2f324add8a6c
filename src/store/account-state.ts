import { notFound, SandboxError, validationFailed } from '../errors.js'
import { todaySast } from '../clock.js'
import type { StoredAccount } from './records.js'
import type { ChangeContext, Tenant, World } from './world.js'

/*
 * State controls on accounts (issue 11): close and reopen, set or move the balance. They act on the
 * agent's own accounts (another agent's or partner's is a 404) and show at once in the API's reads.
 * A change stores a new account object in the old one's place (records are immutable).
 */

// A ZAR amount as the bank would book it: cents, at most 13 integral digits
const MAX_AMOUNT = 9_999_999_999_999.99

/** The amount if it is a number of whole cents within range, else a 400 naming the field. */
function cents (amount: number, field: string, positive: boolean): number {
  const problem = !Number.isFinite(amount) || Number(amount.toFixed(2)) !== amount
    ? 'must be a number with at most 2 fractional digits'
    : Math.abs(amount) > MAX_AMOUNT
      ? `must be at most ${MAX_AMOUNT} in absolute value`
      : positive && amount <= 0 ? 'must be greater than 0' : undefined
  if (problem !== undefined) throw validationFailed('request', [{ field, rejectedValue: amount, defaultMessage: problem, code: positive ? 'Positive' : 'Digits' }])
  return amount
}

function closedConflict (a: StoredAccount): SandboxError {
  return new SandboxError('SANDBOX_ERR_CONFLICT', `Account ${a.id} was closed on ${a.closedDate ?? ''}; reopen it first (POST /__sandbox/accounts/${a.id}/reopen)`)
}

const withAmount = (a: StoredAccount, amount: number): StoredAccount => {
  if (a.closedDate !== undefined) throw closedConflict(a)
  const total = Math.round(amount * 100) / 100
  if (Math.abs(total) > MAX_AMOUNT) throw new SandboxError('SANDBOX_ERR_CONFLICT', `The balance would be ${total}, beyond ${MAX_AMOUNT}`)
  return { ...a, balance: { currency: a.balance?.currency ?? 'ZAR', amount: total } }
}

/** What a state control does to an account (the amounts were checked before the change was made). */
export type AccountAction =
  | { action: 'close', date?: string }
  | { action: 'reopen' }
  | { action: 'balance', amount: number }
  | { action: 'move', amount: number, sign: 1 | -1 }

function acted (a: StoredAccount, act: AccountAction, today: string): StoredAccount {
  switch (act.action) {
    case 'close': {
      // closing a closed account changes nothing
      if (a.closedDate !== undefined) return a
      const closedDate = act.date ?? today
      if (a.openedDate !== undefined && closedDate < a.openedDate) {
        throw validationFailed('request', [{ field: 'closedDate', rejectedValue: closedDate, defaultMessage: `must not be before the account's openedDate ${a.openedDate}`, code: 'ClosedAfterOpened' }])
      }
      return { ...a, closedDate }
    }
    case 'reopen': {
      if (a.closedDate === undefined) return a
      const { closedDate: _closed, ...open } = a
      return open
    }
    case 'balance': return withAmount(a, act.amount)
    // a debit may take the balance below zero
    case 'move': return withAmount(a, (a.balance?.amount ?? 0) + act.sign * act.amount)
  }
}

export const accountStateChanges = {
  'accounts.state' ({ now, agent }: ChangeContext, a: { agentId: string, accountId: string } & AccountAction): StoredAccount {
    const store = agent(a.agentId)
    const account = store.account(a.accountId)
    if (account === undefined) throw notFound('Account', a.accountId)
    const changed = acted(account, a, todaySast(now))
    if (changed !== account) store.replaceAccount(changed)
    return changed
  }
}

export function accountStateRepo (world: World) {
  const change = (tenant: Tenant, accountId: string, act: AccountAction) =>
    world.perform<StoredAccount>(tenant.partnerId, 'accounts.state', { agentId: tenant.agentId, accountId, ...act })

  return {
    /** closedDate becomes the partner's today (or the date given). */
    close (tenant: Tenant, accountId: string, date?: string) {
      return change(tenant, accountId, { action: 'close', date })
    },

    reopen (tenant: Tenant, accountId: string) {
      return change(tenant, accountId, { action: 'reopen' })
    },

    setBalance (tenant: Tenant, accountId: string, amount: number) {
      return change(tenant, accountId, { action: 'balance', amount: cents(amount, 'amount', false) })
    },

    /** A credit (sign 1) or debit (sign -1) of a positive amount. */
    move (tenant: Tenant, accountId: string, amount: number, sign: 1 | -1) {
      return change(tenant, accountId, { action: 'move', amount: cents(amount, 'amount', true), sign })
    }
  }
}
