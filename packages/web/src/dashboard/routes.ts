import type { AppRoute } from '../ui/router.js';
import { AccountExportPage } from './pages/account-export.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { CloseAccountPage } from './pages/close-account.js';
import { CustomerPage, CustomersPage } from './pages/customers.js';
import { EventsPage } from './pages/events.js';
import { IncomingDeliveriesPage } from './pages/incoming-deliveries.js';
import { IntegrationsPage } from './pages/integrations.js';
import { LicenseNewPage } from './pages/license-new.js';
import { LicensePage } from './pages/license.js';
import { LicensesPage } from './pages/licenses.js';
import { MembersPage } from './pages/members.js';
import { OfflineActivationPage } from './pages/offline-activation.js';
import { OverviewPage } from './pages/overview.js';
import { PlanPage, PlansPage } from './pages/plans.js';
import { ProductPage } from './pages/product.js';
import { ProductsPage } from './pages/products.js';
import { SenderDomainPage } from './pages/sender-domain.js';
import { SettingsPage } from './pages/settings.js';
import { WebhookEndpointPage } from './pages/webhook-endpoint.js';
import { WebhookEndpointsPage } from './pages/webhook-endpoints.js';

/** Every page of the dashboard, in navigation order. */
export const ROUTES: readonly AppRoute[] = [
  { path: '/', nav: 'Overview', component: OverviewPage },
  { path: '/products', nav: 'Products', component: ProductsPage },
  { path: '/products/:id', section: '/products', component: ProductPage },
  { path: '/plans', nav: 'Plans', component: PlansPage },
  { path: '/plans/:id', section: '/plans', component: PlanPage },
  { path: '/licenses', nav: 'Licenses', component: LicensesPage },
  { path: '/licenses/new', section: '/licenses', component: LicenseNewPage },
  { path: '/licenses/:id', section: '/licenses', component: LicensePage },
  { path: '/offline-activation', nav: 'Offline activation', component: OfflineActivationPage },
  { path: '/customers', nav: 'Customers', component: CustomersPage },
  { path: '/customers/:id', section: '/customers', component: CustomerPage },
  { path: '/events', nav: 'Events', component: EventsPage },
  { path: '/integrations', nav: 'Integrations', component: IntegrationsPage },
  { path: '/integrations/:id/deliveries', section: '/integrations', component: IncomingDeliveriesPage },
  { path: '/webhook-endpoints', nav: 'Notifications', component: WebhookEndpointsPage },
  { path: '/webhook-endpoints/:id', section: '/webhook-endpoints', component: WebhookEndpointPage },
  { path: '/api-keys', nav: 'API keys', component: ApiKeysPage },
  { path: '/members', nav: 'Members', component: MembersPage },
  { path: '/settings', nav: 'Account settings', component: SettingsPage },
  { path: '/sender-domain', nav: 'Sender domain', component: SenderDomainPage },
  { path: '/export', nav: 'Export', component: AccountExportPage },
  { path: '/close', nav: 'Close account', component: CloseAccountPage },
];
