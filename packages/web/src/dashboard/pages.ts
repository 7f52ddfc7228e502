import type { ComponentType } from 'preact';
import type { Route } from '../ui/router.js';
import { OverviewPage } from './pages/overview.js';

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
];

export function findPage(route: Route): PageDef | undefined {
  return PAGES.find((p) => p.path.length === route.parts.length && p.path.every((seg, i) => seg.startsWith(':') || seg === route.parts[i]));
}
