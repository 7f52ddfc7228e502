import type { KeyEmail } from '@svc-licensing/license-engine';
import { ApiError } from './http/errors.js';
import { describeSendFailure } from './mail/send-failure.js';
import { buildKeyEmailMessage, type SenderDefaults } from './mail/key-email-message.js';
import type { Mailer } from './mail/mailer.js';
import { portalUrlOf } from './session/links.js';

/** What the engine hands over for one key e-mail: the engine's `KeyEmail`. */
export type KeyEmailData = KeyEmail;

/** The engine operations the key e-mail needs: reservation with budget, content, release. */
export interface KeyEmailEngine {
  reserveKeyEmail(accountId: string, licenseId: string): Promise<KeyEmailData>;
  getKeyEmail(licenseId: string): Promise<KeyEmailData>;
  releaseKeyEmail(licenseId: string): Promise<void>;
}

export interface KeyEmailSenderOptions {
  engine: KeyEmailEngine;
  mailer: Mailer;
  sender: SenderDefaults;
  /** The server's public base URL: key e-mails of accounts with the service-hosted portal link to it. */
  publicBaseUrl?: string;
  /** Told about every send that failed (the reservation is released either way). */
  onSendError?: (error: unknown, licenseId: string) => void;
}

/** Outcome of one send: the reservation is released in both cases. */
export type KeyEmailOutcome = { sent: true } | { sent: false; error: unknown };

/** Sends license-key e-mails: one per license at a time, within the account's hourly budget. */
export interface KeyEmailSender {
  /**
   * Sends the e-mail of a license whose reservation is already held (taken by the engine in the
   * same transaction as a webhook's changes) and releases it. Never throws. `email`: the e-mail
   * that transaction built (a webhook's `keyEmail.email`); without it, it is read from the engine.
   */
  deliverReserved(licenseId: string, email?: KeyEmailData): Promise<KeyEmailOutcome>;
  /**
   * Reserves (hourly budget; one send per license), sends and releases: `send-key` and
   * `POST /licenses` with `sendEmail`. Throws the engine's `key_email_in_progress`, `rate_limited`,
   * `not_found`, `conflict` (revoked) or `account_closed`; `internal_error` when the send fails.
   */
  send(input: { accountId: string; licenseId: string }): Promise<void>;
  /**
   * The server hook (`hooks.sendKeyEmail`): `reserved: true` when the engine already holds the
   * reservation (`createLicense` with `sendEmail`, the portal's resend): the e-mail is sent and a
   * failure is reported to `onSendError` only, since the license exists, or also thrown as
   * `internal_error` with `mustSend`; otherwise as `send`.
   */
  hook(input: { accountId: string; licenseId: string; reserved?: boolean; mustSend?: boolean }): Promise<void>;
}

/**
 * A failed send as the API answers it: `500 internal_error` (the contract's code for "retry later";
 * no other fits), with a message naming what the mail server answered instead of the generic one.
 */
function sendFailed(error: unknown): ApiError {
  const failure = describeSendFailure('The license-key e-mail', error);
  return new ApiError('internal_error', failure.message, { reason: `key_email_${failure.reason}` });
}

/**
 * Builds the key e-mail sender the webhook receiver and the license routes share.
 *
 * @example
 * ```ts
 * const keyEmails = createKeyEmailSender({ engine, mailer: createMailer(undefined, dataDir), sender: { fromAddress: 'licenses@svc.example' } });
 * const app = createApp({ engine, publicBaseUrl, hooks: { sendKeyEmail: keyEmails.hook } });
 * ```
 */
export function createKeyEmailSender(options: KeyEmailSenderOptions): KeyEmailSender {
  const { engine, mailer, sender } = options;

  const sendAndRelease = async (data: KeyEmailData): Promise<KeyEmailOutcome> => {
    try {
      await mailer.send(
        buildKeyEmailMessage(
          {
            key: data.key,
            locale: data.locale,
            customerEmail: data.to,
            customerName: data.customerName,
            productName: data.product.name,
            planName: data.planName,
            senderName: data.sender.name,
            senderEmail: data.sender.email,
            replyTo: data.sender.replyTo,
            portalUrl: data.customPortalUrl ?? (data.portalAccountId !== null && options.publicBaseUrl ? portalUrlOf(options.publicBaseUrl, data.portalAccountId) : null),
            dkim: data.sender.dkim,
          },
          sender,
        ),
      );
      return { sent: true };
    } catch (error) {
      options.onSendError?.(error, data.licenseId);
      return { sent: false, error };
    } finally {
      // A failed release leaves the reservation to expire after one minute.
      await engine.releaseKeyEmail(data.licenseId).catch(() => undefined);
    }
  };

  const deliverReserved = async (licenseId: string, email?: KeyEmailData): Promise<KeyEmailOutcome> => {
    if (email) return sendAndRelease(email);
    let data: KeyEmailData;
    try {
      data = await engine.getKeyEmail(licenseId);
    } catch (error) {
      await engine.releaseKeyEmail(licenseId).catch(() => undefined);
      options.onSendError?.(error, licenseId);
      return { sent: false, error };
    }
    return sendAndRelease(data);
  };

  const send = async ({ accountId, licenseId }: { accountId: string; licenseId: string }): Promise<void> => {
    const data = await engine.reserveKeyEmail(accountId, licenseId);
    const outcome = await sendAndRelease(data);
    if (!outcome.sent) {
      throw sendFailed(outcome.error);
    }
  };

  return {
    deliverReserved,
    send,
    async hook(input) {
      if (!input.reserved) return send(input);
      const outcome = await deliverReserved(input.licenseId);
      if (!outcome.sent && input.mustSend) {
        throw sendFailed(outcome.error);
      }
    },
  };
}
