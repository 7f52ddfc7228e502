import type { PaymentCommand } from './commands.js';
import { LicensingError } from './errors.js';
import type { KeyEmail } from './key-email.js';
import type { ProcessedEventRecord, ProviderName } from './records.js';
import { audit } from './audit.js';
import type { EngineContext } from './_internal/context.js';
import { now, rememberIntegrationHome, transact } from './_internal/context.js';
import type { Outcome, PaymentScope } from './_internal/payment-scope.js';
import { onChargeback, onCustomerUpserted, onPurchase, onRefund } from './_internal/payment-orders.js';
import { onSubscriptionChanged, onSubscriptionPaid } from './_internal/payment-subscriptions.js';
import { lockOrInsert } from './_internal/claim.js';
import { together } from './_internal/together.js';
import { prefetchFor, settledPrefetch } from './_internal/payment-prefetch.js';
import { sha256Hex } from './_internal/hash.js';
import { secretsVersionOf } from './integrations.js';
import { eventOrderKey, timestampMs, toTimestamp } from './_internal/time.js';
import { asObject, invalid, optionalString, requireString } from './_internal/validate.js';

/**
 * What a provider event did; `keyEmail` asks the host to e-mail a license's key: the reservation is
 * held, and `email` is what to send, built in the same unit of work (it carries the clear key and
 * the sender's DKIM key: never log it).
 */
export interface PaymentResult {
  result: 'processed' | 'duplicate' | 'ignored';
  detail: string;
  licenseId: string | null;
  keyEmail: { licenseId: string; email: KeyEmail } | null;
}

const KINDS = ['customer_upserted', 'purchase_completed', 'subscription_paid', 'subscription_changed', 'refunded', 'chargeback', 'ignored'];

/**
 * Applies one provider event in ONE store transaction: de-duplication by (integration, event ID),
 * customer, license, audit events (`webhook.received` included; for a duplicate only the first
 * time, so replays of one delivery cannot grow the audit log). Throws `not_found` for an unknown
 * integration, `customer_unknown` while a provider customer ID is unmapped, `conflict` for a
 * payment on a revoked license, `key_email_in_progress` and `rate_limited` for key e-mails, and
 * `secrets_changed` (see {@link PaymentOptions}); a throw writes nothing, so the provider's retry is
 * processed afresh.
 */
export async function applyPaymentCommand(ctx: EngineContext, integrationId: string, command: PaymentCommand, options: PaymentOptions = {}): Promise<PaymentResult> {
  const body = asObject(command, 'command');
  if (!KINDS.includes(body.kind as string)) invalid(`unknown command kind ${String(body.kind)}`);
  const eventId = requireString(body.eventId, 'eventId', 200);
  const eventType = requireString(body.eventType, 'eventType', 200);
  const key = eventOrderKey(requireString(body.occurredAt, 'occurredAt', 100), eventId);
  return transact(ctx, async (tx) => {
    // The event is claimed first, without locking a gap: a concurrent delivery of the same event
    // waits on this insert, then finds the committed row and answers it as a duplicate.
    const claim = (accountId: string) => {
      const record: ProcessedEventRecord = { id: ctx.ids.next('pev'), accountId, integrationId, eventId, eventType, result: 'processing', processedAt: now(ctx) };
      const seen = lockOrInsert(
        (lock) => tx.findOne('processedEvents', { integrationId, eventId }, lock),
        () => tx.insert('processedEvents', record),
        { usuallyMissing: true },
      );
      return { record, seen };
    };
    // Where an integration belongs never changes: once known, the claim, the integration, its
    // product and its account are asked for together (one round trip on MySQL). A throw below
    // rolls the claim back with everything else.
    const home = ctx.integrationHomes.get(integrationId);
    const early = home ? claim(home.accountId) : null;
    // With them, what the event's handler reads first (a purchase's plan, order and customer).
    const pending = home ? prefetchFor(tx, home, integrationId, command) : null;
    const [integration, knownProduct, knownAccount, , prefetched] = await together([
      tx.get('integrations', integrationId),
      home ? tx.get('products', home.productId) : undefined,
      home ? tx.get('accounts', home.accountId) : undefined,
      early?.seen,
      pending ? settledPrefetch(pending) : undefined,
    ]);
    if (!integration) throw new LicensingError('not_found', `integration ${integrationId} not found`);
    if (command.provider !== integration.provider) invalid(`integration ${integrationId} is a ${integration.provider} integration`);
    if (options.secretsVersion !== undefined && options.secretsVersion !== secretsVersionOf(integration)) {
      throw new LicensingError('secrets_changed', `the secrets of integration ${integrationId} changed since the delivery was verified`);
    }
    rememberIntegrationHome(ctx, integration);
    const accountId = integration.accountId;
    const webhook = async (outcome: Outcome) =>
      audit(ctx, tx, {
        accountId,
        type: 'webhook.received',
        licenseId: outcome.licenseId,
        data: { provider: integration.provider, eventType, result: outcome.result, detail: outcome.detail },
      });
    const { record: processed, seen: claimed } = early ?? claim(accountId);
    const seen = await claimed;
    if (seen) {
      const duplicate: PaymentResult = { result: 'duplicate', detail: `event ${eventId} was already processed`, licenseId: null, keyEmail: null };
      // Logged once per event: replays of a signed delivery (provider_b signs no timestamp) write nothing more.
      if (!seen.duplicateLoggedAt) {
        await tx.update('processedEvents', { ...seen, duplicateLoggedAt: now(ctx) }, { defer: true });
        await webhook({ ...duplicate, detail: `${duplicate.detail}; later deliveries of it are not logged again` });
      }
      return duplicate;
    }
    // Asked for together: the MySQL store reads them in one round trip.
    const [product, account] =
      knownProduct !== undefined && knownAccount !== undefined
        ? [knownProduct, knownAccount]
        : await Promise.all([tx.get('products', integration.productId), tx.get('accounts', accountId)]);
    if (!product) throw new LicensingError('internal_error', `integration ${integrationId} refers to a missing product`);
    if (!account) throw new LicensingError('not_found', `account ${accountId} not found`);
    const scope: PaymentScope = { ctx, tx, integration, product, account, key, prefetched: prefetched ?? {} };
    if (prefetched?.senderDomain !== undefined) scope.senderDomain = Promise.resolve(prefetched.senderDomain);
    const outcome = await dispatch(scope, command);
    // Held for the commit where the store can: this unit inserted the row, so it matches.
    await tx.update('processedEvents', { ...processed, result: outcome.result }, { defer: true });
    await webhook(outcome);
    return { ...outcome, keyEmail: outcome.keyEmail };
  });
}

