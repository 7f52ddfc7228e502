import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks (https://www.standardwebhooks.com/) signing of outgoing notifications, so
 * vendors verify them with the `standardwebhooks` package or any Svix library: headers
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per signing secret, space-separated).
 */

/** The prefix of a signing secret; base64 of the 32 key bytes follows. */
export const SECRET_PREFIX = 'whsec_';

/** Bytes of a signing secret's key. */
export const SECRET_BYTES = 32;

/**
 * A new signing secret: `whsec_` + base64 of 32 random bytes.
 *
 * @example
 * ```ts
 * generateWebhookSecret(); // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwPm3tS1cDUJ8='
 * ```
 */
export function generateWebhookSecret(random: (size: number) => Uint8Array = randomBytes): string {
  const bytes = random(SECRET_BYTES);
  if (bytes.length !== SECRET_BYTES) throw new RangeError(`expected ${SECRET_BYTES} random bytes, got ${bytes.length}`);
  return SECRET_PREFIX + Buffer.from(bytes).toString('base64');
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new TypeError(`expected a signing secret starting with ${SECRET_PREFIX}`);
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length !== SECRET_BYTES) throw new TypeError(`expected a signing secret of ${SECRET_BYTES} bytes, got ${key.length}`);
  return key;
}

/** What is signed: the delivery's id (the same on every attempt), the attempt's time and the exact body. */
export interface WebhookMessage {
  /** `webhook-id`: one per event and endpoint. */
  id: string;
  /** `webhook-timestamp`: the attempt's time in Unix seconds. */
  timestamp: number;
  /** The exact bytes sent, as a string (UTF-8). */
  body: string;
}

/**
 * The `webhook-signature` value: `v1,<signature>` for each secret, space-separated (during a
 * rotation both the new and the old secret sign, so receivers holding either accept).
 *
 * @example
 * ```ts
 * webhookSignature({ id: 'msg_1', timestamp: 1700000000, body: '{}' }, [secret]); // 'v1,g0hM9SsE...='
 * ```
 */
export function webhookSignature(message: WebhookMessage, secrets: readonly string[]): string {
  if (secrets.length === 0) throw new TypeError('expected at least one signing secret');
  if (!Number.isSafeInteger(message.timestamp) || message.timestamp < 0) throw new TypeError(`expected Unix seconds, got ${message.timestamp}`);
  const content = `${message.id}.${message.timestamp}.${message.body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(content, 'utf8').digest('base64')}`).join(' ');
}

/**
 * The three Standard Webhooks headers of one attempt.
 *
 * @example
 * ```ts
 * webhookHeaders({ id: 'msg_1', timestamp: Math.floor(Date.now() / 1000), body }, [secret]);
 * // { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,...' }
 * ```
 */
export function webhookHeaders(message: WebhookMessage, secrets: readonly string[]): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  if (!/^[\x21-\x7e]{1,256}$/.test(message.id)) throw new TypeError('expected a webhook id of 1 to 256 visible ASCII characters');
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': webhookSignature(message, secrets),
  };
}

/** A notification's content: its type, the event's time and the resource's view. */
export interface WebhookEvent {
  /** The audit event type, such as `license.created`. */
  type: string;
  /** When the event happened (not when it is sent). */
  timestamp: Date;
  data: unknown;
}

/**
 * The body of a notification, `{ type, timestamp, data }` as JSON, built once when the notification
 * is queued so every attempt sends (and signs) the same bytes.
 *
 * @example
 * ```ts
 * webhookBody({ type: 'license.created', timestamp: new Date(), data: { id: 'lic_1' } });
 * // '{"type":"license.created","timestamp":"2025-01-01T00:00:00.000Z","data":{"id":"lic_1"}}'
 * ```
 */
export function webhookBody(event: WebhookEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp.toISOString(), data: event.data });
}
