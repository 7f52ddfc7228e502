import { createHash } from 'node:crypto';
import { finished, type Readable } from 'node:stream';
import { assertBodySize, type H3Event } from 'h3';
import { LicensingError, StoreConflictError, type PaymentCommand, type ProviderName } from '@svc-licensing/license-engine';
import { readWebhook } from '@svc-licensing/provider-webhooks';
import { bodyReadFailure, DECLARED_LENGTH, isTooLarge } from '../http/body.js';
import { ApiError } from '../http/errors.js';
import { defineRoute, type RouteDef, type RouteServices } from '../http/route.js';
import type { KeyEmailSender } from '../key-email.js';
import type { ProviderAClient } from '../provider-a-client.js';

/** Largest webhook body accepted: 1 MiB (provider events are a few kilobytes). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export interface WebhookRouteOptions {
  /** Sends the key e-mail a processed event reserved. */
  keyEmails: KeyEmailSender;
  /** Fetches unknown provider_a customers with the integration's API key; without it the receiver waits for `customer.created`. */
  providerA?: ProviderAClient;
  /** Time source of provider_a's 5-minute signature window and of `Retry-After`. */
  clock?: { now(): number };
  /** Told about failures the response does not show (customer lookups, processing errors, audit writes). */
  onError?: (error: unknown, context: { integrationId: string; what: string }) => void;
}

/** The 200 body: what became of the event. */
export interface WebhookReply {
  result: 'processed' | 'duplicate' | 'ignored';
  detail: string;
  /** Present when the event created a license whose key is e-mailed: whether the e-mail went out. */
  keyEmail?: 'sent' | 'failed';
}

const PROVIDERS: readonly string[] = ['provider_a', 'provider_b'];

type Engine = RouteServices['engine'];
type Secrets = NonNullable<Awaited<ReturnType<Engine['getIntegrationSecrets']>>>;

/** How many integrations' secrets a receiver remembers before it starts over (reads again). */
const KNOWN_INTEGRATIONS = 1000;

/**
 * `POST /v1/webhooks/{provider}/{integrationId}`: the payment-provider receiver. Order: integration
 * (404), signature (401, nothing processed), body (500 when a signed body cannot be read), then one
 * engine transaction; a key e-mail reserved by that transaction is sent before answering.
 *
 * @example
 * ```ts
 * const app = createApp({ engine, publicBaseUrl, routes: createWebhookRoutes({ keyEmails, providerA }) });
 * ```
 */
