import type { DeliveryAttemptRecord, EndpointDisabledReason, NotificationDeliveryRecord, WebhookEndpointRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import type { EngineContext } from '../_internal/context.js';
import { now, transact } from '../_internal/context.js';
import { loadAccount } from '../_internal/account.js';
import { syncSubscriptions } from './endpoints.js';
import { signingSecretsOf } from './secrets.js';

/**
 * The dispatcher's side of the outbox, over the store: claim the deliveries that are due, record
 * what an attempt gave. Several dispatchers (in any number of processes) share the deliveries
 * through the store's claims (`StoreTx.dueDeliveries` skips what another claim holds locked).
 */

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  /** The delivery's id: `webhook-id` on every attempt. */
  id: string;
  endpointId: string;
  url: string;
  /** The secrets that sign this attempt (current first; the previous one during a rotation overlap). */
  signingSecrets: string[];
  body: string;
  /** Attempts made before this one (since queueing or the last resend). */
  attempts: number;
  /** When the first of those was made (epoch ms); null before it. */
  firstAttemptAt: number | null;
  claimToken: string;
}

/**
 * What becomes of a delivery after an attempt: `delivered`; `retry` at `at`; `gone` (410: given
 * up, the endpoint disabled); `exhausted` (given up after the retry window; the endpoint is
 * disabled when it had no success since this delivery's first attempt).
 */
export type DeliveryOutcome = { kind: 'delivered' } | { kind: 'retry'; at: number } | { kind: 'gone' } | { kind: 'exhausted' };

/** The answer of {@link recordDeliveryAttempt}. */
export interface RecordedAttempt {
  /** False when the claim was replaced by another one: nothing was written. */
  recorded: boolean;
  /** Set when this record disabled the endpoint (the host tells its owner). */
  endpointDisabled: EndpointDisabledReason | null;
}

/** The attempts a delivery keeps in its log (the latest). */
export const MAX_KEPT_ATTEMPTS = 50;

/** An endpoint's `lastSuccessAt` is written only when it moves by more than this (not on every delivery). */
export const LAST_SUCCESS_RESOLUTION_MS = 60_000;

function claimToken(ctx: EngineContext): string {
  return Buffer.from(ctx.random.bytes(16).slice(0, 16)).toString('hex');
}

/** The input of {@link claimDueDeliveries}. */
export interface ClaimDueInput {
  now: number;
  limit: number;
  leaseMs: number;
  /**
   * Called after the claim committed, for each endpoint it disabled because a stored signing
   * secret did not open (`secret_unreadable`), so the host logs it and tells the owner.
   */
  onEndpointDisabled?: (event: { endpointId: string; reason: EndpointDisabledReason }) => void;
}

/**
 * Claims up to `limit` deliveries due at `now`, each for `leaseMs` (a crashed dispatcher's claim
 * expires: the delivery is sent again). Deliveries of a disabled endpoint are parked instead, and
 * those of a deleted endpoint given up. An enabled endpoint whose signing secret does not open is
 * disabled (`secret_unreadable`) in the same unit and its deliveries parked: the others are claimed.
 */
