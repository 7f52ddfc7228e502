import type { createCertificateSigner } from '@svc-licensing/cert-format/sign';
import { LicensingError } from './errors.js';
import type { Clock, IdGenerator, Random, SecretBox } from './ports.js';
import type { Collection, RecordMap, Timestamp } from './records.js';
import type { ServicePlan, ServicePlanTable } from './service-plans.js';
import type { Store, StoreTx, TransactionOptions } from './store.js';
import { StoreConflictError } from './store.js';
import { toTimestamp } from './time.js';
import type { CachedRevocationList } from './revocation-records.js';
import type { KeyEmailReleases } from './key-email-releases.js';

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
  /** The signed revocation list of each product last served, by product ID (its `seq` tells whether it is current). */
  revocationLists: Map<string, CachedRevocationList>;
  /** Ends key e-mail reservations: carried by a running webhook unit, else in a unit of their own (`releaseKeyEmail`). */
  keyEmailReleases: KeyEmailReleases;
  /** Units of work that queued notification deliveries (`markQueued`): `transact` tells the host once one commits. */
  queuedIn: WeakSet<StoreTx>;
  /** Told after a unit that queued notifications committed (the host wakes its dispatcher). */
  onNotificationsQueued: (() => void) | null;
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
 * A rerun is told the clash it follows (`null` on the first run), so a write it would otherwise
 * make blindly (a held insert) can read first and join the row it clashed with.
 */
export async function transact<T>(
  ctx: EngineContext,
  work: (tx: StoreTx, clash: StoreConflictError | null) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  let last: StoreTx | null = null;
  let clash: StoreConflictError | null = null;
  const tracked = (tx: StoreTx) => {
    last = tx;
    return work(tx, clash);
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await (options ? ctx.store.transaction(tracked, options) : ctx.store.transaction(tracked));
      const unit = last as StoreTx | null;
      if (unit !== null && ctx.onNotificationsQueued !== null && ctx.queuedIn.has(unit)) ctx.onNotificationsQueued();
      return result;
    } catch (error) {
      if (!StoreConflictError.is(error)) throw error;
      if (attempt >= 3) throw new LicensingError('conflict', `conflicting change: ${error.message}`, { cause: error });
      clash = error;
    }
  }
}

/**
 * For calls that usually only read: runs `work` in a read-only unit, and only when it answers
 * `undefined` (something must be written) again in a write unit, where it must not answer
 * `undefined`. With `admitted`, the read-only unit runs while it settles, and nothing more runs
 * (no write unit, no answer, no error of the read) before it resolves; its rejection is the answer.
 * `writeOptions`: the write unit's options (e.g. `sharedReads`). `provisional`: read answers that
 * answer no one either (the caller writes first, in a unit of its own, and answers from that).
 */
export async function readMostly<T>(
  ctx: EngineContext,
  work: (tx: StoreTx, write: boolean) => Promise<T | undefined>,
  admitted?: PromiseLike<void>,
  writeOptions?: TransactionOptions,
  provisional?: (result: T) => boolean,
): Promise<T> {
  // An `undefined` read answers no one: the store need not wait for what it read to be durable.
  const discarded = (result: unknown) => result === undefined || provisional?.(result as T) === true;
  const reading = transact(ctx, (tx) => work(tx, false), { readOnly: true, discarded });
  const read = admitted === undefined ? await reading : await afterAdmission(reading, admitted);
  if (read !== undefined) return read;
  return (await transact(ctx, (tx) => work(tx, true), writeOptions)) as T;
}

/**
 * `reading`'s answer once `admitted` has resolved: the read runs while the host decides whether the
 * call is admitted (its rate limit), and the host's refusal comes first, before the read's answer
 * or error (which is then dropped).
 */
async function afterAdmission<T>(reading: Promise<T>, admitted: PromiseLike<void>): Promise<T> {
  reading.catch(() => undefined); // a read that fails while the host refuses the call is dropped, not unhandled
  await admitted;
  return reading;
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
