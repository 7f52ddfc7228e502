import { defineRoute, type RouteDef } from '../http/route.js';
import { ActivateBody, DeactivateBody, ValidateBody } from '../http/schemas.js';
import { ActivateResultView, DeactivateResultView, ValidateResultView } from '../http/views.js';

const CLIENT_ERRORS = [
  'invalid_request', 'license_expired', 'license_suspended', 'license_refunded', 'license_revoked',
  'unknown_product', 'unknown_key', 'rate_limited',
] as const;

/** The client API: no authentication, CORS open, JSON bodies only. */
export const clientRoutes: RouteDef[] = [
  defineRoute({
    method: 'POST', path: '/v1/licenses/activate', api: 'client', tag: 'Client API',
    summary: 'Activate a machine (idempotent per fingerprint) and get a certificate',
    body: ActivateBody, response: ActivateResultView, errors: [...CLIENT_ERRORS, 'account_closed', 'activation_limit'],
    handler: ({ engine, body }) => engine.activate(body),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses/validate', api: 'client', tag: 'Client API',
    summary: 'Validate an activated machine and get a fresh certificate',
    body: ValidateBody, response: ValidateResultView, errors: [...CLIENT_ERRORS, 'not_activated'],
    handler: ({ engine, body }) => engine.validate(body),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses/deactivate', api: 'client', tag: 'Client API', summary: 'Free this machine',
    body: DeactivateBody, response: DeactivateResultView, errors: [...CLIENT_ERRORS, 'not_activated'],
    handler: ({ engine, body }) => engine.deactivate(body),
  }),
];