export async function claimDueDeliveries(ctx: EngineContext, input: ClaimDueInput): Promise<ClaimedDelivery[]> {
  if (!(input.limit >= 1)) return [];
  const { claimed, disabled } = await transact(ctx, async (tx) => {
    const due = await tx.dueDeliveries({ now: input.now, limit: input.limit });
    if (due.length === 0) return { claimed: [], disabled: [] };
    const ids = [...new Set(due.map((d) => d.endpointId))];
    const found = await Promise.all(ids.map((id) => tx.get('webhookEndpoints', id)));
    const endpoints = new Map(ids.map((id, i) => [id, found[i] ?? null]));
    // Opened once per endpoint: a claim of many deliveries to one endpoint decrypts its secrets once.
    const secretsOf = new Map<string, string[] | null>();
    const signing = (e: WebhookEndpointRecord) => {
      let secrets = secretsOf.get(e.id);
      if (secrets === undefined) secretsOf.set(e.id, (secrets = signingSecretsOf(ctx, e, input.now)));
      return secrets;
    };
    const unreadable = found.filter((e): e is WebhookEndpointRecord => e != null && e.enabled && signing(e) === null);
    const disabled = await disableUnreadable(ctx, tx, endpoints, unreadable.map((e) => e.id), input.now);
    const updatedAt = now(ctx);
    const claimed: ClaimedDelivery[] = [];
    for (const d of due) {
      const endpoint = endpoints.get(d.endpointId) ?? null;
      const signingSecrets = endpoint?.enabled ? signing(endpoint) : null;
      if (endpoint === null) {
        await tx.update('notificationDeliveries', { ...d, state: 'failed', dueAt: null, nextAttemptAt: null, claim: null, updatedAt }, { defer: true });
      } else if (!endpoint.enabled) {
        await tx.update('notificationDeliveries', { ...d, dueAt: null, claim: null, updatedAt }, { defer: true });
      } else if (signingSecrets !== null) {
        const claim = { token: claimToken(ctx), until: input.now + input.leaseMs };
        await tx.update('notificationDeliveries', { ...d, dueAt: claim.until, claim, updatedAt }, { defer: true });
        claimed.push({
          id: d.id, endpointId: d.endpointId, url: endpoint.url, signingSecrets: [...signingSecrets], body: d.body,
          attempts: d.roundAttempts, firstAttemptAt: d.firstAttemptAt, claimToken: claim.token,
        });
      }
    }
    return { claimed, disabled };
  });
  for (const endpointId of disabled) input.onEndpointDisabled?.({ endpointId, reason: 'secret_unreadable' });
  return claimed;
}

/**
 * Disables the endpoints among `ids` whose signing secret still does not open once locked (the
 * account first, in the order every endpoint change locks them), updating `endpoints`; the ids
 * disabled. One that opens after all (rotated meanwhile) is left enabled and read again.
 */
async function disableUnreadable(
  ctx: EngineContext, tx: StoreTx, endpoints: Map<string, WebhookEndpointRecord | null>, ids: readonly string[], at: number,
): Promise<string[]> {
  const disabled: string[] = [];
  for (const id of ids) {
    await loadAccount(tx, endpoints.get(id)!.accountId, true);
    const endpoint = await tx.get('webhookEndpoints', id, { lock: true });
    endpoints.set(id, endpoint);
    if (endpoint === null || !endpoint.enabled || signingSecretsOf(ctx, endpoint, at) !== null) continue;
    const next: WebhookEndpointRecord = { ...endpoint, enabled: false, disabledReason: 'secret_unreadable', updatedAt: now(ctx) };
    await tx.update('webhookEndpoints', next);
    endpoints.set(id, next);
    await syncSubscriptions(ctx, tx, endpoint.accountId);
    disabled.push(id);
  }
  return disabled;
}

/** One attempt to record: the delivery, the claim it was made under, what it gave and what follows. */
export interface DeliveryAttemptInput {
  deliveryId: string;
  claimToken: string;
  attempt: DeliveryAttemptRecord;
  outcome: DeliveryOutcome;
}

/**
 * Records an attempt and the delivery's outcome in one unit of work, if `claimToken` is still the
 * delivery's claim; ends the claim. A `gone`, or an `exhausted` delivery of an endpoint that had no
 * success since its first attempt, disables the endpoint.
 */
export async function recordDeliveryAttempt(ctx: EngineContext, input: DeliveryAttemptInput): Promise<RecordedAttempt> {
  const [recorded] = await recordDeliveryAttempts(ctx, [input]);
  return recorded!;
}

/**
 * Records the attempts of several deliveries in ONE unit of work (one commit for a batch of the
 * dispatcher's finished attempts), each exactly as {@link recordDeliveryAttempt} would in turn:
 * one whose claim was replaced records nothing, the others do. The answers are in the order of
 * `inputs`. The deliveries are read and locked in one read where the store can (`getMany`).
 */
