import type { PaymentCommand } from '../_internal/commands.js';
import { LicensingError } from '../_internal/errors.js';
import type { AccountRecord, ProcessedEventRecord, ProductRecord } from '../_internal/records.js';
import type { StoreTx } from '../_internal/store.js';
import { audit } from '../_internal/audit.js';
import { integrationFields } from '../_internal/record-views.js';
import type { EngineContext } from '../_internal/context.js';
import { now, rememberIntegrationHome, transact } from '../_internal/context.js';
import type { CustomerScope, PaymentScope } from './scope.js';
import { refusalOf, type PaymentApplied, type PaymentOptions, type PaymentResult } from './result.js';
import { onChargeback, onCustomerUpserted, onPurchase, onRefund } from './orders.js';
import { onSubscriptionChanged, onSubscriptionPaid } from './subscriptions.js';
import { lockOrInsert } from '../_internal/claim.js';
import { incomingRow } from '../_internal/incoming.js';
import { addToGroup } from './incoming-log.js';
import { together } from '../_internal/together.js';
import { prefetchFor, settledPrefetch } from './prefetch.js';
import { secretsVersionOf } from './integrations.js';
import { checkCommandEnvironment, otherEnvironment } from './environment.js';
import { eventOrderKey } from '../_internal/time.js';
import { asObject, invalid, requireString } from '../_internal/validate.js';

const KINDS = ['customer_upserted', 'purchase_completed', 'subscription_paid', 'subscription_changed', 'refunded', 'chargeback', 'ignored'];

/**
 * Applies one provider event in ONE store transaction: de-duplication by (integration, event ID),
 * customer, license, audit events (`webhook.received` included; for a duplicate only the first
 * time, so replays of one delivery cannot grow the audit log). An event that cannot apply although
 * nothing failed is answered `refused` with its code (`not_found`, `secrets_changed`,
 * `customer_unknown`, `key_email_in_progress`, `rate_limited`, `conflict`: see
 * {@link PaymentRefusalCode}) and writes nothing, so the provider's retry is processed afresh.
 * Throws `LicensingError` only for a malformed command (`invalid_request`) and failures.
 */
export async function applyPaymentCommand(ctx: EngineContext, integrationId: string, command: PaymentCommand, options: PaymentOptions = {}): Promise<PaymentResult> {
  const body = asObject(command, 'command');
  if (!KINDS.includes(body.kind as string)) invalid(`unknown command kind ${String(body.kind)}`);
  const eventId = requireString(body.eventId, 'eventId', 200);
  const eventType = requireString(body.eventType, 'eventType', 200);
  const key = eventOrderKey(requireString(body.occurredAt, 'occurredAt', 100), eventId);
  checkCommandEnvironment(body);
  const event: ProviderEvent = { integrationId, command, eventId, eventType, key, secretsVersion: options.secretsVersion };
  try {
    // The unit also ends the key e-mail reservations whose sends finished meanwhile (one commit fewer per purchase under load).
    return await ctx.keyEmailReleases.carry((fold) =>
      transact(ctx, async (tx, clash) => {
        const applied = await applyInUnit(ctx, tx, event, clash !== null);
        await fold(tx, applied.keyEmail?.licenseId ?? null);
        return applied;
      }),
    );
  } catch (error) {
    const refused = refusalOf(error);
    if (refused) return refused;
    throw error;
  }
}

/** A validated event and what the host verified it with. */
interface ProviderEvent {
  integrationId: string;
  command: PaymentCommand;
  eventId: string;
  eventType: string;
  /** The event's ordering key (docs/decisions). */
  key: string;
  secretsVersion: string | undefined;
}

/**
 * The event's unit of work. An expected refusal is thrown as a `LicensingError` (see `refusalOf`),
 * so that the unit keeps nothing it wrote.
 */
