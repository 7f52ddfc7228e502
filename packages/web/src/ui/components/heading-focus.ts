// When a page's heading may take the focus. Opening a page moves the focus to its heading so a
// screen reader announces the new page; but a keyboard user who has already moved on (tabbed into
// the navigation while the page's data loads, say) keeps the focus where they put it. Otherwise a
// title that changes once the data arrives ("License" to "License of Ada") would pull them back.

/** A page was opened (the app's first load or a route change) and no heading has answered it yet. */
let opened = true;
/** What had the focus when that page was opened. */
let focusAtOpen: Element | null = typeof document === 'undefined' ? null : document.activeElement;

if (typeof addEventListener === 'function') {
  addEventListener('hashchange', () => {
    opened = true;
    focusAtOpen = document.activeElement;
  });
}

/**
 * Whether a page's heading should take the focus now, as its title is set. Yes when nothing has
 * the focus (the first load, or the focused element went with the old page), or when a page was
 * just opened and the focus is still on what opened it (a navigation link stays on the page). The
 * first heading after an opening answers it, so a later title change of the same page moves the
 * focus only if it was lost.
 */
export function headingMayTakeFocus(): boolean {
  const active = document.activeElement;
  const lost = active === null || active === document.body;
  const untouched = opened && active === focusAtOpen;
  opened = false;
  return lost || untouched;
}
