import { useState } from 'preact/hooks';
import type { Page } from './api.js';
import { useLoad, type Loaded } from './hooks.js';

export interface Paged<T> extends Loaded<Page<T>> {
  hasPrevious: boolean;
  next: () => void;
  previous: () => void;
}

/**
 * A cursor-paged list: `load(cursor)` fetches one page; `next`/`previous` walk the pages (the
 * cursors seen are kept, as the API gives only the next one). A change of `deps` starts over.
 */
export function usePaged<T>(load: (cursor: string | null) => Promise<Page<T>>, deps: readonly unknown[]): Paged<T> {
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ key: string; stack: (string | null)[] }>({ key, stack: [null] });
  const stack = state.key === key ? state.stack : [null];
  const cursor = stack[stack.length - 1] ?? null;
  const loaded = useLoad(() => load(cursor), [key, cursor]);
  return {
    ...loaded,
    hasPrevious: stack.length > 1,
    next: () => {
      const nextCursor = loaded.data?.nextCursor;
      if (nextCursor) setState({ key, stack: [...stack, nextCursor] });
    },
    previous: () => setState({ key, stack: stack.length > 1 ? stack.slice(0, -1) : stack }),
  };
}

/** Every item of a list, following `nextCursor` (for short lists such as products in a filter). */
export async function loadAll<T>(load: (cursor: string | null) => Promise<Page<T>>, max = 20): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < max; i++) {
    const page: Page<T> = await load(cursor);
    items.push(...page.data);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return items;
}