async function applyInUnit(ctx: EngineContext, tx: StoreTx, e: ProviderEvent, rerun: boolean): Promise<PaymentApplied> {
  const { integrationId, command, eventId, eventType, key } = e;
  // The event is claimed first, without locking a gap: a concurrent delivery of the same event
  // waits on this insert, then finds the committed row and answers it as a duplicate. The claim is
  // inserted with the usual outcome, `processed`: no other unit sees it before the commit (nor
  // after a rollback), so it is updated only when the outcome differs (one statement less per event).
  const claim = (accountId: string) => {
    const record: ProcessedEventRecord = { id: ctx.ids.next('pev'), accountId, integrationId, eventId, eventType, result: 'processed', processedAt: now(ctx) };
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
  // A customer event touches no product: its unit does not read one.
  const needsProduct = command.kind !== 'customer_upserted';
  // With them, what the event's handler reads first (a purchase's plan, order and customer).
  const pending = home ? prefetchFor(tx, home, integrationId, command) : null;
  const [integration, knownProduct, knownAccount, , prefetched] = await together([
    tx.get('integrations', integrationId),
    home && needsProduct ? tx.get('products', home.productId) : undefined,
    home ? tx.get('accounts', home.accountId) : undefined,
    early?.seen,
    pending ? settledPrefetch(pending) : undefined,
  ]);
  if (!integration) throw new LicensingError('not_found', `integration ${integrationId} not found`);
  if (command.provider !== integration.provider) invalid(`integration ${integrationId} is a ${integration.provider} integration`);
  if (e.secretsVersion !== undefined && e.secretsVersion !== secretsVersionOf(integration)) {
    throw new LicensingError('secrets_changed', `the secrets of integration ${integrationId} changed since the delivery was verified`);
  }
  rememberIntegrationHome(ctx, integration);
  const accountId = integration.accountId;
  const webhook = async (outcome: PaymentApplied, account: AccountRecord | null | undefined) =>
    audit(ctx, tx, {
      accountId,
      type: 'webhook.received',
      licenseId: outcome.licenseId,
      data: { provider: integration.provider, eventType, result: outcome.result, detail: outcome.detail },
      ...(account ? { account } : {}),
      view: () => integrationFields(integration),
    });
  const { record: processed, seen: claimed } = early ?? claim(accountId);
  const seen = await claimed;
  if (seen) {
    const duplicate: PaymentApplied = { result: 'duplicate', detail: `event ${eventId} was already processed`, licenseId: null, keyEmail: null };
    // Logged once per event: replays of a signed delivery (provider_b signs no timestamp) write nothing more.
    if (!seen.duplicateLoggedAt) {
      await tx.update('processedEvents', { ...seen, duplicateLoggedAt: now(ctx) }, { defer: true });
      await webhook({ ...duplicate, detail: `${duplicate.detail}; later deliveries of it are not logged again` }, knownAccount);
    }
    return duplicate;
  }
  // Asked for together: the MySQL store reads them in one round trip.
  const [product, account] = await Promise.all([
    !needsProduct ? null : knownProduct !== undefined ? knownProduct : tx.get('products', integration.productId),
    knownAccount !== undefined ? knownAccount : tx.get('accounts', accountId),
  ]);
  if (needsProduct && !product) throw new LicensingError('internal_error', `integration ${integrationId} refers to a missing product`);
  if (!account) throw new LicensingError('not_found', `account ${accountId} not found`);
  const scope: CustomerScope = { ctx, tx, integration, account, key, prefetched: prefetched ?? {} };
  if (prefetched?.senderDomain !== undefined) scope.senderDomain = Promise.resolve(prefetched.senderDomain);
  const outcome = otherEnvironment(integration, command) ?? (await dispatch(scope, product, command));
  // Held for the commit where the store can: this unit inserted the row, so it matches.
  if (outcome.result !== processed.result) await tx.update('processedEvents', { ...processed, result: outcome.result }, { defer: true });
  await webhook(outcome, account);
  // The incoming delivery log's row of this event, answered 200: held for the commit (its group is
  // the event's own). A rerun after a clash joins the group's row when there is one: a row already
  // stored would otherwise clash again at every rerun, and the event would be refused `conflict`.
  const delivered = { integrationId, status: 200, result: outcome.result, message: outcome.detail, eventType, eventId };
  const row = incomingRow(ctx, integration, delivered);
  if (rerun) await addToGroup(tx, row);
  else await tx.insert('incomingDeliveries', row, { defer: true });
  return { ...outcome, keyEmail: outcome.keyEmail };
}

/** `product`: null only for a customer event, whose handler reads none (`applyInUnit` refused any other event without one). */
function dispatch(base: CustomerScope, product: ProductRecord | null, command: PaymentCommand): Promise<PaymentApplied> {
  if (command.kind === 'customer_upserted') return onCustomerUpserted(base, command);
  const scope: PaymentScope = { ...base, product: product! };
  switch (command.kind) {
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


