import { createHash } from 'node:crypto';
import type { LicenseEngine, PaymentCommand, PaymentRefused, PaymentResult, ProviderName } from '@svc-licensing/license-engine';
import { describeSignatureFailure, readWebhook } from '@svc-licensing/provider-webhooks';
import type { KeyEmailSender } from '../key-email.js';
import type { ProviderAClient } from '../provider-a-client.js';
import { lookUpCustomer, withCustomer } from './provider-a.js';
import { eventTypeOf, NO_INTEGRATION, recordRejected, refusalFor, rejectionOf, type Failed, type ReportError, type WebhookRefusal } from './refusals.js';
import { RememberedSecrets, type IntegrationSecrets } from './secrets.js';
import { FloodGuard } from './flood.js';
import { IncomingLog, reasonOfRefusal, refusedDelivery, unreadBody } from './incoming-log.js';

export type { WebhookRefusal } from './refusals.js';

export interface WebhookReceiverOptions {
  /** Sends the key e-mail a processed event reserved. */
  keyEmails: KeyEmailSender;
  /**
   * Fetches unknown provider_a customers with the integration's API key, for the environments it
   * has an address for; otherwise the receiver waits for `customer.created`.
   */
  providerA?: ProviderAClient;
  /** Time source of provider_a's 5-minute signature window and of `Retry-After`. */
  clock?: { now(): number };
  /** Told about failures the response does not show (customer lookups, processing errors, audit writes). */
  onError?: ReportError;
}

/** The 200 body: what became of the event. */
export interface WebhookReply {
  result: 'processed' | 'duplicate' | 'ignored';
  detail: string;
  /** Present when the event created a license whose key is e-mailed: whether the e-mail went out. */
  keyEmail?: 'sent' | 'failed';
}

/** One delivery as the HTTP layer received it. */
export interface WebhookDelivery {
  /** The provider named by the path (`provider_a`, `provider_b`; anything else is `not_found`). */
  provider: string;
  integrationId: string;
  headers: Headers;
  /** Reads the exact bytes of the body; called once, only when the integration exists. */
  body: () => Promise<Uint8Array>;
  /** The sender's address, for the flood bound (see `FloodGuard`); one shared line when absent. */
  ip?: string;
}

/** What a delivery is answered: the reply, or why it was not processed. */
export type WebhookAnswer = { ok: true; reply: WebhookReply } | { ok: false; refusal: WebhookRefusal };

/** The engine operations the receiver uses. */
export type WebhookEngine = Pick<LicenseEngine, 'getIntegrationSecrets' | 'applyPaymentCommand' | 'recordWebhookRejected' | 'recordIncomingDeliveries'>;

/** The receiver of payment-provider deliveries, with the integration secrets it remembers. */
export interface WebhookReceiver {
  receive(engine: WebhookEngine, delivery: WebhookDelivery): Promise<WebhookAnswer>;
}

const PROVIDERS: readonly string[] = ['provider_a', 'provider_b'];

/** How often a delivery is verified again after the engine saw its secrets change meanwhile. */
const SECRETS_PASSES = 3;

