import { actorOf } from '../http/auth.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { CreateApiKeyBody, PageQuery } from '../http/schemas.js';
import { ApiKeyCreatedView, ApiKeyView, DeletedView, listOf } from '../http/views.js';

/** API keys: list (no values), create (value shown once), revoke. */
export const apiKeyRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/api-keys', api: 'vendor', tag: 'API keys', summary: 'List API keys (prefix, lastUsedAt and who created each, never the value)',
    query: PageQuery, response: listOf(ApiKeyView), errors: ['invalid_request'],
    handler: ({ engine, accountId, query }) => engine.listApiKeys(accountId, { cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/api-keys', api: 'vendor', tag: 'API keys', access: 'not_member',
    summary: 'Create an API key; the full key is shown only here. The owner (session) or an API key; a member is 403 forbidden',
    body: CreateApiKeyBody, response: ApiKeyCreatedView, status: 201, errors: ['invalid_request'],
    handler: ({ engine, accountId, body, principal }) => engine.createApiKey(accountId, body, actorOf(principal!)),
  }),
  defineRoute({
    method: 'DELETE', path: '/v1/api-keys/{id}', api: 'vendor', tag: 'API keys', access: 'not_member',
    summary: 'Revoke an API key. The owner (session) or an API key; a member is 403 forbidden',
    response: DeletedView, errors: ['not_found'],
    handler: async ({ engine, accountId, params, principal }) => {
      await engine.revokeApiKey(accountId, params.id!, actorOf(principal!));
      return { id: params.id!, deleted: true };
    },
  }),
];
