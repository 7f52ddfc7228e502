import { describe, expect, it } from 'vitest';
import { ROUTES as DASHBOARD } from '../src/dashboard/routes.js';
import { LicenseNewPage } from '../src/dashboard/pages/license-new.js';
import { LicensePage } from '../src/dashboard/pages/license.js';
import { OverviewPage } from '../src/dashboard/pages/overview.js';
import { LicensePage as PortalLicensePage } from '../src/portal/pages/license.js';
import { LicensesPage as PortalLicensesPage } from '../src/portal/pages/licenses.js';
import { ROUTES as PORTAL } from '../src/portal/routes.js';
import { href, matchRoute, navigationOf, parseHash, type RouteEntry } from '../src/ui/router.js';

const open = <T extends RouteEntry>(table: readonly T[], hash: string) => matchRoute(table, parseHash(hash));

describe('the hash router', () => {
  it('reads the path segments, decoded, and the query of a hash', () => {
    const route = parseHash('#/licenses/lic%2F1?status=active&q=ada+lovelace');
    expect(route.parts).toEqual(['licenses', 'lic/1']);
    expect(route.path).toBe('/licenses/lic/1');
    expect(route.query.get('status')).toBe('active');
    expect(route.query.get('q')).toBe('ada lovelace');
    for (const empty of ['', '#', '#/', '#//']) expect(parseHash(empty)).toMatchObject({ parts: [], path: '/' });
  });

  it('writes an href that reads back as the same route, leaving out empty query values', () => {
    const link = href('licenses', 'lic/1 x', { status: 'active', q: '', product: undefined });
    expect(link).toBe('#/licenses/lic%2F1%20x?status=active');
    expect(parseHash(link).parts).toEqual(['licenses', 'lic/1 x']);
    expect(href()).toBe('#/');
  });

  it("opens the dashboard's pages from their addresses, a literal segment before an ID", () => {
    expect(open(DASHBOARD, '#/')?.entry.component).toBe(OverviewPage);
    expect(open(DASHBOARD, '#/licenses/new')?.entry.component).toBe(LicenseNewPage);
    const license = open(DASHBOARD, '#/licenses/lic_1?tab=x');
    expect(license?.entry.component).toBe(LicensePage);
    expect(license?.params).toEqual({ id: 'lic_1' });
    for (const unknown of ['#/nowhere', '#/licenses/lic_1/extra', '#/new']) expect(open(DASHBOARD, unknown)).toBeNull();
  });

  it('prefers the literal entry whatever the order of the table', () => {
    const table: RouteEntry[] = [{ path: '/licenses/:id' }, { path: '/licenses/new' }, { path: '/:section/new' }];
    expect(open(table, '#/licenses/new')?.entry.path).toBe('/licenses/new');
    expect(open(table, '#/products/new')).toMatchObject({ entry: { path: '/:section/new' }, params: { section: 'products' } });
  });

  it("opens the portal's pages from their addresses", () => {
    expect(open(PORTAL, '#/')?.entry.component).toBe(PortalLicensesPage);
    expect(open(PORTAL, '#/licenses/lic_9')).toMatchObject({ entry: { component: PortalLicensePage }, params: { id: 'lic_9' } });
    expect(open(PORTAL, '#/licenses')).toBeNull();
  });

  it('lists the navigation in table order and marks the list of a detail page as current', () => {
    const onLicense = navigationOf(DASHBOARD, open(DASHBOARD, '#/licenses/lic_1')?.entry ?? null);
    expect(onLicense.map((item) => item.label)).toEqual([
      'Overview', 'Products', 'Plans', 'Licenses', 'Offline activation', 'Customers', 'Events', 'Integrations', 'Notifications', 'API keys',
      'Members',
      'Account settings', 'Sender domain', 'Export', 'Close account',
    ]);
    expect(onLicense.filter((item) => item.current)).toEqual([{ href: '#/licenses', label: 'Licenses', current: true }]);
    expect(navigationOf(DASHBOARD, open(DASHBOARD, '#/')?.entry ?? null).filter((i) => i.current).map((i) => i.href)).toEqual(['#/']);
    expect(navigationOf(DASHBOARD, null).some((item) => item.current)).toBe(false);

    const portalNav = navigationOf(PORTAL, open(PORTAL, '#/licenses/lic_9')?.entry ?? null);
    expect(portalNav).toEqual([
      { href: '#/', label: 'Your licenses', current: true },
      { href: '#/offline', label: 'Activate without internet', current: false },
    ]);
  });
});
