import type { RouteDef } from '../http/route.js';
import { accountRoutes } from './account.js';
import { accountExportRoutes } from './account-export.js';
import { activationRoutes } from './activations.js';
import { apiKeyRoutes } from './api-keys.js';
import { customerRoutes } from './customers.js';
import { eventRoutes } from './events.js';
import { integrationRoutes } from './integrations.js';
import { licenseRoutes } from './licenses.js';
import { planRoutes } from './plans.js';
import { productRoutes } from './products.js';
import { memberRoutes } from './members.js';
import { sessionRoutes } from './session.js';
import { senderDomainRoutes } from './sender-domain.js';
import { signingKeyRoutes } from './signing-keys.js';
import { webhookEndpointRoutes } from './webhook-endpoints.js';

/** Every vendor API route (bearer API key or session cookie, per-account rate limit), and the sign-in link request. */
export const vendorRoutes: RouteDef[] = [
  ...productRoutes,
  ...signingKeyRoutes,
  ...planRoutes,
  ...licenseRoutes,
  ...activationRoutes,
  ...customerRoutes,
  ...integrationRoutes,
  ...apiKeyRoutes,
  ...accountRoutes,
  ...senderDomainRoutes,
  ...accountExportRoutes,
  ...eventRoutes,
  ...sessionRoutes,
  ...memberRoutes,
  ...webhookEndpointRoutes,
];
