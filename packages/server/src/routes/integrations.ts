import type { IntegrationView as IntegrationViewOf } from '@svc-licensing/license-engine';
import { defineRoute, type RouteDef, type RouteServices } from '../http/route.js';
import { CreateIntegrationBody, PageQuery, UpdateIntegrationBody } from '../http/schemas.js';
import { DeletedView, IncomingDeliveryView, IntegrationView, listOf } from '../http/views.js';

/** Payment-provider integrations. Secrets are write-only; responses carry `webhookUrl`. */
export const integrationRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/integrations', api: 'vendor', tag: 'Integrations', summary: 'List integrations, newest first',
    query: PageQuery, response: listOf(IntegrationView), errors: ['invalid_request'],
    handler: async (ctx) => {
      const page = await ctx.engine.listIntegrations(ctx.accountId, { cursor: ctx.query.cursor ?? null });
      return { data: page.data.map((item) => withWebhookUrl(ctx, item)), nextCursor: page.nextCursor };
    },
  }),
  defineRoute({
    method: 'POST', path: '/v1/integrations', api: 'vendor', tag: 'Integrations',
    summary: 'Create an integration (one per product, provider and environment)',
    body: CreateIntegrationBody, response: IntegrationView, status: 201, errors: ['invalid_request', 'not_found', 'conflict'],
    handler: async (ctx) => withWebhookUrl(ctx, await ctx.engine.createIntegration(ctx.accountId, ctx.body)),
  }),
  defineRoute({
    method: 'GET', path: '/v1/integrations/{id}', api: 'vendor', tag: 'Integrations', summary: 'Get an integration',
    response: IntegrationView, errors: ['not_found'],
    handler: async (ctx) => withWebhookUrl(ctx, await ctx.engine.getIntegration(ctx.accountId, ctx.params.id!)),
  }),
  defineRoute({
    method: 'PATCH', path: '/v1/integrations/{id}', api: 'vendor', tag: 'Integrations',
    summary: 'Update an integration (webhookSecret replaces, apiKey null removes, priceMap replaces the whole map)',
    body: UpdateIntegrationBody, response: IntegrationView, errors: ['invalid_request', 'not_found', 'conflict'],
    handler: async (ctx) => withWebhookUrl(ctx, await ctx.engine.updateIntegration(ctx.accountId, ctx.params.id!, ctx.body)),
  }),
  defineRoute({
    method: 'GET', path: '/v1/integrations/{id}/deliveries', api: 'vendor', tag: 'Integrations',
    summary:
      'The incoming delivery log, newest first: every provider delivery to the integration, refused ones with the reason, ' +
      'alike ones within a minute as one row with a count (kept 30 days)',
    query: PageQuery, response: listOf(IncomingDeliveryView), errors: ['invalid_request', 'not_found'],
    handler: ({ engine, accountId, params, query }) => engine.listIncomingDeliveries(accountId, params.id!, { cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'DELETE', path: '/v1/integrations/{id}', api: 'vendor', tag: 'Integrations',
    summary: 'Delete an integration; later webhooks to its URL get 404',
    response: DeletedView, errors: ['not_found'],
    handler: async (ctx) => {
      await ctx.engine.deleteIntegration(ctx.accountId, ctx.params.id!);
      return { id: ctx.params.id!, deleted: true };
    },
  }),
];

/** The address to paste into the provider: `{publicBaseUrl}/v1/webhooks/<provider>/<id>`. */
export function webhookUrl(publicBaseUrl: string, provider: string, integrationId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/v1/webhooks/${provider}/${integrationId}`;
}

/**
 * The view as the API answers it: `webhookUrl`, and an `api_key_unused` warning when this server
 * cannot use the integration's provider_a API key (no API address for its environment).
 */
function withWebhookUrl(ctx: RouteServices, view: IntegrationViewOf): IntegrationViewOf & { webhookUrl: string } {
  const warnings = [...view.warnings];
  if (view.provider === 'provider_a' && view.hasApiKey && !ctx.providerAEnvironments.includes(view.environment)) {
    const flag = `--provider-a-api-url-${view.environment}`;
    warnings.push({
      code: 'api_key_unused',
      message:
        `This server has no provider_a API address for ${view.environment} integrations (${flag}), so the API key is not used: ` +
        'a purchase by a customer the service has not seen yet is retried until customer.created arrives.',
    });
  }
  return { ...view, warnings, webhookUrl: webhookUrl(ctx.publicBaseUrl, view.provider, view.id) };
}
