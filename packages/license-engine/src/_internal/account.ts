import { LicensingError } from './errors.js';
import type { AccountRecord, Role } from './records.js';
import type { StoreTx } from './store.js';

/**
 * Days a closed account can be reopened, and its activated machines keep validating.
 *
 * @example
 * ```ts
 * const reopenUntil = Date.parse(account.closedAt!) + CLOSURE_DAYS * 86_400_000;
 * ```
 */
export const CLOSURE_DAYS = 30;

export async function loadAccount(tx: StoreTx, accountId: string, lock = false): Promise<AccountRecord> {
  const account = await tx.get('accounts', accountId, { lock });
  if (!account) throw new LicensingError('not_found', `account ${accountId} not found`);
  return account;
}

/** The role of `email` in the account: `owner` (its owner e-mail), `member` (invited), or null. */
export async function roleOf(tx: StoreTx, account: AccountRecord, email: string): Promise<Role | null> {
  if (email === account.ownerEmail) return 'owner';
  return (await tx.findOne('members', { accountId: account.id, email })) ? 'member' : null;
}

/** True when the account is open and its customer portal is the service-hosted one. */
export function hasServicePortal(account: AccountRecord | null): account is AccountRecord {
  return account !== null && account.status === 'open' && account.customerPortal.mode === 'svc';
}