export function createWebhookRoutes(options: WebhookRouteOptions): RouteDef[] {
  const now = () => (options.clock ?? Date).now();
  const report = (error: unknown, integrationId: string, what: string) => options.onError?.(error, { integrationId, what });
  // The secrets of integrations seen, by ID, so a delivery is verified without a database read;
  // its unit of work checks that they are still the integration's (`secretsVersion`), and any
  // refusal made with them is checked again with freshly read ones.
  const known = new Map<string, Secrets>();
  const fresh = async (engine: Engine, integrationId: string): Promise<Secrets | null> => {
    const secrets = await engine.getIntegrationSecrets(integrationId);
    if (!secrets) known.delete(integrationId);
    else {
      if (known.size >= KNOWN_INTEGRATIONS) known.clear();
      known.set(integrationId, secrets);
    }
    return secrets;
  };

  return [
    defineRoute({
      method: 'POST', path: '/v1/webhooks/{provider}/{integrationId}', api: 'public', tag: 'Webhooks',
      summary: 'Receive a signed payment-provider event',
      errors: ['unauthorized', 'not_found', 'conflict', 'key_email_in_progress', 'rate_limited', 'internal_error', 'customer_unknown'],
      handler: async ({ engine, event, params }): Promise<WebhookReply> => {
        const provider = params.provider ?? '';
        const integrationId = params.integrationId ?? '';
        const remembered = PROVIDERS.includes(provider) ? known.get(integrationId) : undefined;
        let secrets = remembered ?? (PROVIDERS.includes(provider) ? await fresh(engine, integrationId) : null);
        let checked = remembered === undefined; // read from the database for this delivery
        let rawBody: Uint8Array | null = null;
        for (let pass = 1; ; pass++) {
          if (!secrets || secrets.integration.provider !== provider) {
            throw new ApiError('not_found', 'No integration with this ID for this provider.');
          }
          rawBody ??= await readRawBody(event);
          const read = readWebhook(provider as ProviderName, { rawBody, headers: event.req.headers, secret: secrets.webhookSecret, now: now() });
          if (read.status !== 'ok' && !checked) {
            // Refused with remembered secrets: they may be out of date.
            secrets = await fresh(engine, integrationId);
            checked = true;
            continue;
          }
          if (read.status === 'unauthorized') {
            throw new ApiError('unauthorized', secrets.webhookSecret ? 'Webhook signature missing or invalid.' : 'No webhook secret is saved for this integration yet.');
          }
          if (read.status === 'invalid') {
            const detail = `${read.error.code}${read.error.path ? ` at ${read.error.path}` : ''}`;
            const digest = `body:${createHash('sha256').update(rawBody).digest('hex')}`;
            await recordRejected(engine, integrationId, provider as ProviderName, eventTypeOf(rawBody), 'error', detail, digest, report);
            throw new ApiError('internal_error', `The event could not be read (${detail}).`);
          }
          const command = read.command;
          const version = secrets.secretsVersion;

          let outcome: Awaited<ReturnType<Engine['applyPaymentCommand']>>;
          try {
            outcome = await apply(engine, integrationId, command, version);
          } catch (error) {
            if (isSecretsChanged(error) && pass < 3) {
              // Verified with secrets the integration no longer holds: verify again with its current ones.
              secrets = await fresh(engine, integrationId);
              checked = true;
              continue;
            }
            if (LicensingError.is(error) && error.code === 'not_found') known.delete(integrationId);
            if (!isUnknownCustomer(error) || !secrets.apiKey || !options.providerA || provider !== 'provider_a') {
              throw await rejection(engine, integrationId, command, error, now(), report);
            }
            const customerId = customerIdOf(command);
            let found: Awaited<ReturnType<ProviderAClient['getCustomer']>> = null;
            try {
              found = customerId
                ? await options.providerA.getCustomer({ apiKey: secrets.apiKey, customerId, environment: secrets.integration.environment })
                : null;
            } catch (fetchError) {
              report(fetchError, integrationId, 'provider_a customer lookup');
            }
            if (!found) throw await rejection(engine, integrationId, command, error, now(), report);
            try {
              outcome = await apply(engine, integrationId, withCustomer(command, found), version);
            } catch (retryError) {
              throw await rejection(engine, integrationId, command, retryError, now(), report);
            }
          }

          const reply: WebhookReply = { result: outcome.result, detail: outcome.detail };
          if (outcome.keyEmail) {
            // A failure is reported by the key e-mail sender's `onSendError`.
            const sent = await options.keyEmails.deliverReserved(outcome.keyEmail.licenseId, outcome.keyEmail.email);
            reply.keyEmail = sent.sent ? 'sent' : 'failed';
          }
          return reply;
        }
      },
    }),
  ];
}

/** Applies the command; a unique-key clash (the same event delivered concurrently) is retried once, and then reads as a duplicate. */
async function apply(engine: Engine, integrationId: string, command: PaymentCommand, secretsVersion: string) {
  try {
    return await engine.applyPaymentCommand(integrationId, command, { secretsVersion });
  } catch (error) {
    if (!StoreConflictError.is(error)) throw error;
    return engine.applyPaymentCommand(integrationId, command, { secretsVersion });
  }
}

async function readRawBody(event: H3Event): Promise<Uint8Array> {
  const length = event.req.headers.get('content-length');
  const tooLarge = () => new ApiError('invalid_request', `Request body larger than ${WEBHOOK_BODY_LIMIT} bytes.`, { status: 413 });
  if (length !== null && Number(length) > WEBHOOK_BODY_LIMIT) throw tooLarge();
  const node = event.runtime?.node?.req;
  if (node && length !== null && DECLARED_LENGTH.test(length) && !event.req.bodyUsed) {
    // A declared length within the limit: Node's HTTP parser delivers no more than that, so the
    // bytes are collected from the request as they come. The web-stream path below (a web
    // Request around a web stream) cost more than verifying the signature.
    const bytes = await collect(node).catch(() => {
      throw bodyReadFailure(event);
    });
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  try {
    assertBodySize(event, WEBHOOK_BODY_LIMIT);
  } catch {
    throw tooLarge();
  }
  const bytes = new Uint8Array(
    await event.req.arrayBuffer().catch((error: unknown) => {
      throw isTooLarge(error) ? tooLarge() : bodyReadFailure(event);
    }),
  );
  if (bytes.byteLength > WEBHOOK_BODY_LIMIT) throw tooLarge();
  return bytes;
}

/** The chunks of a Node stream as one buffer; rejects when it errors or closes before its end. */
function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Not `node:stream/consumers`: its buffer() goes through a Blob, a copy and a transferable object.
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    finished(stream, (error) => (error ? reject(error) : resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))));
  });
}

