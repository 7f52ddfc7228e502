import { ApiError } from '../http/errors.js';
import { readRawBody } from '../http/body.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { WebhookReplyView } from '../http/views.js';
import { createWebhookReceiver, type WebhookReceiverOptions, type WebhookReply } from '../webhooks/receiver.js';

export type { WebhookReply } from '../webhooks/receiver.js';

/** Largest webhook body accepted: 1 MiB (provider events are a few kilobytes). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/** Options of {@link createWebhookRoutes}: the receiver's (see `createWebhookReceiver`). */
export type WebhookRouteOptions = WebhookReceiverOptions;

/**
 * `POST /v1/webhooks/{provider}/{integrationId}`: the payment-provider receiver. Order: integration
 * (404), signature (401, nothing processed), body (500 when a signed body cannot be read), then one
 * engine transaction; a key e-mail reserved by that transaction is sent before answering. The
 * receiver's logic is `webhooks/receiver.ts`; this route reads the request and answers.
 *
 * @example
 * ```ts
 * const app = createApp({ engine, publicBaseUrl, routes: createWebhookRoutes({ keyEmails, providerA }) });
 * ```
 */
export function createWebhookRoutes(options: WebhookRouteOptions): RouteDef[] {
  const receiver = createWebhookReceiver(options);
  return [
    defineRoute({
      method: 'POST', path: '/v1/webhooks/{provider}/{integrationId}', api: 'public', tag: 'Webhooks',
      summary: 'Receive a signed payment-provider event',
      response: WebhookReplyView,
      rawBody: { description: "The provider's event, exactly the bytes it signed", limit: WEBHOOK_BODY_LIMIT },
      errors: ['unauthorized', 'not_found', 'conflict', 'key_email_in_progress', 'rate_limited', 'internal_error', 'customer_unknown'],
      handler: async ({ engine, event, params, ip }): Promise<WebhookReply> => {
        const answer = await receiver.receive(engine, {
          provider: params.provider ?? '',
          integrationId: params.integrationId ?? '',
          headers: event.req.headers,
          ip,
          body: () => readRawBody(event, WEBHOOK_BODY_LIMIT),
        });
        if (answer.ok) return answer.reply;
        const { code, message, retryAfter, reason } = answer.refusal;
        throw new ApiError(code, message, {
          ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
          ...(reason === undefined ? {} : { reason }),
        });
      },
    }),
  ];
}