export async function recordDeliveryAttempts(ctx: EngineContext, inputs: readonly DeliveryAttemptInput[]): Promise<RecordedAttempt[]> {
  if (inputs.length === 0) return [];
  const ids = [...new Set(inputs.map((i) => i.deliveryId))];
  return transact(ctx, async (tx) => {
    const found = tx.getMany
      ? await tx.getMany('notificationDeliveries', ids, { lock: true })
      : await Promise.all(ids.map((id) => tx.get('notificationDeliveries', id, { lock: true })));
    const deliveries = new Map(ids.map((id, i) => [id, found[i] ?? null]));
    const endpoints = new Map<string, WebhookEndpointRecord | null>();
    const updatedAt = now(ctx);
    const results: RecordedAttempt[] = [];
    for (const input of inputs) {
      const delivery = deliveries.get(input.deliveryId) ?? null;
      if (delivery === null || delivery.claim?.token !== input.claimToken) {
        results.push({ recorded: false, endpointDisabled: null });
        continue;
      }
      const { attempt, outcome } = input;
      const firstAttemptAt = delivery.firstAttemptAt ?? attempt.at;
      const next: NotificationDeliveryRecord = {
        ...delivery,
        state: outcome.kind === 'retry' ? 'pending' : outcome.kind === 'delivered' ? 'delivered' : 'failed',
        dueAt: outcome.kind === 'retry' ? outcome.at : null,
        nextAttemptAt: outcome.kind === 'retry' ? outcome.at : null,
        roundAttempts: delivery.roundAttempts + 1,
        firstAttemptAt,
        attempts: [...delivery.attempts, { ...attempt }].slice(-MAX_KEPT_ATTEMPTS),
        claim: null,
        updatedAt,
      };
      // The claim is spent: the same delivery twice in one batch records once.
      deliveries.set(delivery.id, next);
      await tx.update('notificationDeliveries', next, { defer: true });
      const endpointDisabled = await endpointAfter(ctx, tx, endpoints, delivery.endpointId, attempt.at, outcome, firstAttemptAt);
      results.push({ recorded: true, endpointDisabled });
    }
    return results;
  });
}

/**
 * Notes a success on the endpoint (to within a minute), or disables it; null unless this disabled
 * it. `seen` holds the endpoints this unit has read (and written): a batch reads each one once.
 */
async function endpointAfter(
  ctx: EngineContext,
  tx: StoreTx,
  seen: Map<string, WebhookEndpointRecord | null>,
  endpointId: string,
  at: number,
  outcome: DeliveryOutcome,
  firstAttemptAt: number,
): Promise<EndpointDisabledReason | null> {
  let known = seen.get(endpointId);
  if (known === undefined) seen.set(endpointId, (known = await tx.get('webhookEndpoints', endpointId)));
  if (known === null) return null;
  const successMoves = outcome.kind === 'delivered' && (known.lastSuccessAt === null || at - known.lastSuccessAt > LAST_SUCCESS_RESOLUTION_MS);
  const failedThroughout = outcome.kind === 'exhausted' && (known.lastSuccessAt ?? -Infinity) < firstAttemptAt;
  const disable: EndpointDisabledReason | null = !known.enabled ? null : outcome.kind === 'gone' ? 'gone' : failedThroughout ? 'failing' : null;
  if (!successMoves && disable === null) return null;
  // The account before the endpoint, in the order every endpoint change locks them.
  if (disable !== null) await loadAccount(tx, known.accountId, true);
  const endpoint = await tx.get('webhookEndpoints', endpointId, { lock: true });
  seen.set(endpointId, endpoint);
  if (endpoint === null) return null;
  const next: WebhookEndpointRecord = { ...endpoint };
  if (successMoves) next.lastSuccessAt = Math.max(endpoint.lastSuccessAt ?? 0, at);
  const disabled = disable !== null && endpoint.enabled;
  if (disabled) Object.assign(next, { enabled: false, disabledReason: disable, updatedAt: now(ctx) });
  await tx.update('webhookEndpoints', next);
  seen.set(endpointId, next);
  if (!disabled) return null;
  await syncSubscriptions(ctx, tx, endpoint.accountId);
  return disable;
}