function isSecretsChanged(error: unknown): boolean {
  return LicensingError.is(error) && error.code === 'secrets_changed';
}

function isUnknownCustomer(error: unknown): boolean {
  return LicensingError.is(error) && error.code === 'customer_unknown';
}

function customerIdOf(command: PaymentCommand): string | null {
  return 'customer' in command ? command.customer.providerCustomerId : null;
}

function withCustomer(command: PaymentCommand, found: { id: string; email: string; name: string | null }): PaymentCommand {
  if (command.kind !== 'purchase_completed' && command.kind !== 'subscription_paid' && command.kind !== 'subscription_changed') return command;
  return { ...command, customer: { providerCustomerId: found.id, email: found.email, name: found.name } };
}

/** The event name of a signed body that failed to parse, for the audit log. */
function eventTypeOf(rawBody: Uint8Array): string {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(rawBody)) as Record<string, unknown>;
    const type = parsed.event_type ?? (parsed.meta as Record<string, unknown> | undefined)?.event_name;
    return typeof type === 'string' ? type.slice(0, 100) : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Maps a failed engine call to the response and logs the delivery (its own transaction rolled
 * back): `409 key_email_in_progress`, `409 conflict` (a payment for a revoked license),
 * `429 rate_limited` (Retry-After: the next clock hour),
 * `500 customer_unknown`, `404 not_found` (integration deleted meanwhile), else `500 internal_error`.
 */
async function rejection(
  engine: Engine,
  integrationId: string,
  command: PaymentCommand,
  error: unknown,
  nowMs: number,
  report: (error: unknown, integrationId: string, what: string) => void,
): Promise<unknown> {
  const code = LicensingError.is(error) ? error.code : null;
  let reply: ApiError;
  if (code === 'key_email_in_progress') {
    reply = new ApiError('key_email_in_progress', 'Another license-key e-mail for this license is being sent; retry later.');
  } else if (code === 'rate_limited') {
    const retryAfter = Math.max(1, Math.ceil((3_600_000 - (nowMs % 3_600_000)) / 1000));
    reply = new ApiError('rate_limited', "The service plan's hourly budget of license-key e-mails is used up; retry later.", {
      headers: { 'retry-after': String(retryAfter) },
    });
  } else if (code === 'customer_unknown') {
    reply = new ApiError('customer_unknown', 'The customer of this event is not known yet; retry later.', { status: 500 });
  } else if (code === 'conflict') {
    reply = new ApiError('conflict', LicensingError.is(error) ? error.message : 'The license is revoked.');
  } else if (code === 'not_found') {
    reply = new ApiError('not_found', 'No integration with this ID for this provider.');
  } else {
    report(error, integrationId, 'processing');
    reply = new ApiError('internal_error', 'The event could not be processed; retry later.');
  }
  const result = reply.code === 'internal_error' ? 'error' : reply.code;
  const detail = LicensingError.is(error) ? error.message : 'processing error';
  await recordRejected(engine, integrationId, command.provider, command.eventType, result, detail, command.eventId, report);
  return reply;
}

async function recordRejected(
  engine: Engine,
  integrationId: string,
  provider: ProviderName,
  eventType: string,
  result: string,
  detail: string,
  eventId: string,
  report: (error: unknown, integrationId: string, what: string) => void,
): Promise<void> {
  // `webhook.received` in a transaction of its own: the delivery's transaction rolled back.
  try {
    await engine.recordWebhookRejected(integrationId, { provider, eventType, result, detail, eventId });
  } catch (error) {
    report(error, integrationId, 'audit of a rejected delivery');
  }
}
