import { defineRoute, type RouteDef } from '../http/route.js';
import { ActivateBody, BorrowBody, DeactivateBody, ValidateBody } from '../http/schemas.js';
import { ActivateResultView, BorrowResultView, DeactivateResultView, ValidateResultView } from '../http/views.js';
import { revocationRoutes } from './revocations.js';

const CLIENT_ERRORS = [
  'invalid_request', 'license_expired', 'license_suspended', 'license_refunded', 'license_revoked',
  'unknown_product', 'unknown_key', 'rate_limited',
] as const;

/** The client API: no authentication, CORS open, JSON bodies only (the revocation list's GET answers text). */
export const clientRoutes: RouteDef[] = [
  defineRoute({
    method: 'POST', path: '/v1/licenses/activate', api: 'client', tag: 'Client API',
    summary: 'Activate a machine (idempotent per fingerprint) and get a certificate (on a floating plan: check a seat out)',
    body: ActivateBody, response: ActivateResultView, errors: [...CLIENT_ERRORS, 'account_closed', 'activation_limit'],
    handler: ({ engine, body, keyHash }) => engine.activate(body, keyHash === null ? {} : { keyHash }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses/validate', api: 'client', tag: 'Client API',
    summary: 'Validate an activated machine and get a fresh certificate (on a floating plan: the heartbeat)',
    body: ValidateBody, response: ValidateResultView, errors: [...CLIENT_ERRORS, 'not_activated', 'activation_limit'],
    // The license is read while the call is counted (Redis and the database in parallel); nothing
    // is written, signed or answered before the count admits it.
    countsWhileHandled: true,
    handler: ({ engine, body, keyHash, admitted }) => {
      // Built field by field: two spreads of object literals cost a validate a microsecond.
      const options: { keyHash?: string; admitted?: Promise<void> } = {};
      if (keyHash !== null) options.keyHash = keyHash;
      if (admitted !== null) options.admitted = admitted;
      return engine.validate(body, options);
    },
  }),
  ...revocationRoutes,
  defineRoute({
    method: 'POST', path: '/v1/licenses/deactivate', api: 'client', tag: 'Client API', summary: 'Free this machine',
    body: DeactivateBody, response: DeactivateResultView, errors: [...CLIENT_ERRORS, 'not_activated'],
    handler: ({ engine, body, keyHash }) => engine.deactivate(body, keyHash === null ? {} : { keyHash }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/licenses/borrow', api: 'client', tag: 'Client API',
    summary: 'Borrow a floating seat for days offline (docs/floating-seats.md)',
    body: BorrowBody, response: BorrowResultView, errors: [...CLIENT_ERRORS, 'account_closed', 'activation_limit', 'borrow_limit'],
    handler: ({ engine, body, keyHash }) => engine.borrow(body, keyHash === null ? {} : { keyHash }),
  }),
];
