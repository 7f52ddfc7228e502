import type { ComponentType } from 'preact';
import type { Route } from '../ui/router.js';
import { AccountExportPage } from './pages/account-export.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { CloseAccountPage } from './pages/close-account.js';
import { CustomerPage, CustomersPage } from './pages/customers.js';
import { EventsPage } from './pages/events.js';
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

export interface PageDef {
  /** Route pattern segments; `:id` matches any one segment. */
  path: string[];
  label: string;
  /** Listed in the navigation. */
  nav: boolean;
  /** Navigation item highlighted for this page (the first segment of its list page). */
  section?: string;
  ownerOnly?: boolean;
  component: ComponentType<{ route: Route }>;
}

/** Every page of the dashboard, in navigation order. */
export const PAGES: PageDef[] = [
  { path: [], label: 'Overview', nav: true, component: OverviewPage },
  { path: ['products'], label: 'Products', nav: true, component: ProductsPage },
  { path: ['products', ':id'], label: 'Product', nav: false, section: 'products', component: ProductPage },
  { path: ['plans'], label: 'Plans', nav: true, component: PlansPage },
  { path: ['plans', ':id'], label: 'Plan', nav: false, section: 'plans', component: PlanPage },
  { path: ['licenses'], label: 'Licenses', nav: true, component: LicensesPage },
  { path: ['licenses', 'new'], label: 'New license', nav: false, section: 'licenses', component: LicenseNewPage },
  { path: ['licenses', ':id'], label: 'License', nav: false, section: 'licenses', component: LicensePage },
  { path: ['offline-activation'], label: 'Offline activation', nav: true, component: OfflineActivationPage },
  { path: ['customers'], label: 'Customers', nav: true, component: CustomersPage },
  { path: ['customers', ':id'], label: 'Customer', nav: false, section: 'customers', component: CustomerPage },
  { path: ['events'], label: 'Events', nav: true, component: EventsPage },
  { path: ['integrations'], label: 'Integrations', nav: true, component: IntegrationsPage },
  { path: ['api-keys'], label: 'API keys', nav: true, component: ApiKeysPage },
  { path: ['members'], label: 'Members', nav: true, component: MembersPage },
  { path: ['settings'], label: 'Account settings', nav: true, component: SettingsPage },
  { path: ['sender-domain'], label: 'Sender domain', nav: true, component: SenderDomainPage },
  { path: ['export'], label: 'Export', nav: true, component: AccountExportPage },
  { path: ['close'], label: 'Close account', nav: true, component: CloseAccountPage },
];

/** The page of a route; a literal segment wins over `:id` (`licenses/new` before `licenses/:id`). */
export function findPage(route: Route): PageDef | undefined {
  const matches = PAGES.filter((p) => p.path.length === route.parts.length && p.path.every((seg, i) => seg.startsWith(':') || seg === route.parts[i]));
  return matches.find((p) => !p.path.some((seg) => seg.startsWith(':'))) ?? matches[0];
}
