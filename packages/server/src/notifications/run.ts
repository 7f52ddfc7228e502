import type { LicenseEngine } from '@svc-licensing/license-engine';
import type { Mailer } from '../mail/mailer.js';
import { sendServiceEmail } from '../mail/service-email.js';
import type { NotifyAllowance } from './allowance.js';
import { startDispatcher } from './dispatcher.js';
import type { DispatchLogEntry, Dispatcher } from './dispatcher.js';
import { endpointDisabledEmail } from './endpoint-disabled-email.js';
import { createStoreOutbox } from './store-outbox.js';
import { createWebhookSender } from './webhook-sender.js';
import type { WebhookSenderOptions } from './webhook-sender.js';

/** Options of {@link startNotifications}. */
export interface NotificationsOptions {
  engine: Pick<LicenseEngine, 'claimDueDeliveries' | 'recordDeliveryAttempts' | 'disabledEndpointNotice'>;
  /** The operator's `--notify-allow`. */
  allowance: NotifyAllowance;
  /** Where the owner is told that an endpoint was disabled; without it, the log only. */
  mail?: { mailer: Mailer; fromAddress: string; fromName?: string } | null;
  /** The service's public address, for the dashboard link in that e-mail. */
  publicBaseUrl: string;
  /** One JSON line per failure (never a secret or a body); stdout by default. */
  log?: (entry: DispatchLogEntry | { msg: 'endpoint_disabled_email_failed'; endpointId: string; error: string }) => void;
  /** Sender options for tests (trusted certificates, a resolver, the clock of `webhook-timestamp`). */
  sender?: WebhookSenderOptions;
  /** Dispatcher tuning for tests (the clock of the retry schedule, its jitter, the poll interval). */
  now?: () => number;
  random?: () => number;
  pollIntervalMs?: number;
  concurrency?: number;
}

/** The running notification dispatcher of one server instance. */
export interface Notifications {
  /** Asks the outbox now (the engine calls it after a unit that queued deliveries). */
  wake(): void;
  /** Claims nothing more, waits for the attempts in flight and closes the sender's connections. */
  stop(): Promise<void>;
}

/**
 * Starts the notification dispatcher of a server instance over the engine's store: every instance
 * runs one, and they share the deliveries through the store's claims. An endpoint the dispatcher
 * disables (410, or 3 days of failures) is reported to the account's owner by e-mail.
 *
 * @example
 * ```ts
 * let wake = () => {};
 * const engine = createLicenseEngine({ store, secrets, onNotificationsQueued: () => wake() });
 * const notifications = startNotifications({ engine, allowance, mail: { mailer, fromAddress }, publicBaseUrl });
 * wake = notifications.wake;
 * // at shutdown
 * await notifications.stop();
 * ```
 */
export function startNotifications(options: NotificationsOptions): Notifications {
  const log = options.log ?? ((entry) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`));
  const sender = createWebhookSender({ allowance: options.allowance, ...options.sender });
  const { engine, mail } = options;
  const dispatcher: Dispatcher = startDispatcher({
    outbox: createStoreOutbox(engine),
    sender,
    log,
    ...(options.now ? { now: options.now } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    onEndpointDisabled: async ({ endpointId, reason }) => {
      if (!mail) return;
      try {
        const notice = await engine.disabledEndpointNotice(endpointId);
        if (notice === null) return;
        const message = endpointDisabledEmail({
          accountName: notice.accountName, url: notice.endpoint.url, reason, dashboardUrl: `${options.publicBaseUrl.replace(/\/+$/, '')}/dashboard/`,
        });
        await sendServiceEmail(mail, notice.ownerEmail, message);
      } catch (error) {
        log({ msg: 'endpoint_disabled_email_failed', endpointId, error: (error as Error)?.message ?? String(error) });
      }
    },
  });
  return {
    wake: () => dispatcher.wake(),
    async stop() {
      await dispatcher.stop();
      sender.close();
    },
  };
}
