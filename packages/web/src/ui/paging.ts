import type { ListView } from './types.js';
import { useState } from 'preact/hooks';
import { useLoad, type Loaded } from './hooks.js';

/**
 * Where a cursor-paged list is: the cursors of the pages walked so far (the API gives only the next
 * one, so going back needs the ones seen), for one `key` (the list's filters). `null` is the first page.
 */
export interface PagingState {
  key: string;
  stack: readonly (string | null)[];
}

/** The first page of the list for `key`. */
export function firstPage(key: string): PagingState {
  return { key, stack: [null] };
}

/** The state for `key`: the same one, or the first page when the filters changed. */
export function pagingFor(state: PagingState, key: string): PagingState {
  return state.key === key ? state : firstPage(key);
}

/** The cursor of the page shown (null: the first). */
export function cursorOf(state: PagingState): string | null {
  return state.stack[state.stack.length - 1] ?? null;
}

/** The page after the shown one, given the shown page's `nextCursor`; unchanged on the last page. */
export function nextPage(state: PagingState, nextCursor: string | null | undefined): PagingState {
  return nextCursor ? { key: state.key, stack: [...state.stack, nextCursor] } : state;
}

/** The page before the shown one; unchanged on the first page. */
export function previousPage(state: PagingState): PagingState {
  return state.stack.length > 1 ? { key: state.key, stack: state.stack.slice(0, -1) } : state;
}

export interface Paged<T> extends Loaded<ListView<T>> {
  hasPrevious: boolean;
  next: () => void;
  previous: () => void;
}

/**
 * A cursor-paged list: `load(cursor)` fetches one page; `next`/`previous` walk the pages. A change
 * of `deps` starts over at the first page.
 */
export function usePaged<T>(load: (cursor: string | null) => Promise<ListView<T>>, deps: readonly unknown[]): Paged<T> {
  const key = JSON.stringify(deps);
  const [saved, setState] = useState<PagingState>(() => firstPage(key));
  const state = pagingFor(saved, key);
  const cursor = cursorOf(state);
  const loaded = useLoad(() => load(cursor), [key, cursor]);
  return {
    ...loaded,
    hasPrevious: state.stack.length > 1,
    next: () => setState(nextPage(state, loaded.data?.nextCursor)),
    previous: () => setState(previousPage(state)),
  };
}

/** Every item of a list, following `nextCursor` for at most `max` pages (for short lists such as products in a filter). */
export async function loadAll<T>(load: (cursor: string | null) => Promise<ListView<T>>, max = 20): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < max; i++) {
    const page: ListView<T> = await load(cursor);
    items.push(...page.data);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return items;
}