function dispatch(scope: PaymentScope, command: PaymentCommand): Promise<Outcome> {
  switch (command.kind) {
    case 'customer_upserted':
      return onCustomerUpserted(scope, command);
    case 'purchase_completed':
      return onPurchase(scope, command);
    case 'subscription_paid':
      return onSubscriptionPaid(scope, command);
    case 'subscription_changed':
      return onSubscriptionChanged(scope, command);
    case 'refunded':
      return onRefund(scope, command);
    case 'chargeback':
      return onChargeback(scope, command);
    case 'ignored':
      return Promise.resolve({ result: 'ignored', detail: String(command.reason ?? 'event not handled'), licenseId: null, keyEmail: null });
  }
}

/** Options of {@link applyPaymentCommand}. */
export interface PaymentOptions {
  /**
   * The `secretsVersion` of the integration secrets the host verified the delivery with (from
   * `getIntegrationSecrets`, perhaps kept in memory): when the integration holds other secrets
   * now, nothing is written and `secrets_changed` is thrown, so the host verifies again.
   */
  secretsVersion?: string;
}

/** A webhook delivery whose processing was refused (see `recordWebhookRejected`). */
export interface RejectedWebhook {
  provider: ProviderName;
  /** The provider's event name, `unknown` when the body could not be read. */
  eventType: string;
  /** What the delivery was answered, e.g. `key_email_in_progress`, `rate_limited`, `customer_unknown`, `error`. */
  result: string;
  detail: string;
  /**
   * The provider's event ID (for a body that could not be read, e.g. a digest of it). With it the
   * delivery is logged once per event ID and result: a retry or replay answered the same is not
   * logged again (for 30 days), so replays cannot grow the audit log.
   */
  eventId?: string;
}

/** How long a rejected delivery's (event ID, result) stays logged: its repeats add no audit event meanwhile. */
const REJECTED_LOGGED_MS = 30 * 86_400_000;

/**
 * Logs `webhook.received` for a delivery whose own transaction rolled back (409, 429, 500), in a
 * transaction of its own, so every delivery leaves an audit event (with `eventId`: once per event
 * ID and result every 30 days). Nothing else changes: the event
 * is not marked processed and its retry is processed afresh. A deleted integration is a no-op.
 *
 * @example
 * ```ts
 * try {
 *   await engine.applyPaymentCommand(integrationId, command);
 * } catch (error) {
 *   const result = LicensingError.is(error) ? error.code : 'error';
 *   await engine.recordWebhookRejected(integrationId, { provider: command.provider, eventType: command.eventType, result, detail: String(error) });
 *   throw error;
 * }
 * ```
 */
export async function recordWebhookRejected(ctx: EngineContext, integrationId: string, entry: RejectedWebhook): Promise<void> {
  const body = asObject(entry, 'entry');
  const provider = requireString(body.provider, 'provider', 20);
  const eventType = requireString(body.eventType, 'eventType', 200);
  const result = requireString(body.result, 'result', 100);
  const detail = (optionalString(body.detail, 'detail', 100_000) ?? '').slice(0, 1000);
  const eventId = optionalString(body.eventId, 'eventId', 200);
  await transact(ctx, async (tx) => {
    const integration = typeof integrationId === 'string' && integrationId !== '' ? await tx.get('integrations', integrationId) : null;
    if (!integration) return;
    if (provider !== integration.provider) invalid(`integration ${integrationId} is a ${integration.provider} integration`);
    if (eventId !== null) {
      // A marker per (integration, event ID, result), claimed insert-first: when it exists, nothing is written.
      const id = `whr_${sha256Hex(`${integration.id}\n${eventId}\n${result}`).slice(0, 40)}`;
      const expiresAt = toTimestamp(ctx.clock.now() + REJECTED_LOGGED_MS);
      const marker = await lockOrInsert(
        (lock) => tx.get('counters', id, lock),
        () => tx.insert('counters', { id, accountId: integration.accountId, count: 1, expiresAt }),
      );
      if (marker && timestampMs(marker.expiresAt) > ctx.clock.now()) return;
      if (marker) await tx.update('counters', { ...marker, expiresAt });
    }
    await audit(ctx, tx, { accountId: integration.accountId, type: 'webhook.received', licenseId: null, data: { provider, eventType, result, detail } });
  });
}
