import type { AccountRecord, CounterRecord, ProviderName } from '../_internal/records.js';
import { audit } from '../_internal/audit.js';
import { integrationFields } from '../_internal/record-views.js';
import { lockOrInsert } from '../_internal/claim.js';
import type { EngineContext } from '../_internal/context.js';
import { rememberIntegrationHome, transact } from '../_internal/context.js';
import { together } from '../_internal/together.js';
import { sha256Hex } from '../_internal/hash.js';
import { timestampMs, toTimestamp } from '../_internal/time.js';
import { asObject, invalid, optionalString, requireString } from '../_internal/validate.js';

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
 * Logs `webhook.received` for a delivery that was refused or failed (its own transaction rolled
 * back: 409, 429, 500), in a transaction of its own, so every delivery leaves an audit event (with
 * `eventId`: once per event ID and result every 30 days). Nothing else changes: the event is not
 * marked processed and its retry is processed afresh. A deleted integration is a no-op.
 *
 * @example
 * ```ts
 * const outcome = await engine.applyPaymentCommand(integrationId, command);
 * if (outcome.result === 'refused') {
 *   const { provider, eventType, eventId } = command;
 *   await engine.recordWebhookRejected(integrationId, { provider, eventType, eventId, result: outcome.code, detail: outcome.detail });
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
    if (typeof integrationId !== 'string' || integrationId === '') return;
    // Where the integration belongs is known once it has been seen: its account (whether anything
    // subscribes to the audit event) is then read with it, else with the unit's next read.
    const home = ctx.integrationHomes.get(integrationId);
    const [integration, homeAccount] = await together([tx.get('integrations', integrationId), home ? tx.get('accounts', home.accountId) : undefined]);
    if (!integration) return;
    if (provider !== integration.provider) invalid(`integration ${integrationId} is a ${integration.provider} integration`);
    rememberIntegrationHome(ctx, integration);
    const accountOf = () => (homeAccount !== undefined ? homeAccount : tx.get('accounts', integration.accountId));
    let account: AccountRecord | null;
    if (eventId !== null) {
      // A marker per (integration, event ID, result), claimed insert-first: when it exists, nothing is written.
      const id = `whr_${sha256Hex(`${integration.id}\n${eventId}\n${result}`).slice(0, 40)}`;
      const expiresAt = toTimestamp(ctx.clock.now() + REJECTED_LOGGED_MS);
      let marker: CounterRecord | null;
      [marker, account] = await together([
        lockOrInsert(
          (lock) => tx.get('counters', id, lock),
          () => tx.insert('counters', { id, accountId: integration.accountId, count: 1, expiresAt }),
        ),
        accountOf(),
      ]);
      if (marker && timestampMs(marker.expiresAt) > ctx.clock.now()) return;
      if (marker) await tx.update('counters', { ...marker, expiresAt });
    } else {
      account = await accountOf();
    }
    await audit(ctx, tx, {
      accountId: integration.accountId, type: 'webhook.received', licenseId: null, data: { provider, eventType, result, detail }, account, view: () => integrationFields(integration),
    });
  });
}
