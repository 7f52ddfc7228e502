import { checkEndpointUrl } from '../notifications/endpoint-url.js';
import { ApiError } from '../http/errors.js';
import { defineRoute, type RouteDef, type RouteServices } from '../http/route.js';
import { CreateWebhookEndpointBody, PageQuery, UpdateWebhookEndpointBody } from '../http/schemas.js';
import { NotificationDeliveryView, WebhookEndpointSecretView, WebhookEndpointView, listOf } from '../http/views.js';

/** A URL notifications may never go to (http without the operator's allowance, a private address, ...) is a 400 naming the rule. */
function checkUrl(ctx: RouteServices, url: string | undefined): void {
  if (url === undefined) return;
  const checked = checkEndpointUrl(url, ctx.notifyAllowance);
  if (!checked.ok) throw new ApiError('invalid_request', `url: ${checked.refusal.message}`);
}

const tag = 'Webhook endpoints';

/**
 * The vendor's notification endpoints (issue 28): every signed-in user and API key sees them and
 * their delivery logs; only the owner changes them, from a session or with an API key (keys are
 * the owner's): an endpoint receives every license and customer, so a member must not be able to
 * leave one behind.
 */
export const webhookEndpointRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/webhook-endpoints', api: 'vendor', tag, summary: 'List the notification endpoints, newest first',
    query: PageQuery, response: listOf(WebhookEndpointView), errors: ['invalid_request'],
    handler: ({ engine, accountId, query }) => engine.listWebhookEndpoints(accountId, { cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/webhook-endpoints', api: 'vendor', tag, access: 'not_member', status: 201,
    summary: 'Register an endpoint (not members; https, a public address; at most 10 per account); its secret is in this answer only',
    body: CreateWebhookEndpointBody, response: WebhookEndpointSecretView, errors: ['conflict'],
    handler: (ctx) => {
      checkUrl(ctx, ctx.body.url);
      return ctx.engine.createWebhookEndpoint(ctx.accountId, ctx.body);
    },
  }),
  defineRoute({
    method: 'GET', path: '/v1/webhook-endpoints/{id}', api: 'vendor', tag, summary: 'Get a notification endpoint',
    response: WebhookEndpointView, errors: ['not_found'],
    handler: ({ engine, accountId, params }) => engine.getWebhookEndpoint(accountId, params.id!),
  }),
  defineRoute({
    method: 'PATCH', path: '/v1/webhook-endpoints/{id}', api: 'vendor', tag, access: 'not_member',
    summary: 'Change an endpoint (not members); enabled: true sends what was held while it was disabled',
    body: UpdateWebhookEndpointBody, response: WebhookEndpointView, errors: ['not_found'],
    handler: (ctx) => {
      checkUrl(ctx, ctx.body.url);
      return ctx.engine.updateWebhookEndpoint(ctx.accountId, ctx.params.id!, ctx.body);
    },
  }),
  defineRoute({
    method: 'DELETE', path: '/v1/webhook-endpoints/{id}', api: 'vendor', tag, access: 'not_member',
    summary: 'Delete an endpoint (not members): nothing more is sent to it', response: WebhookEndpointView, errors: ['not_found'],
    handler: ({ engine, accountId, params }) => engine.deleteWebhookEndpoint(accountId, params.id!),
  }),
  defineRoute({
    method: 'POST', path: '/v1/webhook-endpoints/{id}/rotate-secret', api: 'vendor', tag, access: 'not_member',
    summary: 'A new signing secret (not members), in this answer only; the old one signs beside it for 24 hours',
    response: WebhookEndpointSecretView, errors: ['not_found'],
    handler: ({ engine, accountId, params }) => engine.rotateWebhookEndpointSecret(accountId, params.id!),
  }),
  defineRoute({
    method: 'POST', path: '/v1/webhook-endpoints/{id}/test', api: 'vendor', tag, access: 'not_member', status: 202,
    summary: 'Send a webhook_endpoint.test notification to this endpoint (not members); 409 while it is disabled',
    response: NotificationDeliveryView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.sendTestNotification(accountId, params.id!),
  }),
  defineRoute({
    method: 'GET', path: '/v1/webhook-endpoints/{id}/deliveries', api: 'vendor', tag,
    summary: 'The delivery log of an endpoint, newest first: each notification with its attempts and next retry (kept 30 days)',
    query: PageQuery, response: listOf(NotificationDeliveryView), errors: ['invalid_request', 'not_found'],
    handler: ({ engine, accountId, params, query }) => engine.listDeliveries(accountId, params.id!, { cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend', api: 'vendor', tag, access: 'not_member', status: 202,
    summary: 'Send a notification again now (not members), with the same webhook-id and body; 409 while the endpoint is disabled',
    response: NotificationDeliveryView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.resendDelivery(accountId, params.id!, params.deliveryId!),
  }),
];
