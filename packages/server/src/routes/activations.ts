import { defineRoute, type RouteDef } from '../http/route.js';
import { LicenseView } from '../http/views.js';

/** Freeing a machine; answers like the license actions, with the license detail after the change. */
export const activationRoutes: RouteDef[] = [
  defineRoute({
    method: 'DELETE', path: '/v1/activations/{id}', api: 'vendor', tag: 'Activations', summary: 'Delete an activation (frees a machine)',
    response: LicenseView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, params }) => engine.deleteActivation(accountId, params.id!),
  }),
];
