import { createHash } from 'node:crypto';
import type { EngineContext } from './context.js';
import { invalid } from './validate.js';

/**
 * List cursors as clients see them: the store's cursor sealed with the secret box (AES-256-GCM)
 * together with a digest of what it pages (list, account, scope, filters, order). A cursor is
 * opaque and cannot be forged or edited; one from another account, list or query, or garbage,
 * is `invalid_request` instead of silently paging something else.
 */

const CURSOR = /^[A-Za-z0-9_-]{1,512}$/;
/** The secret box's ciphertext form is `v1.<base64url>`: clients get the base64url part (another box's text is base64url-encoded whole). */
const BOX_PREFIX = 'v1.';
const OTHER_BOX = 'o';

/** What a cursor pages: the list and every value that shapes its pages. */
export type CursorScope = readonly [list: string, accountId: string, ...rest: Array<string | null | undefined>];

function digest(scope: CursorScope): string {
  return createHash('sha256').update(JSON.stringify(scope)).digest('base64url').slice(0, 22);
}

/** The store cursor to resume from, or null for the first page; throws `invalid_request` for a cursor not issued for `scope`. */
export function openCursor(ctx: EngineContext, scope: CursorScope, cursor: unknown): string | null {
  if (cursor === undefined || cursor === null || cursor === '') return null;
  const refuse: () => never = () => invalid('cursor is not a cursor returned by this list');
  if (typeof cursor !== 'string' || !CURSOR.test(cursor)) refuse();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(unseal(ctx, cursor as string));
  } catch {
    refuse();
  }
  const dot = text.indexOf('.');
  if (dot < 0 || text.slice(0, dot) !== digest(scope) || dot === text.length - 1) refuse();
  return text.slice(dot + 1);
}

function unseal(ctx: EngineContext, cursor: string): Uint8Array {
  try {
    return ctx.secrets.decrypt(`${BOX_PREFIX}${cursor}`);
  } catch (error) {
    if (!cursor.startsWith(OTHER_BOX)) throw error;
    return ctx.secrets.decrypt(Buffer.from(cursor.slice(OTHER_BOX.length), 'base64url').toString('utf8'));
  }
}

/** The `nextCursor` to hand out for a store cursor (null stays null: the last page). */
export function sealCursor(ctx: EngineContext, scope: CursorScope, storeCursor: string | null): string | null {
  if (storeCursor === null) return null;
  const sealed = ctx.secrets.encrypt(new TextEncoder().encode(`${digest(scope)}.${storeCursor}`));
  return sealed.startsWith(BOX_PREFIX) ? sealed.slice(BOX_PREFIX.length) : `${OTHER_BOX}${Buffer.from(sealed, 'utf8').toString('base64url')}`;
}
