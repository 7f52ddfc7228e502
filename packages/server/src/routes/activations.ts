import { defineRoute, type RouteDef } from '../http/route.js';
import { OfflineActivationBody } from '../http/schemas.js';
import { LicenseView, OfflineActivationView } from '../http/views.js';

/** Freeing a machine; answers like the license actions, with the license detail after the change. */
export const activationRoutes: RouteDef[] = [
  defineRoute({
    method: 'DELETE', path: '/v1/activations/{id}', api: 'vendor', tag: 'Activations', summary: 'Delete an activation (frees a machine)',
    response: LicenseView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.deleteActivation(accountId, params.id!),
  }),
  defineRoute({
    method: 'POST', path: '/v1/activations/offline', api: 'vendor', tag: 'Activations',
    summary:
      'Activate an air-gapped machine from its activation request (SVCREQ1 text from the SDK\'s createActivationRequest); ' +
      'same rules and limits as POST /licenses/activate; answers the certificate to carry to the machine. ' +
      '`license` is required when the request carries no license key.',
    body: OfflineActivationBody, response: OfflineActivationView,
    errors: ['invalid_request', 'not_found', 'unknown_product', 'unknown_key', 'license_expired', 'license_suspended', 'license_refunded', 'license_revoked', 'account_closed', 'activation_limit'],
    handler: ({ engine, accountId, body }) => engine.activateOffline(accountId, body),
  }),
];
