import type { Collection } from '../_internal/records.js';
import { storeSchema } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { transact } from '../_internal/context.js';
import { addDays, timestampMs } from '../_internal/time.js';
import { CLOSURE_DAYS } from '../_internal/account.js';

/** Records deleted per store transaction while purging, so one unit never holds a whole account. */
const PURGE_BATCH = 500;

/**
 * The order in which an account's collections are emptied: children before the records they
 * point at (activations before licenses, licenses before plans, customers and products), so a
 * store with foreign keys accepts every delete. Collections added later go before `products`.
 */
function purgeOrder(): Collection[] {
  const byAccount = (Object.keys(storeSchema) as Collection[]).filter(
    (c) => c !== 'accounts' && (storeSchema[c].indexed as readonly string[]).includes('accountId'),
  );
  const first: Collection[] = ['activations', 'licenses'];
  const last: Collection[] = ['products'];
  return [...first, ...byAccount.filter((c) => !first.includes(c) && !last.includes(c)), ...last];
}

/** What a purge did: the accounts whose every record is now deleted. */
export interface PurgeResult {
  purged: string[];
}

/**
 * Deletes every record of each account closed more than `CLOSURE_DAYS` ago, the account record
 * last. Idempotent: each batch is its own transaction, and a purge cut short (a crash, a restart)
 * carries on where it stopped at the next run; an account reopened meanwhile is never touched
 * (the closure is checked again before each batch).
 *
 * @example
 * ```ts
 * const { purged } = await engine.purgeClosedAccounts(); // run at start and daily
 * ```
 */
export async function purgeClosedAccounts(ctx: EngineContext): Promise<PurgeResult> {
  const due = await transact(
    ctx,
    async (tx) =>
      (await tx.findMany('accounts', { status: 'closed' })).filter(
        (a) => a.closedAt !== null && ctx.clock.now() >= timestampMs(addDays(a.closedAt, CLOSURE_DAYS)),
      ),
    { readOnly: true },
  );
  const purged: string[] = [];
  for (const account of due) {
    if (await purgeAccount(ctx, account.id)) purged.push(account.id);
  }
  return { purged };
}

/** Empties one account in batches; false when it is no longer due (reopened, or gone). */
async function purgeAccount(ctx: EngineContext, accountId: string): Promise<boolean> {
  for (const collection of purgeOrder()) {
    for (;;) {
      const left = await transact(ctx, async (tx) => {
        const account = await tx.get('accounts', accountId, { lock: true });
        if (!account || account.status !== 'closed') return -1;
        const page = await tx.page(collection, { where: { accountId } as never, limit: PURGE_BATCH, order: 'asc' });
        for (const record of page.data) await tx.delete(collection, record.id);
        return page.data.length;
      });
      if (left === -1) return false;
      if (left < PURGE_BATCH) break;
    }
  }
  return transact(ctx, async (tx) => {
    const account = await tx.get('accounts', accountId, { lock: true });
    if (!account || account.status !== 'closed') return false;
    await tx.delete('accounts', accountId);
    return true;
  });
}