/**
 * The payment-provider receiver without HTTP. Order: integration (`not_found`, the body unread),
 * signature (`unauthorized`, nothing processed), body (`internal_error` when a signed body cannot
 * be read), then one engine transaction; a key e-mail reserved by it is sent before answering. A
 * delivery refused or failed is logged as `webhook.received` in a transaction of its own.
 *
 * @example
 * ```ts
 * const receiver = createWebhookReceiver({ keyEmails });
 * const answer = await receiver.receive(engine, { provider: 'provider_b', integrationId, headers, body: async () => bytes });
 * if (answer.ok) console.log(answer.reply.result); // 'processed'
 * ```
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const now = () => (options.clock ?? Date).now();
  const report: ReportError = (error, context) => options.onError?.(error, context);
  const secretsOf = new RememberedSecrets(now);
  const flood = new FloodGuard(now);
  // Every delivery to an existing integration is logged for the vendor (refusals at a bounded rate); a processed one by its unit.
  const incoming = new IncomingLog({ now, report });

  /** Applies the command; a `customer_unknown` provider_a event is applied again with the customer fetched. */
  const apply = async (engine: WebhookEngine, secrets: IntegrationSecrets, command: PaymentCommand): Promise<PaymentResult | Failed> => {
    const integrationId = secrets.integration.id;
    const applyAs = (cmd: PaymentCommand) =>
      engine.applyPaymentCommand(integrationId, cmd, { secretsVersion: secrets.secretsVersion }).catch((error: unknown): Failed => ({ result: 'failed', error }));
    const outcome = await applyAs(command);
    if (outcome.result !== 'refused' || outcome.code !== 'customer_unknown') return outcome;
    if (!secrets.apiKey || !options.providerA || command.provider !== 'provider_a') return outcome;
    // No API address for the integration's environment: the key cannot be used (the integration's `warnings` say so).
    if (!options.providerA.environments.includes(secrets.integration.environment)) return outcome;
    const found = await lookUpCustomer(options.providerA, { ...secrets, apiKey: secrets.apiKey }, command, report);
    return found ? applyAs(withCustomer(command, found)) : outcome;
  };

  /** Answers a refused or failed event and logs the delivery. */
  const rejected = async (engine: WebhookEngine, integrationId: string, command: PaymentCommand, failure: PaymentRefused | Failed): Promise<WebhookAnswer> => {
    const refusal = refusalFor(failure, now(), (error) => report(error, { integrationId, what: 'processing' }));
    const { provider, eventType, eventId } = command;
    await recordRejected(engine, integrationId, { provider, eventType, eventId, ...rejectionOf(failure, refusal) }, report);
    await incoming.log(engine, refusedDelivery(integrationId, refusal, reasonOfRefusal(refusal), { eventType, eventId }));
    return { ok: false, refusal };
  };

  return {
    async receive(engine, delivery) {
      const { provider, integrationId } = delivery;
      const readBody = async () => {
        try {
          return await delivery.body();
        } catch (error) {
          await incoming.log(engine, unreadBody(integrationId, error)); // over the size limit, or cut off
          throw error;
        }
      };
      const ip = delivery.ip ?? 'unknown';
      const arrived = secretsOf.arrive();
      if (!PROVIDERS.includes(provider)) return (flood.failed(ip), { ok: false, refusal: NO_INTEGRATION });
      // Read at most once per integration at a time, and in line for an address that keeps failing.
      const readSecrets = (any: boolean) => flood.read(ip, () => secretsOf.fresh(engine, integrationId, arrived, any));
      const remembered = secretsOf.remembered(integrationId);
      let secrets: IntegrationSecrets | null;
      let checked: boolean; // read from the database after this delivery arrived
      if (remembered === undefined) ({ secrets, current: checked } = await readSecrets(true));
      else [secrets, checked] = [remembered, false];
      let rawBody: Uint8Array | null = null;
      for (let pass = 1; ; pass++) {
        if (!secrets || secrets.integration.provider !== provider) return (flood.failed(ip), { ok: false, refusal: NO_INTEGRATION });
        rawBody ??= await readBody();
        const read = readWebhook(provider as ProviderName, { rawBody, headers: delivery.headers, secret: secrets.webhookSecret, now: now() });
        if (read.status !== 'ok' && !checked) {
          // Refused with remembered secrets (or ones read before it arrived): they may be out of date.
          secrets = (await readSecrets(false)).secrets;
          checked = true;
          continue;
        }
        if (read.status === 'ok') flood.verified(ip);
        if (read.status === 'unauthorized') {
          flood.failed(ip);
          // Which check failed, in the answer and the request log (never the secret or a digest).
          const reason = secrets.webhookSecret ? read.reason : 'missing_secret';
          const refusal: WebhookRefusal = { code: 'unauthorized', message: describeSignatureFailure(provider as ProviderName, reason), reason };
          await incoming.log(engine, refusedDelivery(integrationId, refusal, reason));
          return { ok: false, refusal };
        }
        if (read.status === 'invalid') {
          const detail = `${read.error.code}${read.error.path ? ` at ${read.error.path}` : ''}`;
          const eventId = `body:${createHash('sha256').update(rawBody).digest('hex')}`;
          await recordRejected(engine, integrationId, { provider: provider as ProviderName, eventType: eventTypeOf(rawBody), result: 'error', detail, eventId }, report);
          const refusal: WebhookRefusal = { code: 'internal_error', message: `The event could not be read (${detail}).` };
          await incoming.log(engine, refusedDelivery(integrationId, refusal, 'unreadable_body'));
          return { ok: false, refusal };
        }
        const outcome = await apply(engine, secrets, read.command);
        if (outcome.result === 'refused' && outcome.code === 'secrets_changed' && pass < SECRETS_PASSES) {
          // Verified with secrets the integration no longer holds: verify again with its current ones.
          secrets = (await readSecrets(false)).secrets;
          checked = true;
          continue;
        }
        if (outcome.result === 'refused' && outcome.code === 'not_found') secretsOf.forget(integrationId);
        if (outcome.result === 'refused' || outcome.result === 'failed') return rejected(engine, integrationId, read.command, outcome);
        const reply: WebhookReply = { result: outcome.result, detail: outcome.detail };
        if (outcome.result === 'duplicate') {
          const { eventType, eventId } = read.command;
          await incoming.log(engine, { integrationId, status: 200, result: 'duplicate', message: outcome.detail, eventType, eventId });
        }
        if (outcome.keyEmail) {
          // A failure is reported by the key e-mail sender's `onSendError`.
          const sent = await options.keyEmails.deliverReserved(outcome.keyEmail.licenseId, outcome.keyEmail.email);
          reply.keyEmail = sent.sent ? 'sent' : 'failed';
        }
        return { ok: true, reply };
      }
    },
  };
}
