import { LicensingError, type LicenseEngine, type PaymentRefused, type RejectedWebhook } from '@svc-licensing/license-engine';
import type { SignatureFailureReason } from '@svc-licensing/provider-webhooks';

/** Why a delivery was not processed, as the receiver answers it (the HTTP layer picks the status by code). */
export interface WebhookRefusal {
  code: 'not_found' | 'unauthorized' | 'internal_error' | 'conflict' | 'key_email_in_progress' | 'rate_limited' | 'customer_unknown';
  message: string;
  /** Seconds until the provider should retry (`rate_limited`: the next clock hour). */
  retryAfter?: number;
  /** `unauthorized`: which signature check failed (`signature_mismatch`, ...), for the request log. */
  reason?: SignatureFailureReason;
}

/** An engine call that threw: a failure, not an outcome. */
export interface Failed {
  result: 'failed';
  error: unknown;
}

/** Told about failures the answer does not show (customer lookups, processing errors, audit writes). */
export type ReportError = (error: unknown, context: { integrationId: string; what: string }) => void;

export const NO_INTEGRATION: WebhookRefusal = { code: 'not_found', message: 'No integration with this ID for this provider.' };

/**
 * What a delivery whose event was refused or failed is answered: `409 key_email_in_progress`,
 * `409 conflict` (a payment for a revoked license), `429 rate_limited` (Retry-After: the next clock
 * hour), `500 customer_unknown`, `404 not_found` (the integration was deleted meanwhile), else
 * `500 internal_error`, reported: a failure, or a refusal the receiver could not resolve
 * (`secrets_changed` after its retries).
 */
export function refusalFor(failure: PaymentRefused | Failed, nowMs: number, report: (error: unknown) => void): WebhookRefusal {
  if (failure.result === 'refused') {
    switch (failure.code) {
      case 'key_email_in_progress':
        return { code: failure.code, message: 'Another license-key e-mail for this license is being sent; retry later.' };
      case 'rate_limited':
        return {
          code: failure.code,
          message: "The service plan's hourly budget of license-key e-mails is used up; retry later.",
          retryAfter: Math.max(1, Math.ceil((3_600_000 - (nowMs % 3_600_000)) / 1000)),
        };
      case 'customer_unknown':
        return { code: failure.code, message: 'The customer of this event is not known yet; retry later.' };
      case 'conflict':
        return { code: failure.code, message: failure.detail };
      case 'not_found':
        return NO_INTEGRATION;
      case 'secrets_changed':
        break;
    }
  }
  report(failure.result === 'failed' ? failure.error : new LicensingError(failure.code, failure.detail));
  return { code: 'internal_error', message: 'The event could not be processed; retry later.' };
}

/** The `result` and `detail` a refused or failed delivery is logged with. */
export function rejectionOf(failure: PaymentRefused | Failed, refusal: WebhookRefusal): Pick<RejectedWebhook, 'result' | 'detail'> {
  const result = refusal.code === 'internal_error' ? 'error' : refusal.code;
  if (failure.result === 'refused') return { result, detail: failure.detail };
  return { result, detail: LicensingError.is(failure.error) ? failure.error.message : 'processing error' };
}

/**
 * Logs `webhook.received` for a delivery that was not processed, in a transaction of its own (the
 * delivery's rolled back); a failure to log it is reported, never answered.
 */
export async function recordRejected(
  engine: Pick<LicenseEngine, 'recordWebhookRejected'>,
  integrationId: string,
  entry: RejectedWebhook & { eventId: string },
  report: ReportError,
): Promise<void> {
  try {
    await engine.recordWebhookRejected(integrationId, entry);
  } catch (error) {
    report(error, { integrationId, what: 'audit of a rejected delivery' });
  }
}

/** The event name of a signed body that failed to parse, for the audit log. */
export function eventTypeOf(rawBody: Uint8Array): string {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(rawBody)) as Record<string, unknown>;
    const type = parsed.event_type ?? (parsed.meta as Record<string, unknown> | undefined)?.event_name;
    return typeof type === 'string' ? type.slice(0, 100) : 'unknown';
  } catch {
    return 'unknown';
  }
}
