import { createHash } from 'node:crypto';
import { base64urlDecode, base64urlEncode } from '@svc-licensing/cert-format';
import type { EngineContext } from './context.js';
import { invalid } from './validate.js';

/**
 * List cursors as clients see them: the store's cursor sealed with the secret box (purpose
 * `cursor`) and bound to a digest of what it pages (list, account, scope, filters, order). A
 * cursor is opaque and cannot be forged or edited; one from another account, list or query, or
 * garbage, is `invalid_request` instead of silently paging something else.
 */

const CURSOR = /^[A-Za-z0-9_-]{1,512}$/;
/** The secret box's ciphertext form is `v2.<base64url>`: clients get the base64url part (another box's text is base64url-encoded whole). */
const BOX_PREFIX = 'v2.';
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
    text = new TextDecoder('utf-8', { fatal: true }).decode(unseal(ctx, scope, cursor as string));
  } catch {
    refuse();
  }
  return text === '' ? refuse() : text;
}

function unseal(ctx: EngineContext, scope: CursorScope, cursor: string): Uint8Array {
  const sealedFor = { purpose: 'cursor', record: digest(scope) } as const;
  try {
    return ctx.secrets.decrypt(`${BOX_PREFIX}${cursor}`, sealedFor);
  } catch (error) {
    if (!cursor.startsWith(OTHER_BOX)) throw error;
  }
  const other = base64urlDecode(cursor.slice(OTHER_BOX.length));
  if (other === undefined) throw new Error('not a cursor');
  return ctx.secrets.decrypt(new TextDecoder('utf-8', { fatal: true }).decode(other), sealedFor);
}

/** The `nextCursor` to hand out for a store cursor (null stays null: the last page). */
export function sealCursor(ctx: EngineContext, scope: CursorScope, storeCursor: string | null): string | null {
  if (storeCursor === null) return null;
  const sealed = ctx.secrets.encrypt(new TextEncoder().encode(storeCursor), { purpose: 'cursor', record: digest(scope) });
  return sealed.startsWith(BOX_PREFIX) ? sealed.slice(BOX_PREFIX.length) : `${OTHER_BOX}${base64urlEncode(new TextEncoder().encode(sealed))}`;
}
