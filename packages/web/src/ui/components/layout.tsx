import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { headingMayTakeFocus } from './heading-focus.js';

export interface NavItem {
  href: string;
  label: string;
  /** True when this item is the current page. */
  current: boolean;
}

export interface ShellProps {
  appName: string;
  nav: readonly NavItem[];
  /** Right side of the top bar (who is signed in, sign out). */
  account?: ComponentChildren;
  children: ComponentChildren;
}

/**
 * The page frame: a skip link, a top bar, the navigation (a menu button on narrow screens) and the
 * main region. Navigation is a list of links with `aria-current` on the current page.
 */
export function Shell({ appName, nav, account, children }: ShellProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const current = nav.find((n) => n.current)?.href;
  useEffect(() => setMenuOpen(false), [current]);
  return (
    <div class="shell">
      <a class="skip-link" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">{appName}</span>
        <button type="button" class="btn btn-secondary menu-button" aria-expanded={menuOpen ? 'true' : 'false'} aria-controls="site-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <div class="topbar-account">{account}</div>
      </header>
      <nav id="site-nav" class={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Main">
        <ul>
          {nav.map((item) => (
            <li key={item.href}>
              <a href={item.href} aria-current={item.current ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/**
 * A page's heading and intro. The heading takes focus when the page opens so a screen reader
 * announces the new page (unless the user has already moved the focus: `headingMayTakeFocus`), and
 * the document title follows it.
 */
export function PageHeader({ title, appName, children, actions }: { title: string; appName: string; children?: ComponentChildren; actions?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${appName}`;
    if (headingMayTakeFocus()) ref.current?.focus({ preventScroll: true });
  }, [title, appName]);
  return (
    <div class="page-header">
      <div>
        <h1 ref={ref} tabIndex={-1}>
          {title}
        </h1>
        {children ? <div class="intro">{children}</div> : null}
      </div>
      {actions ? <div class="page-actions">{actions}</div> : null}
    </div>
  );
}

/** A titled block of a page. */
export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`;
  return (
    <section class="section" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/** Previous/next links of a cursor-paged list. */
export function Pager({ hasPrevious, nextCursor, onPrevious, onNext }: { hasPrevious: boolean; nextCursor: string | null; onPrevious: () => void; onNext: () => void }) {
  if (!hasPrevious && nextCursor === null) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="btn btn-secondary" disabled={!hasPrevious} onClick={onPrevious}>
        Previous page
      </button>
      <button type="button" class="btn btn-secondary" disabled={nextCursor === null} onClick={onNext}>
        Next page
      </button>
    </nav>
  );
}

/** A fact: its label, its value, and `'wide'` for a value that takes a whole row (an ID, an address). */
export type Fact = readonly [string, ComponentChildren] | readonly [string, ComponentChildren, 'wide'];

/** A label/value list (a license's facts). */
export function Facts({ items }: { items: readonly Fact[] }) {
  return (
    <dl class="facts">
      {items.map(([label, value, wide]) => (
        <div key={label} class={wide ? 'fact fact-wide' : 'fact'}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export type BadgeTone = 'neutral' | 'good' | 'warn' | 'bad';

/** A status word in a coloured badge (the word itself carries the meaning, not the colour). */
export function Badge({ tone = 'neutral', children }: { tone?: BadgeTone; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}
