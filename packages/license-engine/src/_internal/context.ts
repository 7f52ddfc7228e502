import type { createCertificateSigner } from '@svc-licensing/cert-format/sign';
import { LicensingError } from '../errors.js';
import type { Clock, IdGenerator, Random, SecretBox } from '../ports.js';
import type { Collection, RecordMap, Timestamp } from '../records.js';
import type { ServicePlan, ServicePlanTable } from '../service-plans.js';
import type { Store, StoreTx, TransactionOptions } from '../store.js';
import { StoreConflictError } from '../store.js';
import { toTimestamp } from './time.js';

/** What every engine operation works with: the ports plus in-memory caches. */
export interface EngineContext {
  store: Store;
  clock: Clock;
  random: Random;
  ids: IdGenerator;
  secrets: SecretBox;
  servicePlans: ServicePlanTable;
  /** Certificate signers by signing-key record ID: the seed is decrypted and imported once. */
  signers: Map<string, ReturnType<typeof createCertificateSigner>>;
  /**
   * The account and product of integrations seen (neither ever changes for an integration ID), so
   * a webhook's unit reads the integration, its product and its account in one turn.
   */
  integrationHomes: Map<string, { accountId: string; productId: string }>;
  /** Ends key e-mail reservations, several in one unit of work when they come together (`releaseKeyEmail`). */
  releaseKeyEmails: (licenseId: string) => Promise<void>;
}

/** How many integrations' homes {@link EngineContext.integrationHomes} keeps before starting over. */
const INTEGRATION_HOMES_MAX = 10_000;

/** Remembers where an integration belongs (bounded: a full map is cleared, it only saves reads). */
export function rememberIntegrationHome(ctx: EngineContext, integration: { id: string; accountId: string; productId: string }): void {
  if (ctx.integrationHomes.has(integration.id)) return;
  if (ctx.integrationHomes.size >= INTEGRATION_HOMES_MAX) ctx.integrationHomes.clear();
  ctx.integrationHomes.set(integration.id, { accountId: integration.accountId, productId: integration.productId });
}

export function now(ctx: EngineContext): Timestamp {
  return toTimestamp(ctx.clock.now());
}

/**
 * Runs `work` in one store transaction. A unique-key clash (two concurrent writers) reruns it,
 * so the rerun sees the winner's write and decides again; a clash that persists is `conflict`.
 */
export async function transact<T>(ctx: EngineContext, work: (tx: StoreTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (options ? ctx.store.transaction(work, options) : ctx.store.transaction(work));
    } catch (error) {
      if (!StoreConflictError.is(error)) throw error;
      if (attempt >= 3) throw new LicensingError('conflict', `conflicting change: ${error.message}`, { cause: error });
    }
  }
}

/**
 * For calls that usually only read: runs `work` in a read-only unit, and only when it answers
 * `undefined` (something must be written) again in a write unit, where it must not answer
 * `undefined`.
 */
export async function readMostly<T>(ctx: EngineContext, work: (tx: StoreTx, write: boolean) => Promise<T | undefined>): Promise<T> {
  const read = await transact(ctx, (tx) => work(tx, false), { readOnly: true });
  if (read !== undefined) return read;
  return (await transact(ctx, (tx) => work(tx, true))) as T;
}

/** Reads a record of the caller's account, or throws `not_found` (also for another account's record). */
export async function owned<C extends Exclude<Collection, 'accounts'>>(
  tx: StoreTx,
  collection: C,
  accountId: string,
  id: unknown,
  what: string,
  lock = false,
): Promise<RecordMap[C]> {
  const record = typeof id === 'string' && id !== '' ? await tx.get(collection, id, { lock }) : null;
  if (!record || (record as { accountId?: string }).accountId !== accountId) {
    throw new LicensingError('not_found', `${what} ${typeof id === 'string' ? id : ''} not found`.replace('  ', ' '));
  }
  return record;
}

export function servicePlanOf(ctx: EngineContext, name: string): ServicePlan {
  const plan = ctx.servicePlans[name];
  if (!plan) throw new LicensingError('internal_error', `service plan ${name} is not in the service-plan table`);
  return plan;
}
