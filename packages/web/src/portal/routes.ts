import type { AppRoute } from '../ui/router.js';
import { LicensePage } from './pages/license.js';
import { LicensesPage } from './pages/licenses.js';
import { OfflinePage } from './pages/offline.js';

/** Every page of the portal, in navigation order. */
export const ROUTES: readonly AppRoute[] = [
  { path: '/', nav: 'Your licenses', component: LicensesPage },
  { path: '/licenses/:id', section: '/', component: LicensePage },
  { path: '/offline', nav: 'Activate without internet', component: OfflinePage },
];
