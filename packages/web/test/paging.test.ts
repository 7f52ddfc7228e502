import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../src/ui/api.js';
import { cursorOf, firstPage, loadAll, nextPage, pagingFor, previousPage } from '../src/ui/paging.js';
import type { ListView } from '../src/ui/types.js';
import { json, startLocalServer, type LocalServer } from './local-server.js';

// Cursor paging as the lists of the dashboard walk it: forward with the API's nextCursor, back
// through the cursors already seen, and over a whole short list; against a real HTTP server that
// pages like the API (`{ data, nextCursor }`, an opaque cursor).
const ITEMS = Array.from({ length: 7 }, (_, i) => `item-${i}`);
const PAGE = 3;

describe('paging', () => {
  let server: LocalServer;
  let api: ApiClient;
  const list = (cursor: string | null) => api.get<ListView<string>>('items', { cursor });

  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      const cursor = new URL(req.url, server.origin).searchParams.get('cursor');
      const start = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString());
      const end = start + PAGE;
      json(res, 200, { data: ITEMS.slice(start, end), nextCursor: end < ITEMS.length ? Buffer.from(String(end)).toString('base64url') : null });
    });
    api = createApiClient({ base: new URL(`${server.origin}/v1/`) });
  });
  afterAll(() => server.close());

  it('walks forward with each nextCursor and back through the cursors seen', async () => {
    let state = firstPage('[]');
    const shown: string[][] = [];
    const show = async () => {
      const page = await list(cursorOf(state));
      shown.push(page.data);
      return page;
    };

    let page = await show();
    state = nextPage(state, page.nextCursor);
    page = await show();
    state = nextPage(state, page.nextCursor);
    page = await show();
    expect(page.nextCursor).toBeNull();
    expect(nextPage(state, page.nextCursor)).toBe(state); // the last page stays the last
    state = previousPage(state);
    await show();
    state = previousPage(state);
    await show();
    expect(previousPage(state)).toBe(state); // the first page stays the first

    expect(shown).toEqual([
      ['item-0', 'item-1', 'item-2'],
      ['item-3', 'item-4', 'item-5'],
      ['item-6'],
      ['item-3', 'item-4', 'item-5'],
      ['item-0', 'item-1', 'item-2'],
    ]);
  });

  it('starts over at the first page when the filters change, and keeps its place when they do not', () => {
    const deep = nextPage(nextPage(firstPage('["active"]'), 'c1'), 'c2');
    expect(cursorOf(deep)).toBe('c2');
    expect(pagingFor(deep, '["active"]')).toBe(deep);
    const other = pagingFor(deep, '["revoked"]');
    expect(cursorOf(other)).toBeNull();
    expect(other.stack).toEqual([null]);
  });

  it('loads every item of a short list, page after page', async () => {
    const before = server.received.length;
    expect(await loadAll(list)).toEqual(ITEMS);
    expect(server.received.length - before).toBe(3);
  });

  it('stops after at most max pages of a long list', async () => {
    const before = server.received.length;
    expect(await loadAll(list, 2)).toEqual(ITEMS.slice(0, 2 * PAGE));
    expect(server.received.length - before).toBe(2);
  });
});
