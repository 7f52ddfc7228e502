import { actorOf } from '../http/auth.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { PageQuery } from '../http/schemas.js';
import { SigningKeyExportView, SigningKeyView, listOf } from '../http/views.js';

/** Signing keys: list (oldest first), create pending, activate, and the owner-only export of private keys. */
export const signingKeyRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/products/{id}/keys', api: 'vendor', tag: 'Signing keys', summary: 'List signing keys, oldest first',
    query: PageQuery, response: listOf(SigningKeyView), errors: ['invalid_request', 'not_found'],
    handler: ({ engine, accountId, params, query }) => engine.listSigningKeys(accountId, params.id!, { cursor: query.cursor ?? null }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/products/{id}/keys', api: 'vendor', tag: 'Signing keys', summary: 'Create the next key, pending',
    response: SigningKeyView, status: 201, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.createSigningKey(accountId, params.id!),
  }),
  defineRoute({
    method: 'POST', path: '/v1/products/{id}/keys/{kid}/activate', api: 'vendor', tag: 'Signing keys',
    summary: 'Activate a pending key (the active key retires); idempotent on the active key',
    response: SigningKeyView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.activateSigningKey(accountId, params.id!, params.kid!),
  }),
  defineRoute({
    method: 'POST', path: '/v1/products/{id}/keys/export', api: 'vendor', tag: 'Signing keys', access: 'owner',
    summary:
      "Export every key of the product with its private key (svc-signing-keys-v1): the account owner's session only, " +
      '10 per hour per account, audited as signing_key.exported; the service keeps signing',
    response: SigningKeyExportView, errors: ['not_found', 'rate_limited'],
    handler: ({ engine, accountId, params, principal }) => engine.exportSigningKeys(accountId, params.id!, actorOf(principal!)),
  }),
];

